package dev.pier.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.local.PoolSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  private Path write(String yaml) throws IOException {
    Path f = dir.resolve("pier.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  private static ConfigLoader loader(Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get);
  }

  @Test
  void defaultsWithoutAFile() {
    ConfigValues v = loader(Map.of()).load(null);
    assertThat(v.get(PierOptions.RECONCILE_CONCURRENCY)).isEqualTo(200);
    assertThat(v.get(PierOptions.RECONCILE_MIN_RETRY_DELAY)).isEqualTo(Duration.ofSeconds(5));
    assertThat(v.get(PierOptions.RECONCILE_MAX_RETRY_DELAY)).isEqualTo(Duration.ofSeconds(300));
    assertThat(v.get(PierOptions.LOCAL_POOLS)).containsExactly(PoolSpec.of("127.240.0.0/16"));
    assertThat(v.source()).isEqualTo("embedded defaults");
  }

  @Test
  void fileValuesAndEnvironmentOverrides() throws IOException {
    Path f =
        write(
            """
            cluster:
              name: east
            reconcile:
              concurrency: 50
              minRetryDelay: 100ms
            local:
              pools: [10.0.0.0/24, 10.1.0.10-10.1.0.20]
            """);
    ConfigValues v =
        loader(Map.of("PIER_RECONCILE_CONCURRENCY", "7", "PIER_LOAD_BALANCER_CLASSES", "a, b"))
            .load(f);
    assertThat(v.get(PierOptions.CLUSTER_NAME)).isEqualTo("east");
    assertThat(v.get(PierOptions.RECONCILE_CONCURRENCY)).isEqualTo(7);
    assertThat(v.get(PierOptions.RECONCILE_MIN_RETRY_DELAY)).isEqualTo(Duration.ofMillis(100));
    assertThat(v.get(PierOptions.LOCAL_POOLS))
        .containsExactly(PoolSpec.of("10.0.0.0/24"), PoolSpec.of("10.1.0.10-10.1.0.20"));
    assertThat(v.get(PierOptions.LOAD_BALANCER_CLASSES)).containsExactly("a", "b");
  }

  @Test
  void envNamesAreUpperSnakeCaseOfThePath() {
    assertThat(PierOptions.RECONCILE_CONCURRENCY.envName()).isEqualTo("PIER_RECONCILE_CONCURRENCY");
    assertThat(PierOptions.RECONCILE_MIN_RETRY_DELAY.envName())
        .isEqualTo("PIER_RECONCILE_MIN_RETRY_DELAY");
    assertThat(PierOptions.LOCAL_UNHEALTHY_THRESHOLD.envName())
        .isEqualTo("PIER_LOCAL_HEALTH_CHECK_UNHEALTHY_THRESHOLD");
  }

  @Test
  void anInvalidValueNamesTheFileKeyValueAndWhatIsAllowed() throws IOException {
    Path f = write("reconcile:\n  concurrency: 0\n");
    assertThatThrownBy(() -> loader(Map.of()).load(f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("reconcile.concurrency")
        .hasMessageContaining("'0'")
        .hasMessageContaining("an integer from 1 to");
  }

  @Test
  void anInvalidEnvironmentValueNamesTheVariable() {
    assertThatThrownBy(() -> loader(Map.of("PIER_RECONCILE_MAX_RETRY_DELAY", "soon")).load(null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PIER_RECONCILE_MAX_RETRY_DELAY")
        .hasMessageContaining("'soon'")
        .hasMessageContaining("duration");
  }

  @Test
  void unknownOptionsAndBadYamlFailWithThePath() throws IOException {
    Path f = write("reconcile:\n  concurency: 3\n");
    assertThatThrownBy(() -> loader(Map.of()).load(f))
        .hasMessageContaining("unknown option 'reconcile.concurency'")
        .hasMessageContaining(f.toString());
    Path bad = write("reconcile: [\n");
    assertThatThrownBy(() -> loader(Map.of()).load(bad)).hasMessageContaining("not valid YAML");
    assertThatThrownBy(() -> loader(Map.of()).load(dir.resolve("missing.yaml")))
        .hasMessageContaining("missing.yaml");
  }

  @Test
  void choicesAreChecked() {
    assertThatThrownBy(() -> loader(Map.of("PIER_NODES_PREDICATES", "ready")).load(null))
        .hasMessageContaining("one of [stable, legacy]");
    assertThat(
            loader(Map.of("PIER_NODES_PREDICATES", "legacy"))
                .load(null)
                .get(PierOptions.NODES_PREDICATES))
        .isEqualTo("legacy");
  }

  @Test
  void poolsMayMixStringsAndMappings() throws IOException {
    Path f =
        write(
            """
            local:
              pools:
                - 127.240.0.0/16
                - name: team-a
                  addresses: [10.0.0.0/24, 10.1.0.10-10.1.0.20]
                  namespaces: [team-a, team-a-staging]
                - name: open
                  addresses:
                    - 10.2.0.0/24
            """);
    assertThat(loader(Map.of()).load(f).get(PierOptions.LOCAL_POOLS))
        .containsExactly(
            PoolSpec.of("127.240.0.0/16"),
            new PoolSpec(
                "team-a",
                java.util.List.of("10.0.0.0/24", "10.1.0.10-10.1.0.20"),
                java.util.List.of("team-a", "team-a-staging")),
            new PoolSpec("open", java.util.List.of("10.2.0.0/24"), java.util.List.of()));
  }

  @Test
  void theEnvironmentKeepsTheCommaSeparatedPoolForm() {
    assertThat(
            loader(Map.of("PIER_LOCAL_POOLS", "10.0.0.0/24, 10.1.0.0/24"))
                .load(null)
                .get(PierOptions.LOCAL_POOLS))
        .containsExactly(PoolSpec.of("10.0.0.0/24"), PoolSpec.of("10.1.0.0/24"));
  }

  @Test
  void aBadPoolItemNamesTheFileTheItemKeyTheValueAndWhatIsAllowed() throws IOException {
    Path f =
        write(
            """
            local:
              pools:
                - 127.240.0.0/16
                - name: a
                  addresses: [10.0.0.0/24]
                - name: b
                  addresses: [10.1.0.0/24]
                  namespaces: Team_B
            """);
    assertThatThrownBy(() -> loader(Map.of()).load(f))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("local.pools[2].namespaces")
        .hasMessageContaining("'Team_B'")
        .hasMessageContaining("a list of namespace names");
    Path badAddress =
        write(
            """
            local:
              pools:
                - name: a
                  addresses: [10.0.0.0/24, 10.0.0.300/32]
            """);
    assertThatThrownBy(() -> loader(Map.of()).load(badAddress))
        .hasMessageContaining("local.pools[0].addresses[1]")
        .hasMessageContaining("'10.0.0.300/32'")
        .hasMessageContaining("CIDR");
    Path unknownKey =
        write(
            """
            local:
              pools:
                - name: a
                  addresses: [10.0.0.0/24]
                  namespace: [x]
            """);
    assertThatThrownBy(() -> loader(Map.of()).load(unknownKey))
        .hasMessageContaining("local.pools[0].namespace")
        .hasMessageContaining("name, addresses, namespaces");
    Path noName = write("local:\n  pools:\n    - addresses: [10.0.0.0/24]\n");
    assertThatThrownBy(() -> loader(Map.of()).load(noName))
        .hasMessageContaining("local.pools[0].name");
  }

  @Test
  void otherListsStillTakeOnlyPlainValues() throws IOException {
    Path f = write("loadBalancerClasses:\n  - name: a\n");
    assertThatThrownBy(() -> loader(Map.of()).load(f))
        .isInstanceOf(ConfigException.class)
        .hasMessage(f + ": loadBalancerClasses: list items must be plain values");
  }

  @Test
  void aPartLoadsOverTheBaseWithItsOwnPathsAndVariables() throws IOException {
    Path f = write("local:\n  connectTimeout: 3s\nreconcile:\n  concurrency: 9\n");
    ConfigValues base = loader(Map.of()).load(f);
    ConfigLoader part =
        new ConfigLoader(
            java.util.List.of(PierOptions.LOCAL_POOLS, PierOptions.LOCAL_CONNECT_TIMEOUT),
            Map.of("PIER_PART_LOCAL_CONNECT_TIMEOUT", "4s")::get);
    ConfigValues v =
        part.loadPart(
            base,
            Map.of("local.pools", java.util.List.of("10.0.0.0/24")),
            "parts[a].",
            "PIER_PART_");
    assertThat(v.get(PierOptions.LOCAL_POOLS)).containsExactly(PoolSpec.of("10.0.0.0/24"));
    assertThat(v.describe(PierOptions.LOCAL_POOLS)).isEqualTo(f + ": parts[a].local.pools");
    assertThat(v.get(PierOptions.LOCAL_CONNECT_TIMEOUT)).isEqualTo(Duration.ofSeconds(4));
    assertThat(v.describe(PierOptions.LOCAL_CONNECT_TIMEOUT))
        .isEqualTo(
            "environment variable PIER_PART_LOCAL_CONNECT_TIMEOUT (parts[a].local.connectTimeout)");
    assertThat(v.get(PierOptions.RECONCILE_CONCURRENCY)).isEqualTo(9);
    assertThat(v.isSet(PierOptions.RECONCILE_CONCURRENCY)).isTrue();
    assertThat(v.source()).isEqualTo(f.toString());
    assertThat(base.get(PierOptions.LOCAL_CONNECT_TIMEOUT)).isEqualTo(Duration.ofSeconds(3));
    assertThatThrownBy(() -> part.loadPart(base, Map.of("local.pool", "x"), "parts[a].", "P_"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(f + ": unknown option 'parts[a].local.pool'");
  }

  @Test
  void envFormIsUpperSnakeCase() {
    assertThat(Option.envForm("healthCheck.interval")).isEqualTo("HEALTH_CHECK_INTERVAL");
    assertThat(Option.envForm("us-west-2")).isEqualTo("US_WEST_2");
  }

  @Test
  void aKeyGivenTwiceNamesTheFileAndTheKeyPath() throws IOException {
    Path top = write("reconcile:\n  concurrency: 5\nreconcile:\n  concurrency: 6\n");
    assertThatThrownBy(() -> loader(Map.of()).load(top))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(top + ": reconcile: given twice");
    Path nested = write("reconcile:\n  concurrency: 5\n  minRetryDelay: 1s\n  concurrency: 6\n");
    assertThatThrownBy(() -> loader(Map.of()).load(nested))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(nested + ": reconcile.concurrency: given twice");
    Path inItem =
        write(
            """
            clusters:
              - name: east
                kubeconfig: a
              - name: west
                local:
                  pools: [10.0.0.0/24]
                  pools: [10.1.0.0/24]
            """);
    assertThatThrownBy(() -> loader(Map.of()).load(inItem))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(inItem + ": clusters[1].local.pools: given twice");
    Path inPool =
        write(
            """
            local:
              pools:
                - name: a
                  addresses: [10.0.0.0/24]
                  name: b
            """);
    assertThatThrownBy(() -> loader(Map.of()).load(inPool))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(inPool + ": local.pools[0].name: given twice");
  }

  @Test
  void invalidYamlIsOneLineWithWhereItIs() throws IOException {
    Path f = write("local:\n  pools: [::1/200]\n");
    assertThatThrownBy(() -> loader(Map.of()).load(f))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f + ": not valid YAML: expected the node content, but found ':' (line 2, column 11)");
  }

  @Test
  void malformedPoolsFailWithOneLineNamingSourceKeyValueAndWhatIsAllowed() throws IOException {
    for (String pools :
        new String[] {
          "[10.0.0.0/33]",
          "[10.0.0.9-10.0.0.1]",
          "[{name: x}]",
          "[{name: x, addresses: []}]",
          "[{name: x, addresses: 10.0.0.0/24}]",
          "[{name: x, addresses: [10.0.0.0/24], namespaces: [a]}, {name: x, addresses: [10.1.0.0/24]}]",
          "[[10.0.0.0/24]]",
          "[10.0.0.0/24, 10.0.0.0/24]",
          "[10.0.0.0/24, 10.0.0.128/25]",
          "[\"::1/200\"]",
          "[]",
          "{}",
          "[{name: x, addresses: [10.0.0.0/24]}, 10.0.0.128/25]",
          "7",
          "{name: x}",
          "\"\"",
          "[\"\"]",
          "[10.0.0.1-]",
          "[-10.0.0.1]",
          "[10.0.0.1-::1]",
          "[999999999999]"
        }) {
      Path f = write("local:\n  pools: " + pools + "\n");
      assertThatThrownBy(() -> loader(Map.of()).load(f))
          .as(pools)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith(f + ": local.pools")
          .hasMessageContaining("must be")
          .satisfies(e -> assertThat(e.getMessage()).as(pools).doesNotContain("\n", "Exception"));
    }
    for (String pools :
        new String[] {
          "10.0.0.0/33",
          "10.0.0.9-10.0.0.1",
          "7",
          ",",
          "10.0.0.0/24,10.0.0.0/24",
          "10.0.0.1-",
          "name=x",
          ""
        }) {
      assertThatThrownBy(() -> loader(Map.of("PIER_LOCAL_POOLS", pools)).load(null))
          .as(pools)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("environment variable PIER_LOCAL_POOLS (local.pools")
          .hasMessageContaining("must be")
          .satisfies(e -> assertThat(e.getMessage()).as(pools).doesNotContain("\n", "Exception"));
    }
  }
}
