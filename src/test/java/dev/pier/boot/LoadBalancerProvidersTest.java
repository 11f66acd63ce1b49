package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.local.PoolSpec;
import dev.pier.config.InvalidItemException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code local.pools} as the loader hands it over, mapped onto pools. */
class LoadBalancerProvidersTest {

  private static Map<String, Object> pool(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  private static void assertBad(Object raw, String subPath, String value, String allowed) {
    assertThatThrownBy(() -> LoadBalancerProviders.parsePools(raw))
        .isInstanceOfSatisfying(
            InvalidItemException.class,
            e -> {
              assertThat(e.subPath()).isEqualTo(subPath);
              assertThat(e.value()).isEqualTo(value);
              assertThat(e.allowed()).contains(allowed);
            });
  }

  @Test
  void theEnvironmentFormIsCommaSeparatedAndOpenToEveryNamespace() {
    assertThat(LoadBalancerProviders.parsePools(" 10.0.0.0/24 ,10.1.0.1-10.1.0.9,"))
        .containsExactly(PoolSpec.of("10.0.0.0/24"), PoolSpec.of("10.1.0.1-10.1.0.9"));
    assertBad("10.0.0.0/24, nonsense", "[1]", "nonsense", "a CIDR");
  }

  @Test
  void stringsAndMappingsMix() {
    List<PoolSpec> pools =
        LoadBalancerProviders.parsePools(
            List.of(
                "127.240.0.0/16",
                pool("name", "a", "addresses", List.of("10.0.0.0/24"), "namespaces", List.of("x")),
                pool("name", "b", "addresses", List.of("10.1.0.0/24")),
                pool("name", "c", "addresses", List.of("10.2.0.0/24"), "namespaces", List.of())));
    assertThat(pools)
        .containsExactly(
            PoolSpec.of("127.240.0.0/16"),
            new PoolSpec("a", List.of("10.0.0.0/24"), List.of("x")),
            new PoolSpec("b", List.of("10.1.0.0/24"), List.of()),
            new PoolSpec("c", List.of("10.2.0.0/24"), List.of()));
    assertThat(pools.get(2).admits("anything")).isTrue();
    assertThat(pools.get(1).admits("y")).isFalse();
    assertThat(pools.get(0)).hasToString("127.240.0.0/16");
    assertThat(pools.get(1)).hasToString("{name: a, addresses: [10.0.0.0/24], namespaces: [x]}");
  }

  @Test
  void badItemsAreNamedByTheirPlace() {
    assertBad(List.of("10.0.0.0/24", " "), "[1]", " ", "a CIDR");
    assertBad(List.of(List.of("10.0.0.0/24")), "[0]", "[10.0.0.0/24]", "a mapping");
    assertBad(
        List.of(pool("addresses", List.of("10.0.0.0/24"))), "[0].name", "null", "a pool name");
    assertBad(
        List.of(
            pool("name", "a", "addresses", List.of("10.0.0.0/24")),
            pool("name", "a", "addresses", List.of("10.1.0.0/24"))),
        "[1].name",
        "a",
        "unique");
    assertBad(List.of(pool("name", "a")), "[0].addresses", "null", "a non-empty list");
    assertBad(
        List.of(pool("name", "a", "addresses", "10.0.0.0/24")),
        "[0].addresses",
        "10.0.0.0/24",
        "a non-empty list");
    assertBad(
        List.of(pool("name", "a", "addresses", List.of("10.0.0.0/24", "10.0.0.5/24"))),
        "[0].addresses[1]",
        "10.0.0.5/24",
        "did you mean 10.0.0.0/24");
    assertBad(
        List.of(pool("name", "a", "addresses", List.of("10.0.0.0/24"), "namespaces", "team-a")),
        "[0].namespaces",
        "team-a",
        "a list of namespace names");
    assertBad(
        List.of(
            pool(
                "name",
                "a",
                "addresses",
                List.of("10.0.0.0/24"),
                "namespaces",
                List.of("ok", "Not_OK"))),
        "[0].namespaces[1]",
        "Not_OK",
        "a list of namespace names");
    assertBad(
        List.of(pool("name", "a", "addresses", List.of("10.0.0.0/24"), "range", "x")),
        "[0].range",
        "x",
        "name, addresses, namespaces");
  }
}
