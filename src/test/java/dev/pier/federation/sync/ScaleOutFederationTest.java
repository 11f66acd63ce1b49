package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.model.Addresses;
import dev.pier.shards.ShardMap;
import dev.pier.testkit.CapturedLog;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.ScaleOutCredentials;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The federation's member side under scale-out, on real API servers and one in-process replica: a
 * replica that takes a member's shard after the member turned ready still makes its copies (the
 * readiness change that starts a member's work happened before this replica owned it).
 */
@RealKubeApiServer
class ScaleOutFederationTest {

  @Test
  void aMemberReadyBeforeItsShardIsTakenGetsItsCopies(KubeApiServer host) throws Exception {
    try (KubeApiServer east = KubeApiServer.start()) {
      String leaseNs = host.createNamespace("fed-scale-lease");
      String ns = host.createNamespace("fed-scale");
      FederatedServices.optIn(host.client(), ns);
      // A single leader still holds the Lease: the replica takes no shard until it is gone.
      host.client()
          .leases()
          .inNamespace(leaseNs)
          .resource(
              new LeaseBuilder()
                  .withNewMetadata()
                  .withName("pier")
                  .endMetadata()
                  .withNewSpec()
                  .withHolderIdentity("an-old-leader")
                  .withLeaseDurationSeconds(3600)
                  .withRenewTime(ZonedDateTime.now())
                  .endSpec()
                  .build())
          .create();
      host.client()
          .services()
          .inNamespace(ns)
          .resource(FederatedServices.federated(ns, "web", Map.of()))
          .create();
      // Many Services in the member: its cache takes a while to fill once its owner starts it,
      // longer than the first run of the member's keys takes to start.
      crowd(east, 1500);
      String config = config(host, east, leaseNs);
      try (CapturedLog verticle = CapturedLog.of(FederationVerticle.class)) {
        PierSaw.LogMark start = PierSaw.LogMark.now(verticle::text);
        try (InProcessPier pier = InProcessPier.startWithConfig(config, Map.of())) {
          await().atMost(InProcessPier.CONVERGE).until(() -> ready(pier, "east"));
          // Pier has web (it was created before Pier started, whose start waits for its caches'
          // first lists), and left east's key of it: without a shard it runs none of it.
          PierSaw.logged(
              start,
              "east's key of " + ns + "/web",
              Pattern.compile("Service east/" + Pattern.quote(ns) + "/web: not run here"),
              InProcessPier.CONVERGE);
          await()
              .during(Duration.ofSeconds(2))
              .atMost(Duration.ofSeconds(4))
              .untilAsserted(
                  () ->
                      assertThat(east.client().services().inNamespace(ns).withName("web").get())
                          .as("no copy while the replica holds no shard")
                          .isNull());

          host.client().leases().inNamespace(leaseNs).withName("pier").delete();

          await()
              .atMost(InProcessPier.CONVERGE)
              .until(() -> east.client().services().inNamespace(ns).withName("web").get() != null);
        }
      }
    }
  }

  /** A replica of four shards serving host and member east (without load balancers). */
  private static String config(KubeApiServer host, KubeApiServer east, String leaseNs) {
    int port = FreePorts.take();
    return FederationConfig.host(host.kubeconfigPath())
        .loadBalancers(false)
        .member("east", east.kubeconfigPath())
        .loadBalancers(false)
        .health("200ms")
        .topLevelYaml(
            "provider: benchmark\n"
                + "leaderElection:\n"
                + "  namespace: "
                + leaseNs
                + "\n"
                + "scaleOut:\n"
                + "  enabled: true\n"
                + "  shards: 4\n"
                + "  host: 127.0.0.1\n"
                + "  port: "
                + port
                + "\n"
                + "  members: [\"127.0.0.1:"
                + port
                + "\"]\n"
                + "  clusterName: fed-scale-"
                + ProcessHandle.current().pid()
                + "\n"
                + "  retryPeriod: 500ms\n"
                + "  renewDeadline: 2s\n"
                + "  leaseDuration: 3s\n"
                + "  eventBusPort: 0\n"
                + ScaleOutCredentials.shared().yaml("  "))
        .yaml();
  }

  /**
   * A change told to this replica as the host's owner for a key it does not run (here a cluster
   * whose member shard another replica holds) is dropped and counted: the receive path never sends
   * it on, so it cannot go round between the replicas, or back to this one, for ever.
   */
  @Test
  void aChangeToldForAKeyThisReplicaDoesNotRunIsDroppedNotSentOn(KubeApiServer host)
      throws Exception {
    try (KubeApiServer east = KubeApiServer.start()) {
      String leaseNs = host.createNamespace("fed-scale-told");
      String ghost =
          Stream.of("ghost-a", "ghost-b", "ghost-c", "ghost-d", "ghost-e")
              .filter(n -> new ShardMap(4).ofMember(n) != ShardMap.CLUSTER_WIDE)
              .findFirst()
              .orElseThrow();
      // Another replica holds the ghost member's shard.
      host.client()
          .leases()
          .inNamespace(leaseNs)
          .resource(
              new LeaseBuilder()
                  .withNewMetadata()
                  .withName("pier-shard-" + new ShardMap(4).ofMember(ghost))
                  .endMetadata()
                  .withNewSpec()
                  .withHolderIdentity("another-replica")
                  .withLeaseDurationSeconds(3600)
                  .withRenewTime(ZonedDateTime.now())
                  .endSpec()
                  .build())
          .create();
      try (InProcessPier pier =
          InProcessPier.startWithConfig(config(host, east, leaseNs), Map.of())) {
        Vertx vertx = pier.pier().vertx();
        AtomicInteger told = new AtomicInteger();
        vertx
            .eventBus()
            .addInboundInterceptor(
                c -> {
                  if (Addresses.FEDERATION_CHANGED.equals(c.message().address())) {
                    told.incrementAndGet();
                  }
                  c.next();
                });
        String key = ghost + "/default/web";
        // Once this replica holds the host's shard, it listens for changes: the request is
        // answered.
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(
                () -> {
                  try {
                    vertx
                        .eventBus()
                        .request(Addresses.FEDERATION_CHANGED, key)
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS);
                    return true;
                  } catch (ExecutionException e) {
                    return false;
                  }
                });
        int sent = told.get();
        await()
            .during(Duration.ofSeconds(5))
            .atMost(Duration.ofSeconds(8))
            .untilAsserted(
                () ->
                    assertThat(told.get()).as("deliveries of the one change told").isEqualTo(sent));
        Counter dropped =
            pier.pier().metrics().registry().find("pier.federation.changes.dropped").counter();
        assertThat(dropped).isNotNull();
        assertThat(dropped.count()).isGreaterThanOrEqualTo(1.0);
      }
    }
  }

  private static void crowd(KubeApiServer member, int n) throws Exception {
    String ns = member.createNamespace("crowd");
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(16);
    try {
      java.util.List<java.util.concurrent.Future<?>> all = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        String name = "svc-" + i;
        all.add(
            pool.submit(
                () ->
                    member
                        .client()
                        .services()
                        .inNamespace(ns)
                        .resource(
                            new io.fabric8.kubernetes.api.model.ServiceBuilder()
                                .withNewMetadata()
                                .withName(name)
                                .endMetadata()
                                .withNewSpec()
                                .withClusterIP("None")
                                .addNewPort()
                                .withPort(80)
                                .endPort()
                                .endSpec()
                                .build())
                        .create()));
      }
      for (java.util.concurrent.Future<?> f : all) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static boolean ready(InProcessPier pier, String cluster) {
    Gauge g =
        pier.pier().metrics().registry().find("pier.cluster.ready").tag("cluster", cluster).gauge();
    return g != null && g.value() == 1.0;
  }
}
