package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Hostile annotations at the shipped memory limit: 700 ClusterIP Services with 256 KiB of
 * annotations each (175 MiB, about the whole heap the shipped flags give in 512 MiB), half before
 * Pier starts (its first list) and half while it runs (its watch). Pier stays up, serves a
 * LoadBalancer Service, and its live heap stays small: it caches such Services as stubs.
 */
@RealKubeApiServer
class ServiceCacheHeapTest {
  private static final int SERVICES = 700;
  // The API server's limit is 256 KiB for all of an object's annotations, keys included.
  private static final String ANNOTATION = "x".repeat(256 * 1024 - 64);
  private static final long HEAP_BOUND = 64L * 1024 * 1024;

  @Test
  void hostileAnnotationsOnServicesPierDoesNotServeStayOutOfItsHeap(KubeApiServer kube)
      throws Exception {
    KubernetesClient client = kube.client();
    kube.createReadyNode("node-heap", "127.0.0.1", Map.of());
    String ns = kube.createNamespace("heap");
    create(client, ns, 0, SERVICES / 2);

    Map<String, String> env = new java.util.HashMap<>();
    env.put(PierOptions.PROVIDER.envName(), "local");
    env.put(PierOptions.LOCAL_POOLS.envName(), "127.246.0.0/24");
    try (PierProcess pier = PierProcess.startShipped(kube, "heap", env)) {
      await()
          .atMost(PierProcess.STARTUP)
          .untilAsserted(() -> assertThat(pier.status("/readyz")).as(pier.log()).isEqualTo(200));
      create(client, ns, SERVICES / 2, SERVICES);

      client
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "served", 8089, kube.freeNodePort()))
          .create();
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(
              () ->
                  assertThat(Services.ingressIp(client, ns, "served")).as(pier.log()).isNotNull());
      assertThat(pier.alive()).as(pier.log()).isTrue();
      long live = pier.liveHeapBytes();
      System.out.printf(
          "ServiceCacheHeapTest: live heap %d KiB with %d Services x %d KiB of annotations%n",
          live / 1024, SERVICES, ANNOTATION.length() / 1024);
      assertThat(live).as("live heap after a full GC").isLessThan(HEAP_BOUND);
    }
  }

  private static void create(KubernetesClient client, String ns, int from, int to)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = from; i < to; i++) {
        Service svc =
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName("big-" + i)
                .addToAnnotations("example.com/payload", ANNOTATION)
                .endMetadata()
                .withNewSpec()
                .withType("ClusterIP")
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build();
        done.add(pool.submit(() -> client.services().inNamespace(ns).resource(svc).create()));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
