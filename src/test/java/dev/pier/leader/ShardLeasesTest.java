package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.kube.AsyncKubeApi;
import dev.pier.shards.ShardMap;
import dev.pier.testkit.Edits;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The shard Leases on a real API server: taken, renewed, released, taken over, lost. */
@RealKubeApiServer
class ShardLeasesTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private final Vertx vertx = Vertx.vertx();
  private final List<String> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private ShardLeases leases(KubeApiServer kube, String ns, String identity, ShardGates gates) {
    Context context = vertx.getOrCreateContext();
    return new ShardLeases(
        vertx,
        context,
        new AsyncKubeApi(kube.client()),
        gates,
        identity,
        new ShardLeases.Options(
            ns, "pier", Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(300)),
        new ShardLeases.Listener() {
          @Override
          public void onGained(int shard) {
            events.add(identity + "+" + shard);
          }

          @Override
          public void onLost(int shard) {
            events.add(identity + "-" + shard);
          }
        });
  }

  private static String holder(KubernetesClient client, String ns, int shard) {
    Lease lease = client.leases().inNamespace(ns).withName("pier-shard-" + shard).get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  @Test
  void wantedShardsAreTakenRenewedAndGivenBackFreeWhenNoLongerWanted(KubeApiServer kube) {
    String ns = kube.createNamespace("shard-leases");
    ShardGates gates = new ShardGates(new ShardMap(4), Duration.ofSeconds(2));
    ShardLeases leases = leases(kube, ns, "one", gates);
    leases.start();
    leases.want(Set.of(1, 3));
    await().atMost(WAIT).until(() -> gates.isOpen(1) && gates.isOpen(3));
    assertThat(holder(kube.client(), ns, 1)).isEqualTo("one");
    assertThat(gates.isOpen(0)).isFalse();
    assertThat(holder(kube.client(), ns, 0)).as("an unwanted shard's Lease").isNull();
    String renewed =
        kube.client()
            .leases()
            .inNamespace(ns)
            .withName("pier-shard-1")
            .get()
            .getMetadata()
            .getResourceVersion();
    await()
        .atMost(WAIT)
        .until(
            () ->
                !renewed.equals(
                    kube.client()
                        .leases()
                        .inNamespace(ns)
                        .withName("pier-shard-1")
                        .get()
                        .getMetadata()
                        .getResourceVersion()));
    leases.want(Set.of(3));
    await().atMost(WAIT).until(() -> "".equals(holder(kube.client(), ns, 1)));
    assertThat(gates.holds(1)).isFalse();
    assertThat(events).containsSubsequence("one+1", "one-1");
    assertThat(gates.isOpen(3)).isTrue();
  }

  @Test
  void aShardHeldByAnotherIsTakenOnlyAfterItsLeaseWentUnrenewedForALeaseDuration(
      KubeApiServer kube) {
    String ns = kube.createNamespace("shard-takeover");
    ZonedDateTime now = ZonedDateTime.now();
    kube.client()
        .leases()
        .inNamespace(ns)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("pier-shard-2")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("gone")
                .withLeaseDurationSeconds(3)
                .withAcquireTime(now)
                .withRenewTime(now)
                .endSpec()
                .build())
        .create();
    ShardGates gates = new ShardGates(new ShardMap(4), Duration.ofSeconds(2));
    ShardLeases leases = leases(kube, ns, "two", gates);
    long start = System.nanoTime();
    leases.start();
    leases.want(Set.of(2));
    await().atMost(WAIT).until(() -> gates.isOpen(2));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("waited a lease duration from its first read")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    Lease lease = kube.client().leases().inNamespace(ns).withName("pier-shard-2").get();
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("two");
    assertThat(lease.getSpec().getLeaseTransitions()).isEqualTo(1);
  }

  @Test
  void aLeaseTakenByAnotherClosesTheShardAndTellsOfTheLoss(KubeApiServer kube) {
    String ns = kube.createNamespace("shard-stolen");
    ShardGates gates = new ShardGates(new ShardMap(4), Duration.ofSeconds(2));
    ShardLeases leases = leases(kube, ns, "three", gates);
    leases.start();
    leases.want(Set.of(0));
    await().atMost(WAIT).until(() -> gates.isOpen(0));
    Edits.retrying(
        kube.client().leases().inNamespace(ns).withName("pier-shard-0"),
        l -> {
          l.getSpec().setHolderIdentity("usurper");
          return l;
        });
    await().atMost(WAIT).until(() -> events.contains("three-0"));
    assertThat(gates.isOpen(0)).isFalse();
    assertThat(holder(kube.client(), ns, 0)).isEqualTo("usurper");
  }

  @Test
  void noShardIsTakenWhileASingleLeaderMayStillRun(KubeApiServer kube) throws Exception {
    String ns = kube.createNamespace("shard-rollout");
    ZonedDateTime now = ZonedDateTime.now();
    kube.client()
        .leases()
        .inNamespace(ns)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("pier")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("old-leader")
                .withLeaseDurationSeconds(3)
                .withAcquireTime(now)
                .withRenewTime(now)
                .endSpec()
                .build())
        .create();
    ShardGates gates = new ShardGates(new ShardMap(4), Duration.ofSeconds(2));
    ShardLeases leases = leases(kube, ns, "five", gates);
    leases.start();
    leases.want(Set.of(0, 1));
    // The old leader renews for 4 s, longer than its lease duration: nothing is taken meanwhile.
    for (int i = 0; i < 8; i++) {
      Thread.sleep(500);
      Edits.retrying(
          kube.client().leases().inNamespace(ns).withName("pier"),
          l -> {
            l.getSpec().setRenewTime(ZonedDateTime.now());
            return l;
          });
      assertThat(leases.held()).as("shards held while the single leader renews").isEmpty();
    }
    assertThat(holder(kube.client(), ns, 0)).isNull();
    // It stops (releases its Lease): the shards are taken at once.
    Edits.retrying(
        kube.client().leases().inNamespace(ns).withName("pier"),
        l -> {
          l.getSpec().setHolderIdentity("");
          return l;
        });
    await().atMost(WAIT).until(() -> leases.held().size() == 2);
  }

  @Test
  void stopReleasesEveryShardHeld(KubeApiServer kube) throws Exception {
    String ns = kube.createNamespace("shard-stop");
    ShardGates gates = new ShardGates(new ShardMap(4), Duration.ofSeconds(2));
    ShardLeases leases = leases(kube, ns, "four", gates);
    leases.start();
    leases.want(Set.of(0, 1, 2, 3));
    await().atMost(WAIT).until(() -> leases.held().size() == 4);
    leases.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    for (int shard = 0; shard < 4; shard++) {
      assertThat(holder(kube.client(), ns, shard)).as("shard %d", shard).isEmpty();
      assertThat(gates.isOpen(shard)).isFalse();
    }
  }
}
