package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.kube.Clusters;
import dev.pier.leader.LeaderGate;
import dev.pier.model.Addresses;
import dev.pier.model.ServiceKey;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.policy.NodeEligibility;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.Deferral;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkQueue;
import dev.pier.queue.WorkResult;
import dev.pier.reconcile.ReconcileFakes.FakeProvider;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reconcile verticle starts no run while this process does not lead (the window between the
 * gate closing and the loss being handled): keys wait, nothing counts as a run or as throttled, and
 * they run once the gate opens again.
 */
class ReconcileVerticleLeadershipTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void noRunStartsWhileTheGateIsClosedAndKeysRunOnceItOpens() throws Exception {
    LeaderGate gate = LeaderGate.forLease(Duration.ofHours(1));
    gate.renewed(System.nanoTime());
    List<String> done = new CopyOnWriteArrayList<>();
    List<String> deferred = new CopyOnWriteArrayList<>();
    ReconcileVerticle verticle =
        new ReconcileVerticle(
            new Clusters(List.of()),
            new FakeProvider(),
            new ReconcileOptions(),
            new ServiceFilter(java.util.Set.of()),
            NodeEligibility.STABLE,
            new PushedNodeSets(),
            new DeletedServices(),
            new WorkQueue.Listener<>() {
              @Override
              public void onDone(WorkItem<ServiceKey> item, WorkResult result, long nanos) {
                done.add(item.key() + " " + result.outcome());
              }

              @Override
              public void onDeferred(ServiceKey key, Deferral deferral) {
                deferred.add(key + " " + deferral.reason());
              }
            },
            null,
            gate);
    vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
    gate.lead();
    vertx.eventBus().request(Addresses.RECONCILE_CONTROL, "start").await(10, TimeUnit.SECONDS);
    // Lost, but the loss is not handled yet: the queue still runs.
    gate.close();

    vertx.eventBus().send(Addresses.RECONCILE, "c1/ns/web");
    Thread.sleep(1500);

    assertThat(done).as("runs started without leadership").isEmpty();
    assertThat(deferred).as("reported as throttled").isEmpty();

    gate.renewed(System.nanoTime());
    gate.lead();
    await().atMost(Duration.ofSeconds(10)).until(() -> !done.isEmpty());
    assertThat(done).containsExactly(new ServiceKey("c1", "ns", "web") + " SUCCESS");
  }
}
