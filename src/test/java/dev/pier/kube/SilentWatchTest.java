package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.StallingTcpProxy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches that go silent without closing (a proxy that stops forwarding them, as a server with
 * kubernetes/kubernetes#102464 or a lossy network does): every informer's cache catches up within a
 * minute, because no watch lives longer than {@link WatchLifetime} allows.
 */
@RealKubeApiServer
class SilentWatchTest {
  private static final Logger log = LoggerFactory.getLogger(SilentWatchTest.class);
  private static final Duration BOUND = Duration.ofSeconds(60);
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  void aCacheBehindASilentWatchCatchesUpWithinAMinute(KubeApiServer kube, @TempDir Path dir)
      throws Exception {
    String ns = kube.createNamespace("silent");
    KubernetesClient direct = kube.client();
    direct.services().inNamespace(ns).resource(service(ns, "before")).create();
    kube.createReadyNode("silent-node", "127.0.0.1", Map.of());
    try (StallingTcpProxy proxy = StallingTcpProxy.start(kube.url())) {
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(
          kubeconfig, kube.selfContainedKubeconfig().replace(kube.url(), proxy.url()));
      KubernetesClient client = KubeClients.create(vertx, kubeconfig.toString(), null);
      AsyncKubeApi api = new AsyncKubeApi(client);
      try (Cluster cluster =
          new Cluster(
              "kubernetes",
              client,
              Duration.ZERO,
              new ServiceWriter(api),
              (ref, type, reason, message) -> {},
              api)) {
        cluster.startServices(vertx.getOrCreateContext()).await();
        cluster.startNodes(vertx.getOrCreateContext()).await();
        assertThat(cluster.service(ns, "before")).isNotNull();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> cluster.serviceInformer().isWatching() && proxy.connections() > 0);

        // Every stream open now goes silent, the watches among them; the changes come after.
        proxy.stallOpenConnections();
        long stalled = System.nanoTime();
        direct.services().inNamespace(ns).resource(service(ns, "after")).create();
        direct.nodes().withName("silent-node").edit(n -> label(n, "after"));

        await().atMost(BOUND).until(() -> cluster.service(ns, "after") != null);
        log.info(
            "Service cache caught up {} ms after its watch went silent",
            (System.nanoTime() - stalled) / 1_000_000);
        await()
            .atMost(BOUND.minus(Duration.ofNanos(System.nanoTime() - stalled)))
            .until(
                () ->
                    cluster.nodes().stream()
                        .anyMatch(
                            n ->
                                n.getMetadata().getLabels() != null
                                    && "after".equals(n.getMetadata().getLabels().get("round"))));
        log.info(
            "Node cache caught up {} ms after its watch went silent",
            (System.nanoTime() - stalled) / 1_000_000);
      }
    }
  }

  private static Node label(Node n, String round) {
    n.getMetadata().getLabels().put("round", round);
    return n;
  }

  private static Service service(String ns, String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .addNewPort()
        .withPort(80)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }
}
