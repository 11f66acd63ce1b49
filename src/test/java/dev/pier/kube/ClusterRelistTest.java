package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.testkit.Edits;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Service cache that missed events is listed again: the cache matches the server afterwards, and
 * the handlers, moved to the new informer, see what they missed (updates, a deletion), not every
 * Service anew. A silent watch cannot be had on demand (`scripts/bench/run.sh informer-stall` makes
 * one in about 1 round of 3), so the missed events are made by putting the versions from before
 * them back into the cache, and a Service the server no longer has into it.
 */
@RealKubeApiServer
class ClusterRelistTest {
  private static final int SERVICES = 20;
  private static final int MISSED = 5;
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
        .forEach(i -> setup.services().inNamespace(ns).resource(service(ns, i)).create());
    KubernetesClient client = KubeClients.create(vertx, kube.kubeconfigPath().toString(), null);
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
      await().atMost(Duration.ofSeconds(10)).until(() -> adds.size() == SERVICES);

      // Updates the cache then misses: it is back at the versions before them.
      List<Service> before = new ArrayList<>();
      for (int i = 0; i < MISSED; i++) {
        before.add(cluster.service(ns, name(i)));
        Edits.retrying(
            setup.services().inNamespace(ns).withName(name(i)),
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .addToLabels("round", "2")
                    .endMetadata()
                    .build());
      }
      Map<String, String> server = versions(setup.services().inNamespace(ns).list().getItems());
      await().atMost(Duration.ofSeconds(10)).until(() -> stale(cluster, ns, server).isEmpty());
      TrimmingItemStore<Service> cache = cluster.serviceItems();
      before.forEach(svc -> cache.put(Cache.metaNamespaceKeyFunc(svc), svc));
      // A deletion the cache missed: a Service it holds that the server does not have.
      Service ghost = service(ns, 99);
      cache.put(Cache.metaNamespaceKeyFunc(ghost), ghost);
      assertThat(stale(cluster, ns, server)).hasSize(MISSED);
      updated.clear();

      cluster.cacheMissedEvents(
          ns, name(0), cluster.service(ns, name(0)).getMetadata().getResourceVersion());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> stale(cluster, ns, server).isEmpty() && cluster.service(ns, name(99)) == null);
      assertThat(cluster.serviceRelists()).isEqualTo(1);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                assertThat(updated)
                    .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, MISSED).mapToObj(ClusterRelistTest::name).toList());
                assertThat(deleted).containsExactly(name(99));
              });
      // The Services the handler already knew are not announced as new.
      assertThat(adds).hasSize(SERVICES).allSatisfy((n, count) -> assertThat(count).isEqualTo(1));
      // At most one relist a minute.
      cluster.cacheMissedEvents(ns, name(0), "1");
      assertThat(cluster.serviceRelists()).isEqualTo(1);

      // The new informer's events reach the handler.
      updated.clear();
      Edits.retrying(
          setup.services().inNamespace(ns).withName(name(SERVICES - 1)),
          s ->
              new ServiceBuilder(s).editMetadata().addToLabels("round", "3").endMetadata().build());
      await().atMost(Duration.ofSeconds(10)).until(() -> updated.contains(name(SERVICES - 1)));
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
        .withResourceVersion(i == 99 ? "1" : null)
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
