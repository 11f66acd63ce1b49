package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ProviderException;
import dev.pier.kube.KubeApiException;
import dev.pier.leader.LeaderGate;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.policy.NodeEligibility;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import dev.pier.queue.WorkResult.Outcome;
import dev.pier.reconcile.ReconcileFakes.FakeCluster;
import dev.pier.reconcile.ReconcileFakes.FakeProvider;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reconcile's steps against in-memory fakes of the cache, the writes, the Event sink and the
 * provider: every future completes at once, so each case runs in milliseconds. The same paths run
 * against a real kube-apiserver in {@code LoadBalancerLifecycleTest}.
 */
class ServiceReconcilerTest {
  private static final ServiceKey KEY = new ServiceKey("c1", "ns", "web");

  private FakeCluster cluster;
  private FakeProvider provider;
  private PushedNodeSets pushed;
  private DeletedServices deleted;
  private ServiceReconciler reconciler;
  private LeaderGate gate;

  @BeforeEach
  void setUp() {
    gate = LeaderGate.forLease(Duration.ofHours(1));
    gate.renewed(System.nanoTime());
    gate.lead();
    cluster = new FakeCluster();
    cluster.nodes.add(ReconcileFakes.node("n1", "192.0.2.1"));
    provider = new FakeProvider();
    pushed = new PushedNodeSets();
    deleted = new DeletedServices();
    reconciler =
        new ServiceReconciler(
            null,
            name -> name.equals("c1") ? cluster : null,
            provider,
            new ServiceFilter(Set.of()),
            NodeEligibility.STABLE,
            pushed,
            deleted,
            null,
            gate);
  }

  private static Service service(String uid) {
    Service s = Services.loadBalancer("ns", "web", 80, 30080);
    s.getMetadata().setUid(uid);
    return s;
  }

  private static Service withFinalizer(Service s) {
    return new ServiceBuilder(s)
        .editMetadata()
        .addToFinalizers(ServiceFilter.LB_CLEANUP_FINALIZER)
        .endMetadata()
        .build();
  }

  private static Service withIngress(Service s, String ip) {
    return new ServiceBuilder(s)
        .withNewStatus()
        .withNewLoadBalancer()
        .withIngress(new LoadBalancerIngressBuilder().withIp(ip).build())
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  private WorkResult run(WorkKind... kinds) {
    Future<WorkResult> f = reconciler.reconcile(new WorkItem<>(KEY, Set.of(kinds), 0));
    assertThat(f.isComplete()).as("the fakes answer at once").isTrue();
    return f.result();
  }

  @Test
  void aNewServiceGetsTheFinalizerBeforeItsLoadBalancerThenItsStatus() {
    cluster.put(service("u1"));

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(cluster.writes.calls).containsExactly("addFinalizer ns/web", "patchStatus ns/web");
    assertThat(provider.calls).containsExactly("ensure ns/web");
    assertThat(provider.lastNodes).extracting(n -> n.name()).containsExactly("n1");
    assertThat(cluster.events.recorded)
        .containsExactly("Normal EnsuringLoadBalancer", "Normal EnsuredLoadBalancer");
    assertThat(pushed.get(KEY)).isNotNull();
  }

  @Test
  void aStatusTheServiceShowsAlreadyIsNotWritten() {
    cluster.put(withIngress(withFinalizer(service("u1")), "10.0.0.1"));

    run(WorkKind.RECONCILE);

    assertThat(cluster.writes.calls).isEmpty();
    assertThat(provider.calls).containsExactly("ensure ns/web");
  }

  @Test
  void aStatusTheServerStoredDifferentlyIsNotWrittenAgain() {
    LbStatus withIpMode = new LbStatus(List.of(new LbIngress("10.0.0.1", null, "VIP", List.of())));
    provider.ensureAnswer = Future.succeededFuture(EnsureResult.of(withIpMode));
    // An older server drops ipMode: it stores and shows the plain address.
    cluster.writes.stored = s -> new LbStatus(List.of(LbIngress.ip("10.0.0.1")));
    cluster.put(withFinalizer(service("u1")));
    run(WorkKind.RECONCILE);
    cluster.put(withIngress(withFinalizer(service("u1")), "10.0.0.1"));

    run(WorkKind.RECONCILE);

    assertThat(cluster.writes.calls).containsExactly("patchStatus ns/web");
  }

  @Test
  void aProviderAnswerWithoutStatusIsRetriedAndWritesNoStatus() {
    provider.ensureAnswer = Future.succeededFuture(new EnsureResult(null, List.of()));
    cluster.put(withFinalizer(service("u1")));

    WorkResult r = run(WorkKind.RECONCILE);

    assertThat(r.outcome()).isEqualTo(Outcome.RETRY);
    assertThat(cluster.writes.calls).isEmpty();
    assertThat(cluster.events.recorded).contains("Warning SyncLoadBalancerFailed");
  }

  @Test
  void providerWarningsBecomeWarningEvents() {
    provider.ensureAnswer =
        Future.succeededFuture(
            new EnsureResult(
                new LbStatus(List.of(LbIngress.ip("10.0.0.1"))),
                List.of(new EnsureResult.Warning("PortBindFailed", "port 80: in use"))));
    cluster.put(withFinalizer(service("u1")));

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(cluster.events.recorded).contains("Warning PortBindFailed");
  }

  @Test
  void invalidInputWaitsForAChangeAndImplementedElsewhereIsDone() {
    cluster.put(withFinalizer(service("u1")));
    provider.ensureAnswer =
        Future.failedFuture(
            new ProviderException.InvalidInput("metadata.annotations", "x", "bad annotation"));
    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.PERMANENT);

    provider.ensureAnswer =
        Future.failedFuture(new ProviderException.ImplementedElsewhere("another controller"));
    cluster.events.recorded.clear();
    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(cluster.events.recorded).doesNotContain("Warning SyncLoadBalancerFailed");
  }

  @Test
  void aServiceThatStopsBeingTypeLoadBalancerLosesItsLoadBalancerStatusAndFinalizer() {
    Service svc = withIngress(withFinalizer(service("u1")), "10.0.0.1");
    svc.getSpec().setType("ClusterIP");
    cluster.put(svc);

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(provider.calls).containsExactly("delete ns/web u1");
    assertThat(cluster.writes.calls)
        .containsExactly("clearStatus ns/web", "removeFinalizer ns/web");
    assertThat(cluster.events.recorded)
        .containsExactly("Normal DeletingLoadBalancer", "Normal DeletedLoadBalancer");
  }

  @Test
  void aServiceBeingDeletedKeepsItsStatusUntilItIsGone() {
    Service svc = withIngress(withFinalizer(service("u1")), "10.0.0.1");
    svc.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    cluster.put(svc);

    run(WorkKind.RECONCILE);

    assertThat(cluster.writes.calls).containsExactly("removeFinalizer ns/web");
  }

  @Test
  void aFailedDeletionKeepsTheFinalizer() {
    Service svc = withFinalizer(service("u1"));
    svc.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    cluster.put(svc);
    provider.deleteAnswer = Future.failedFuture(new ProviderException.Retry("cloud down"));

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.RETRY);
    assertThat(cluster.writes.calls).isEmpty();
  }

  @Test
  void aServiceDeletedWithoutTheFinalizerLosesItsLoadBalancerFromItsLastState() {
    Service last = service("u-old");
    deleted.record(KEY, last);
    provider.deleteAnswer = Future.failedFuture(new ProviderException.Retry("cloud down"));

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.RETRY);
    assertThat(deleted.get(KEY)).as("kept for the retry").isSameAs(last);

    provider.deleteAnswer = Future.succeededFuture();
    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(provider.calls).containsExactly("delete ns/web u-old", "delete ns/web u-old");
    assertThat(deleted.get(KEY)).isNull();
  }

  @Test
  void aServiceRecreatedUnderTheSameNameFirstLosesThePredecessorsLoadBalancer() {
    deleted.record(KEY, service("u-old"));
    cluster.put(service("u-new"));

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(provider.calls).containsExactly("delete ns/web u-old", "ensure ns/web");
    assertThat(deleted.get(KEY)).isNull();
  }

  @Test
  void nodeSyncUpdatesOnlyTheHostsAndOnlyWhenTheSetChanged() {
    cluster.put(withFinalizer(service("u1")));
    run(WorkKind.RECONCILE);
    provider.calls.clear();

    run(WorkKind.UPDATE_HOSTS);
    assertThat(provider.calls).as("same node set").isEmpty();

    cluster.nodes.add(ReconcileFakes.node("n2", "192.0.2.2"));
    assertThat(run(WorkKind.UPDATE_HOSTS).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(provider.calls).containsExactly("updateHosts ns/web");
    assertThat(provider.lastNodes).extracting(n -> n.name()).containsExactly("n1", "n2");
  }

  @Test
  void aFailedHostUpdateOfAnExistingLoadBalancerFallsBackToAFullEnsure() {
    cluster.put(withFinalizer(service("u1")));
    run(WorkKind.RECONCILE);
    cluster.nodes.add(ReconcileFakes.node("n2", "192.0.2.2"));
    provider.updateAnswer = Future.failedFuture(new ProviderException.Retry("cloud down"));
    provider.existing = java.util.Optional.of(new LbStatus(List.of(LbIngress.ip("10.0.0.1"))));

    WorkResult r = run(WorkKind.UPDATE_HOSTS);

    assertThat(r.outcome()).isEqualTo(Outcome.RETRY);
    assertThat(r.retryKinds()).containsExactly(WorkKind.RECONCILE);
    assertThat(pushed.get(KEY)).isNull();
    assertThat(cluster.events.recorded).contains("Warning UpdateLoadBalancerFailed");
  }

  @Test
  void aServiceOfAnotherClassWithoutTheFinalizerIsLeftAlone() {
    Service svc = service("u1");
    svc.getSpec().setLoadBalancerClass("example.com/other");
    cluster.put(svc);

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(provider.calls).isEmpty();
    assertThat(cluster.writes.calls).isEmpty();
  }

  @Test
  void aKeyOfAnUnknownClusterIsDropped() {
    Future<WorkResult> f =
        reconciler.reconcile(
            new WorkItem<>(new ServiceKey("nowhere", "ns", "web"), Set.of(WorkKind.RECONCILE), 0));
    assertThat(f.result().outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(provider.calls).isEmpty();
  }

  @Test
  void aServiceOfAClassPierDoesNotOwnKeepsItsLoadBalancerStatusAndFinalizerAndIsReportedOnce() {
    Service svc = withIngress(withFinalizer(service("u1")), "10.0.0.1");
    svc.getSpec().setLoadBalancerClass("example.com/other");
    cluster.put(svc);

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(provider.calls).isEmpty();
    assertThat(cluster.writes.calls).isEmpty();
    assertThat(cluster.events.recorded).containsExactly("Warning LoadBalancerClassNotOwned");
  }

  @Test
  void replacingAnIngressPierDidNotWriteIsAWarning() {
    cluster.put(withIngress(withFinalizer(service("u1")), "192.0.2.99"));

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(cluster.writes.calls).containsExactly("patchStatus ns/web");
    assertThat(cluster.events.recorded).contains("Warning LoadBalancerIngressReplaced");
  }

  @Test
  void replacingAnIngressPierWroteItselfIsNoWarning() {
    cluster.put(withFinalizer(service("u1")));
    run(WorkKind.RECONCILE);
    cluster.put(withIngress(withFinalizer(service("u1")), "10.0.0.1"));
    provider.ensureAnswer =
        Future.succeededFuture(EnsureResult.of(new LbStatus(List.of(LbIngress.ip("10.0.0.2")))));

    run(WorkKind.RECONCILE);

    assertThat(cluster.writes.calls).containsExactly("patchStatus ns/web", "patchStatus ns/web");
    assertThat(cluster.events.recorded).doesNotContain("Warning LoadBalancerIngressReplaced");
  }

  @Test
  void aPermanentErrorOnDeleteIsRetriedNeverTakenAsDeleted() {
    Service svc = withFinalizer(service("u1"));
    svc.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    cluster.put(svc);
    provider.deleteAnswer =
        Future.failedFuture(new ProviderException.InvalidInput("pool", "x", "webhook said 422"));

    WorkResult r = run(WorkKind.RECONCILE);

    assertThat(r.outcome()).isEqualTo(Outcome.RETRY);
    assertThat(cluster.writes.calls).isEmpty();
    assertThat(cluster.events.recorded).contains("Warning DeleteLoadBalancerFailed");
  }

  @Test
  void anOperatorAbandonsALoadBalancerOnlyDuringCleanup() {
    Service svc = withFinalizer(service("u1"));
    svc.getMetadata()
        .setAnnotations(java.util.Map.of(ReconcileDecision.ABANDON_ANNOTATION, "true"));
    cluster.put(svc);
    run(WorkKind.RECONCILE);
    assertThat(provider.calls).as("honoured only during cleanup").containsExactly("ensure ns/web");

    svc.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    provider.deleteAnswer =
        Future.failedFuture(new ProviderException.InvalidInput("pool", "x", "webhook said 422"));
    cluster.events.recorded.clear();

    // Only once a deletion failed: the annotation is for a load balancer the provider refuses.
    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.RETRY);
    assertThat(provider.calls).containsExactly("ensure ns/web", "delete ns/web u1");
    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(provider.calls).containsExactly("ensure ns/web", "delete ns/web u1");
    assertThat(cluster.writes.calls).endsWith("removeFinalizer ns/web");
    assertThat(cluster.events.recorded).contains("Warning LoadBalancerAbandoned");
  }

  @Test
  void theAbandonAnnotationNeverKeepsALoadBalancerTheProviderWouldDelete() {
    Service svc = withFinalizer(service("u1"));
    svc.getMetadata()
        .setAnnotations(java.util.Map.of(ReconcileDecision.ABANDON_ANNOTATION, "true"));
    svc.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    cluster.put(svc);

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(provider.calls).containsExactly("delete ns/web u1");
    assertThat(cluster.events.recorded).doesNotContain("Warning LoadBalancerAbandoned");
  }

  @Test
  void aServiceWhoseFinalizerWasStrippedStillLosesItsLoadBalancerWhenItStopsBeingOne() {
    Service svc = withIngress(service("u1"), "10.0.0.1");
    svc.getSpec().setType("ClusterIP");
    cluster.put(svc);
    provider.existing = java.util.Optional.of(new LbStatus(List.of(LbIngress.ip("10.0.0.1"))));

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(provider.calls).containsExactly("get ns/web", "delete ns/web u1");
    assertThat(cluster.writes.calls).containsExactly("clearStatus ns/web");
    assertThat(cluster.events.recorded)
        .containsExactly("Normal DeletingLoadBalancer", "Normal DeletedLoadBalancer");
  }

  @Test
  void withoutALoadBalancerOfItsOwnSuchAServiceCostsOneLookUp() {
    Service svc = service("u1");
    svc.getSpec().setType("ClusterIP");
    cluster.put(svc);

    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(provider.calls).containsExactly("get ns/web");
    assertThat(cluster.writes.calls).isEmpty();
    assertThat(cluster.events.recorded).isEmpty();
  }

  @Test
  void verificationRepairsAStatusThatDriftedWithAWarning() {
    cluster.put(withFinalizer(service("u1")));
    run(WorkKind.RECONCILE);
    cluster.put(withIngress(withFinalizer(service("u1")), "10.0.0.1"));
    cluster.events.recorded.clear();
    cluster.writes.calls.clear();
    provider.calls.clear();

    assertThat(run(WorkKind.VERIFY).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(provider.calls).containsExactly("verify ns/web");
    assertThat(cluster.writes.calls).isEmpty();
    assertThat(cluster.events.recorded).isEmpty();

    // Recreated out of band with another address.
    provider.ensureAnswer =
        Future.succeededFuture(EnsureResult.of(new LbStatus(List.of(LbIngress.ip("10.0.0.7")))));
    assertThat(run(WorkKind.VERIFY).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(cluster.writes.calls).containsExactly("patchStatus ns/web");
    assertThat(cluster.events.recorded).containsExactly("Warning RepairedLoadBalancer");
  }

  @Test
  void verificationWaitsForTheCacheToShowPiersOwnStatusWrite() {
    Service svc = withFinalizer(service("u1"));
    svc.getMetadata().setResourceVersion("41");
    cluster.put(svc);
    run(WorkKind.RECONCILE);
    assertThat(cluster.writes.calls).containsExactly("patchStatus ns/web");
    cluster.events.recorded.clear();
    cluster.writes.calls.clear();
    provider.calls.clear();

    // The cache still holds version 41, from before the status write: not drift.
    assertThat(run(WorkKind.VERIFY).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(cluster.events.recorded).isEmpty();
    assertThat(cluster.writes.calls).isEmpty();
    assertThat(provider.calls).isEmpty();

    // Once it shows the write, verification runs as usual.
    Service caughtUp = withIngress(withFinalizer(service("u1")), "10.0.0.1");
    caughtUp.getMetadata().setResourceVersion("2000");
    cluster.put(caughtUp);
    assertThat(run(WorkKind.VERIFY).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(provider.calls).containsExactly("verify ns/web");
    assertThat(cluster.events.recorded).isEmpty();
  }

  @Test
  void verificationReportsWhatTheProviderRepaired() {
    cluster.put(withIngress(withFinalizer(service("u1")), "10.0.0.1"));
    run(WorkKind.RECONCILE);
    cluster.events.recorded.clear();
    provider.repairs = List.of("listener on port 80 was gone");

    run(WorkKind.VERIFY);

    assertThat(cluster.events.recorded).containsExactly("Warning RepairedLoadBalancer");
  }

  @Test
  void eachWriteIsBasedOnTheVersionReadOrOnTheRunsPreviousWrite() {
    Service svc = service("u1");
    svc.getMetadata().setResourceVersion("41");
    cluster.put(svc);

    run(WorkKind.RECONCILE);

    // The finalizer on the version read; the status on the version the finalizer write answered.
    assertThat(cluster.writes.preconditions).containsExactly("addFinalizer 41", "patchStatus 1001");
  }

  @Test
  void aConflictIsReconciledAgainWithoutAnErrorEvent() {
    cluster.put(withFinalizer(service("u1")));
    cluster.writes.failures.put(
        "patchStatus", new KubeApiException(409, "PATCH ...: 409 the object has been modified"));

    WorkResult r = run(WorkKind.RECONCILE);

    assertThat(r.outcome()).isEqualTo(Outcome.RETRY);
    assertThat(cluster.events.recorded).containsExactly("Normal EnsuringLoadBalancer");
  }

  @Test
  void aRunWithoutLeadershipMakesNoCallAndKeepsTheKey() {
    cluster.put(service("u1"));
    gate.close();

    WorkResult r = run(WorkKind.RECONCILE);

    assertThat(r.outcome()).isEqualTo(Outcome.FENCED);
    assertThat(r.retryKinds()).containsExactly(WorkKind.RECONCILE);
    assertThat(provider.calls).isEmpty();
    assertThat(cluster.writes.calls).isEmpty();
    assertThat(cluster.events.recorded).isEmpty();
  }

  @Test
  void aRunWhoseLeadershipEndsWhileTheProviderWorksWritesNothingAfter() {
    cluster.put(service("u1"));
    Promise<EnsureResult> ensuring = Promise.promise();
    provider.ensureAnswer = ensuring.future();

    Future<WorkResult> f = reconciler.reconcile(new WorkItem<>(KEY, Set.of(WorkKind.RECONCILE), 0));
    assertThat(provider.calls).containsExactly("ensure ns/web");
    assertThat(f.isComplete()).as("blocked in ensure").isFalse();
    gate.close();
    ensuring.complete(EnsureResult.of(new LbStatus(List.of(LbIngress.ip("10.0.0.1")))));

    assertThat(f.result().outcome()).isEqualTo(Outcome.FENCED);
    assertThat(provider.calls).containsExactly("ensure ns/web");
    assertThat(cluster.writes.calls).containsExactly("addFinalizer ns/web");
    assertThat(cluster.events.recorded)
        .containsExactly("Normal EnsuringLoadBalancer")
        .doesNotContain("Warning SyncLoadBalancerFailed");

    // Leading again, the key's next run ensures and writes the status.
    gate.renewed(System.nanoTime());
    gate.lead();
    provider.ensureAnswer =
        Future.succeededFuture(EnsureResult.of(new LbStatus(List.of(LbIngress.ip("10.0.0.1")))));
    assertThat(run(WorkKind.RECONCILE).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(cluster.writes.calls).endsWith("patchStatus ns/web");
  }

  @Test
  void aDeletionWhoseLeadershipEndsKeepsTheFinalizerWithoutAnErrorEvent() {
    Service svc = withFinalizer(service("u1"));
    svc.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    cluster.put(svc);
    Promise<Void> deleting = Promise.promise();
    provider.deleteAnswer = deleting.future();

    Future<WorkResult> f = reconciler.reconcile(new WorkItem<>(KEY, Set.of(WorkKind.RECONCILE), 0));
    gate.close();
    deleting.complete();

    assertThat(f.result().outcome()).isEqualTo(Outcome.FENCED);
    assertThat(cluster.writes.calls).isEmpty();
    assertThat(cluster.events.recorded).containsExactly("Normal DeletingLoadBalancer");
  }
}
