package dev.pier.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancers;
import dev.pier.cloud.local.LocalLoadBalancerProvider;
import dev.pier.cloud.local.LocalProviderOptions;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.kube.ServiceWriter;
import dev.pier.leader.LeaderGate;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.policy.DeletionGuard;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The sweeper with the local provider and a real informer cache: an address the process holds for a
 * Service uid the cache does not know (its delete event was missed, or its load balancer was
 * abandoned) is released with {@code orphans.cleanup}, and counted but kept without it; the address
 * of a Service in the cache stays.
 */
@RealKubeApiServer
class LocalOrphanSweepTest {

  private static LbService lbService(String ns, String name, String uid, int port) {
    return new LbService(
        new ServiceKey("kubernetes", ns, name),
        uid,
        List.of(new LbPort("http", "TCP", port, 30080)),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of("IPv4"),
        LbStatus.EMPTY);
  }

  @Test
  void aBalancerWhoseServiceUidIsNotInTheCacheIsSwept(KubeApiServer kube) throws Exception {
    withAnOrphanAndALiveBalancer(
        kube,
        "local-orphans",
        true,
        (sweeper, owned, registry, liveUid) -> {
          assertThat(sweeper.sweep().await(30, TimeUnit.SECONDS)).isEqualTo(1);

          assertThat(owned.list("kubernetes").await(10, TimeUnit.SECONDS))
              .extracting(OwnedLoadBalancer::serviceUid)
              .containsExactly(liveUid);
          assertThat(remaining(registry)).as("nothing left behind").isZero();
          assertThat(sweeper.sweep().await(30, TimeUnit.SECONDS)).as("nothing more").isZero();
        });
  }

  @Test
  void withoutCleanupAnOrphanIsCountedAndKept(KubeApiServer kube) throws Exception {
    withAnOrphanAndALiveBalancer(
        kube,
        "local-orphans-kept",
        false,
        (sweeper, owned, registry, liveUid) -> {
          assertThat(sweeper.sweep().await(30, TimeUnit.SECONDS)).as("deleted").isZero();

          assertThat(owned.list("kubernetes").await(10, TimeUnit.SECONDS))
              .extracting(OwnedLoadBalancer::serviceUid)
              .containsExactlyInAnyOrder(liveUid, "uid-of-a-deleted-service");
          assertThat(remaining(registry)).isEqualTo(1);
        });
  }

  private static double remaining(SimpleMeterRegistry registry) {
    return registry.get("pier.orphans.remaining").tag("cluster", "kubernetes").gauge().value();
  }

  private interface SweepCheck {
    void check(
        OrphanSweeper sweeper,
        OwnedLoadBalancers owned,
        SimpleMeterRegistry registry,
        String liveUid)
        throws Exception;
  }

  /**
   * A synced cluster with the Service "live", and the local provider holding a load balancer for it
   * and one for a Service uid the cache does not know.
   */
  private static void withAnOrphanAndALiveBalancer(
      KubeApiServer kube, String namespace, boolean deletes, SweepCheck check) throws Exception {
    String ns = kube.createNamespace(namespace);
    kube.client()
        .services()
        .inNamespace(ns)
        .resource(Services.loadBalancer(ns, "live", 80, kube.freeNodePort()))
        .create();
    String liveUid =
        kube.client().services().inNamespace(ns).withName("live").get().getMetadata().getUid();
    Vertx vertx = Vertx.vertx();
    KubernetesClient client = kube.newClient(kube.adminToken());
    AsyncKubeApi api = new AsyncKubeApi(client);
    Cluster cluster =
        new Cluster(
            "kubernetes",
            client,
            Duration.ZERO,
            new ServiceWriter(api),
            (ref, type, reason, message) -> {},
            api);
    LocalLoadBalancerProvider provider =
        new LocalLoadBalancerProvider(
            vertx, new LocalProviderOptions().setPoolAddresses(List.of("127.243.0.0/24")));
    try {
      cluster.serviceInformer().start();
      cluster.nodeInformer().start();
      await().atMost(InProcessPier.CONVERGE).until(cluster::synced);
      provider
          .initialize(new ClusterIdentity("kubernetes", "kube-system-uid"), List.of())
          .await(10, TimeUnit.SECONDS);
      List<LbNode> nodes = List.of(new LbNode("n1", "", "127.0.0.1", null, Map.of()));
      provider
          .ensureLoadBalancer(
              "kubernetes", lbService(ns, "live", liveUid, kube.freeNodePort()), nodes)
          .await(10, TimeUnit.SECONDS);
      provider
          .ensureLoadBalancer(
              "kubernetes",
              lbService(ns, "missed", "uid-of-a-deleted-service", kube.freeNodePort()),
              nodes)
          .await(10, TimeUnit.SECONDS);
      SimpleMeterRegistry registry = new SimpleMeterRegistry();

      OrphanSweeper sweeper =
          OrphanSweeper.forProvider(
              new Clusters(List.of(cluster)),
              provider,
              Duration.ofMinutes(10),
              new DeletionGuard(
                  DeletionGuard.DEFAULT_MIN_DELETIONS,
                  DeletionGuard.DEFAULT_MAX_PERCENT,
                  DeletionGuard.DEFAULT_WINDOW,
                  false,
                  System::currentTimeMillis),
              registry,
              LeaderGate.alwaysOpen(),
              deletes);
      assertThat(sweeper).as("the local provider can list what it owns").isNotNull();

      check.check(sweeper, provider.ownedLoadBalancers().orElseThrow(), registry, liveUid);
    } finally {
      provider.close().await(10, TimeUnit.SECONDS);
      cluster.close();
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
