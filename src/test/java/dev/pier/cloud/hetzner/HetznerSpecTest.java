package dev.pier.cloud.hetzner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.ProviderException;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HetznerSpecTest {
  private static final HetznerOptions OPTIONS = new HetznerOptions().setToken("t");

  private static LbService svc(Map<String, String> annotations, String etp, int hcnp) {
    return new LbService(
        new ServiceKey("c", "ns", "s"),
        "uid",
        List.of(new LbPort("a", "TCP", 80, 30080), new LbPort("b", "TCP", 443, 30443)),
        null,
        etp,
        hcnp,
        "None",
        List.of(),
        annotations,
        List.of(),
        LbStatus.EMPTY);
  }

  @Test
  void defaultsComeFromTheOptions() {
    HetznerSpec s = HetznerSpec.of(svc(Map.of(), "Cluster", 0), OPTIONS, "auid");
    assertThat(s.name()).isEqualTo("auid");
    assertThat(s.type()).isEqualTo("lb11");
    assertThat(s.location()).isNull();
    assertThat(s.networkZone()).isEqualTo("eu-central");
    assertThat(s.services()).hasSize(2);
    assertThat(s.services().get(1).destinationPort()).isEqualTo(30443);
    assertThat(s.services().get(1).check())
        .isEqualTo(new HetznerSpec.Check("tcp", 30443, 10, 15, 3, "/", null));
  }

  @Test
  void annotationsOverrideAndDurationsAreSeconds() {
    HetznerSpec s =
        HetznerSpec.of(
            svc(
                Map.of(
                    HetznerSpec.LOCATION, "hel1",
                    HetznerSpec.HC_INTERVAL, "1m",
                    HetznerSpec.HC_TIMEOUT, "7",
                    HetznerSpec.HC_PROTOCOL, "HTTP",
                    HetznerSpec.HC_HTTP_PATH, "/ready",
                    HetznerSpec.PROXY_PROTOCOL, "true"),
                "Cluster",
                0),
            OPTIONS,
            "auid");
    assertThat(s.location()).isEqualTo("hel1");
    assertThat(s.networkZone()).isNull();
    assertThat(s.proxyProtocol()).isTrue();
    assertThat(s.services().get(0).check())
        .isEqualTo(new HetznerSpec.Check("http", 30080, 60, 7, 3, "/ready", null));
  }

  @Test
  void localTrafficPolicyChecksHealthzOnTheHealthCheckNodePort() {
    HetznerSpec s = HetznerSpec.of(svc(Map.of(), "Local", 32000), OPTIONS, "auid");
    assertThat(s.services())
        .allSatisfy(
            x ->
                assertThat(x.check())
                    .isEqualTo(new HetznerSpec.Check("http", 32000, 10, 15, 3, "/healthz", null)));
  }

  @Test
  void badValuesNameTheAnnotationAndValue() {
    assertThatThrownBy(
            () ->
                HetznerSpec.of(
                    svc(
                        Map.of(
                            HetznerSpec.LOCATION, "fsn1", HetznerSpec.NETWORK_ZONE, "eu-central"),
                        "Cluster",
                        0),
                    OPTIONS,
                    "n"))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field())
                  .isEqualTo("metadata.annotations[" + HetznerSpec.NETWORK_ZONE + "]");
              assertThat(e.value()).isEqualTo("eu-central");
            });
    for (Map.Entry<String, String> bad :
        Map.of(
                HetznerSpec.PROXY_PROTOCOL, "yes",
                HetznerSpec.HC_RETRIES, "many",
                HetznerSpec.HC_PORT, "70000",
                HetznerSpec.HC_INTERVAL, "soon",
                HetznerSpec.HC_PROTOCOL, "udp",
                HetznerSpec.HC_HTTP_PATH, "healthz")
            .entrySet()) {
      assertThatThrownBy(
              () ->
                  HetznerSpec.of(
                      svc(Map.of(bad.getKey(), bad.getValue()), "Cluster", 0), OPTIONS, "n"))
          .as(bad.getKey())
          .isInstanceOfSatisfying(
              ProviderException.InvalidInput.class,
              e -> {
                assertThat(e.field()).contains(bad.getKey());
                assertThat(e.value()).isEqualTo(bad.getValue());
                assertThat(e.getMessage()).contains(bad.getValue());
              });
    }
  }
}
