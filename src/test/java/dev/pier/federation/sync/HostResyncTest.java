package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.Test;

/**
 * Which updates of a host Service run its aggregate although nothing the federation acts on
 * changed: under scale-out, the informer's resync (the same version handed again), so that a
 * member's change whose telling was lost on the bus is picked up within a resync period.
 */
class HostResyncTest {

  @Test
  void aResyncUnderScaleOutRunsTheAggregateAgain() {
    Service s = service("41", "192.0.2.1");

    assertThat(FederationVerticle.relevant(s, s)).isFalse();
    assertThat(FederationVerticle.reaggregates(s, s, true)).isTrue();
  }

  @Test
  void aResyncOfASingleReplicaDoesNot() {
    Service s = service("41", "192.0.2.1");

    assertThat(FederationVerticle.reaggregates(s, s, false)).isFalse();
  }

  /** The aggregate's own status write comes back as a new version: it does not run again. */
  @Test
  void theAggregatesOwnWriteDoesNotRunItAgain() {
    Service before = service("41", null);
    Service written = service("42", "192.0.2.1");

    assertThat(FederationVerticle.relevant(before, written)).isFalse();
    assertThat(FederationVerticle.reaggregates(before, written, true)).isFalse();
  }

  private static Service service(String version, String ingressIp) {
    ServiceBuilder b =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("web")
            .withResourceVersion(version)
            .endMetadata()
            .withNewSpec()
            .withType("LoadBalancer")
            .endSpec();
    if (ingressIp != null) {
      b.withNewStatus()
          .withNewLoadBalancer()
          .addNewIngress()
          .withIp(ingressIp)
          .endIngress()
          .endLoadBalancer()
          .endStatus();
    }
    return b.build();
  }
}
