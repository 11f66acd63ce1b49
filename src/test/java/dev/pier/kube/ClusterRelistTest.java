package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Service informer whose watch went silent is replaced: the cluster lists and watches again, its
 * handlers move to the new informer, and the cache matches the server. The silent watch is made on
 * purpose: fabric8 8.0.0's HTTP/2 watch on Vert.x 5 ({@code onlyHttpWatches}) stops reading after
 * its first 64 KiB when a burst of events arrives: 300 Service updates, all in flight at once.
 */
@RealKubeApiServer
class ClusterRelistTest {
  private static final int SERVICES = 300;
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  void aCacheThatMissedEventsIsListedAgainAndItsHandlersMoveAlong(KubeApiServer kube) {
    String ns = kube.createNamespace("relist");
    KubernetesClient setup = kube.client();
    IntStream.range(0, SERVICES)
        .parallel()
        .forEach(i -> setup.services().inNamespace(ns).resource(service(ns, i)).create());
    Config config = Config.fromKubeconfig(null, kube.kubeconfigPath().toFile());
    config.setOnlyHttpWatches(true);
    KubernetesClient client = KubeClients.create(vertx, config);
    AsyncKubeApi api = new AsyncKubeApi(client);
    Map<String, Integer> adds = new ConcurrentHashMap<>();
    Set<String> updated = ConcurrentHashMap.newKeySet();
    Set<String> deleted = ConcurrentHashMap.newKeySet();
    try (Cluster cluster =
        new Cluster(
            "kubernetes",
            client,
            Duration.ZERO,
            new ServiceWriter(api),
            (ref, type, reason, message) -> {},
            api)) {
      cluster.addServiceHandler(
          new ResourceEventHandler<>() {
            @Override
            public void onAdd(Service s) {
              if (ns.equals(s.getMetadata().getNamespace())) {
                adds.merge(s.getMetadata().getName(), 1, Integer::sum);
              }
            }

            @Override
            public void onUpdate(Service before, Service after) {
              updated.add(after.getMetadata().getName());
            }

            @Override
            public void onDelete(Service s, boolean unknown) {
              deleted.add(s.getMetadata().getName());
            }
          });
      assertThat(cluster.relistServices("before the start", Duration.ZERO)).isFalse();
      cluster.startServices(vertx.getOrCreateContext()).await();

      io.vertx.core.Context ctx = vertx.getOrCreateContext();
      io.vertx.core.Future.all(
              IntStream.range(0, SERVICES)
                  .mapToObj(
                      i ->
                          api.patch(
                              ctx,
                              AsyncKubeApi.corePath(ns, "services", name(i)),
                              AsyncKubeApi.MERGE_PATCH,
                              new io.vertx.core.json.JsonObject(
                                  "{\"metadata\":{\"labels\":{\"round\":\"2\"}}}")))
                  .toList())
          .await();
      Map<String, String> server = versions(setup.services().inNamespace(ns).list().getItems());
      // The watch went silent: after a while the cache still misses updates.
      await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> true);
      List<String> stale = stale(cluster, ns, server);
      assertThat(stale).as("precondition: the watch went silent").isNotEmpty();

      // Deleted while the watch is silent: the relist must report it.
      String gone = name(SERVICES - 1);
      setup.services().inNamespace(ns).withName(gone).delete();
      server.remove(gone);
      assertThat(deleted).isEmpty();
      updated.clear();

      String first = stale.get(0);
      cluster.cacheMissedEvents(
          ns, first, cluster.service(ns, first).getMetadata().getResourceVersion());
      await().atMost(Duration.ofSeconds(30)).until(() -> stale(cluster, ns, server).isEmpty());
      assertThat(cluster.serviceRelists()).isEqualTo(1);
      // The handler moved to the new informer and saw what it had missed, as updates and a
      // deletion; the Services it already knew are not announced as new.
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                assertThat(updated)
                    .containsAll(stale.stream().filter(n -> !n.equals(gone)).toList());
                assertThat(deleted).containsExactly(gone);
              });
      assertThat(adds).hasSize(SERVICES).allSatisfy((n, count) -> assertThat(count).isEqualTo(1));
      // At most one relist a minute.
      cluster.cacheMissedEvents(ns, first, "1");
      assertThat(cluster.serviceRelists()).isEqualTo(1);

      // The new informer's events reach the handler.
      updated.clear();
      setup
          .services()
          .inNamespace(ns)
          .withName(name(0))
          .edit(
              s ->
                  new ServiceBuilder(s)
                      .editMetadata()
                      .addToLabels("round", "3")
                      .endMetadata()
                      .build());
      await().atMost(Duration.ofSeconds(10)).until(() -> updated.contains(name(0)));
    }
  }

  private static Map<String, String> versions(List<Service> services) {
    Map<String, String> v = new ConcurrentHashMap<>();
    services.forEach(s -> v.put(s.getMetadata().getName(), s.getMetadata().getResourceVersion()));
    return v;
  }

  private static List<String> stale(Cluster cluster, String ns, Map<String, String> server) {
    return server.entrySet().stream()
        .filter(
            e -> {
              Service cached = cluster.service(ns, e.getKey());
              return cached == null
                  || !e.getValue().equals(cached.getMetadata().getResourceVersion());
            })
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }

  private static String name(int i) {
    return String.format("svc-%03d", i);
  }

  private static Service service(String ns, int i) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name(i))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .addNewPort()
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }
}
