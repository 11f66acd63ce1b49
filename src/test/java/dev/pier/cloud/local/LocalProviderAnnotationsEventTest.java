package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The local provider's Service annotations end to end: Pier as it is started, a real API server,
 * real traffic; a Service the annotations cannot serve gets a Warning Event naming them.
 */
@RealKubeApiServer
class LocalProviderAnnotationsEventTest {

  private static final String POOL = "127.252.0.0/24";

  @Test
  void sharersGetOneAddressAndBadAnnotationsAreWarningEvents(KubeApiServer kube) throws Exception {
    KubernetesClient client = kube.client();
    kube.createReadyNode("node-ann", "127.0.0.1", Map.of());
    String ns = kube.createNamespace("annotations");
    int nodePortA = kube.freeNodePort();
    int nodePortB = kube.freeNodePort();
    try (TestBackend a = TestBackend.start("node-ann-a", "127.0.0.1", nodePortA);
        TestBackend b = TestBackend.start("node-ann-b", "127.0.0.1", nodePortB);
        InProcessPier pier =
            InProcessPier.start(kube, Map.of(PierOptions.LOCAL_POOLS.envName(), POOL))) {
      create(client, annotated(ns, "a", 8080, nodePortA, "pier.dev/allow-shared-ip", "k"));
      String ip = Services.awaitIngress(client, ns, "a");
      create(client, annotated(ns, "b", 8081, nodePortB, "pier.dev/allow-shared-ip", "k"));
      assertThat(Services.awaitIngress(client, ns, "b")).isEqualTo(ip);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ip, 8080), "").contains("node-ann-a"));
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ip, 8081), "").contains("node-ann-b"));

      create(
          client,
          annotated(ns, "clash", 8080, kube.freeNodePort(), "pier.dev/allow-shared-ip", "k"));
      create(
          client,
          annotated(ns, "nopool", 8082, kube.freeNodePort(), "pier.dev/address-pool", "nope"));

      assertThat(awaitWarning(client, ns, "clash").getMessage())
          .contains("pier.dev/allow-shared-ip", "k", "TCP/8080");
      assertThat(awaitWarning(client, ns, "nopool").getMessage())
          .contains("pier.dev/address-pool", "nope");
      assertThat(Services.ingressIp(client, ns, "clash")).isNull();
      assertThat(Services.ingressIp(client, ns, "nopool")).isNull();
    }
  }

  private static Service annotated(
      String ns, String name, int port, int nodePort, String annotation, String value) {
    Service s = Services.loadBalancer(ns, name, port, nodePort);
    s.getMetadata().setAnnotations(Map.of(annotation, value));
    return s;
  }

  private static void create(KubernetesClient client, Service s) {
    client.services().inNamespace(s.getMetadata().getNamespace()).resource(s).create();
  }

  private static Event awaitWarning(KubernetesClient client, String ns, String name) {
    await()
        .atMost(InProcessPier.CONVERGE)
        .until(
            () ->
                Services.events(client, ns, name).stream()
                    .anyMatch(e -> "Warning".equals(e.getType())));
    return Services.events(client, ns, name).stream()
        .filter(e -> "Warning".equals(e.getType()))
        .findFirst()
        .orElseThrow();
  }
}
