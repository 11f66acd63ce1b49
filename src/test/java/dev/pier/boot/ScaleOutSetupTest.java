package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.KubernetesConfig;
import dev.pier.shards.ScaleOutOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScaleOutSetupTest {
  static ScaleOutOptions kubernetes(String service) {
    return new ScaleOutOptions(
        32,
        "pier",
        "",
        5701,
        List.of(),
        service,
        Duration.ofSeconds(10),
        Duration.ofSeconds(15),
        Duration.ofSeconds(10),
        Duration.ofSeconds(5));
  }

  /**
   * Kubernetes discovery reads the headless Service's endpoints by name and nothing about public
   * addresses: no replica is reached from outside the cluster, so Hazelcast's default (list every
   * Endpoints object of the namespace on each poll, and a Service per replica) would only need RBAC
   * that k8s/scale-out.yaml does not grant.
   */
  @Test
  void kubernetesDiscoveryAsksOnlyForTheServicesEndpoints() {
    KubernetesConfig k8s =
        ScaleOutSetup.clusterManager(kubernetes("pier-replicas"), "pier")
            .getConfig()
            .getNetworkConfig()
            .getJoin()
            .getKubernetesConfig();
    assertThat(k8s.isEnabled()).isTrue();
    assertThat(k8s.getProperties())
        .containsEntry("service-name", "pier-replicas")
        .containsEntry("service-port", "5701")
        .containsEntry("namespace", "pier")
        .containsEntry("expose-externally", "false");
  }
}
