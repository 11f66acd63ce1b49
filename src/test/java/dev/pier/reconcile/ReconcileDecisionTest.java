package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ProviderException;
import dev.pier.cloud.VerifyResult;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult.Outcome;
import dev.pier.reconcile.ReconcileDecision.Action;
import dev.pier.reconcile.ReconcileDecision.Plan;
import dev.pier.reconcile.ReconcileDecision.StatusWrite;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReconcileDecisionTest {
  private static final ServiceFilter FILTER = new ServiceFilter(Set.of("pier.dev/lb"));
  private static final Set<WorkKind> FULL = Set.of(WorkKind.RECONCILE);
  private static final LbStatus A = new LbStatus(List.of(LbIngress.ip("10.0.0.1")));
  private static final LbStatus A_VIP =
      new LbStatus(List.of(new LbIngress("10.0.0.1", null, "VIP", List.of())));

  private static Service svc(String uid) {
    Service s = Services.loadBalancer("ns", "web", 80, 30080);
    s.getMetadata().setUid(uid);
    return s;
  }

  private static Service finalized(String uid) {
    Service s = svc(uid);
    s.getMetadata().setFinalizers(List.of(ServiceFilter.LB_CLEANUP_FINALIZER));
    return s;
  }

  private static Plan plan(Service cached, Service lastSeen, Set<WorkKind> kinds) {
    return ReconcileDecision.plan(FILTER, cached, lastSeen, kinds, true, true);
  }

  @Test
  void aGoneServiceIsForgottenOrDeletedFromItsLastState() {
    assertThat(plan(null, null, FULL).action()).isEqualTo(Action.FORGET);
    assertThat(plan(null, svc("u1"), FULL).action()).isEqualTo(Action.DELETE_LAST_SEEN);
  }

  @Test
  void cleanupWhenDeletedOrNoLongerWantedAndOnlyWithTheFinalizer() {
    Service deleting = finalized("u1");
    deleting.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    assertThat(plan(deleting, null, FULL).action()).isEqualTo(Action.CLEANUP);

    Service clusterIp = finalized("u1");
    clusterIp.getSpec().setType("ClusterIP");
    assertThat(plan(clusterIp, null, FULL).action()).isEqualTo(Action.CLEANUP);

    // Without the finalizer (stripped by hand), only if the provider reports a load balancer.
    Service plainClusterIp = svc("u1");
    plainClusterIp.getSpec().setType("ClusterIP");
    assertThat(plan(plainClusterIp, null, FULL).action()).isEqualTo(Action.CLEANUP_IF_PRESENT);
  }

  /**
   * Cleaned up already (Pier's finalizer gone) but held by another controller's finalizer: the
   * Service is being deleted, so it is never reconciled toward a load balancer (the finalizer
   * cannot be added back); one that exists goes.
   */
  @Test
  void aServiceBeingDeletedIsNeverEnsuredAgain() {
    Service held = svc("u1");
    held.getMetadata().setFinalizers(List.of("example.com/hold"));
    held.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    assertThat(plan(held, null, FULL).action()).isEqualTo(Action.CLEANUP_IF_PRESENT);
  }

  @Test
  void classesDecideWhoseServiceItIs() {
    Service owned = svc("u1");
    owned.getSpec().setLoadBalancerClass("pier.dev/lb");
    assertThat(plan(owned, null, FULL).action()).isEqualTo(Action.ENSURE);

    Service other = svc("u1");
    other.getSpec().setLoadBalancerClass("example.com/other");
    assertThat(plan(other, null, FULL).action()).isEqualTo(Action.NOT_WANTED);
  }

  @Test
  void theKindsOfWorkPickTheCheapestAction() {
    Service s = finalized("u1");
    assertThat(plan(s, null, Set.of(WorkKind.DNS)).action()).isEqualTo(Action.ALREADY_ENSURED);
    assertThat(plan(s, null, Set.of(WorkKind.UPDATE_HOSTS)).action())
        .isEqualTo(Action.UPDATE_HOSTS);
    assertThat(plan(s, null, Set.of(WorkKind.UPDATE_HOSTS, WorkKind.RECONCILE)).action())
        .isEqualTo(Action.ENSURE);
    // Nothing known of the key in this process: a full ensure.
    assertThat(
            ReconcileDecision.plan(FILTER, s, null, Set.of(WorkKind.UPDATE_HOSTS), false, false)
                .action())
        .isEqualTo(Action.ENSURE);
    assertThat(ReconcileDecision.plan(FILTER, s, null, Set.of(WorkKind.DNS), false, false).action())
        .isEqualTo(Action.ENSURE);
  }

  @Test
  void aRecreatedServiceDeletesItsPredecessorFirstAndTheSameOneDropsItsTombstone() {
    Plan recreated = plan(svc("u-new"), svc("u-old"), FULL);
    assertThat(recreated.deleteLastSeenFirst()).isTrue();
    assertThat(recreated.forgetLastSeen()).isFalse();

    Plan same = plan(svc("u1"), svc("u1"), FULL);
    assertThat(same.deleteLastSeenFirst()).isFalse();
    assertThat(same.forgetLastSeen()).isTrue();
  }

  @Test
  void statusIsWrittenOnlyWhenTheServiceDoesNotShowItAsStored() {
    assertThat(ReconcileDecision.statusWriteNeeded(A, A, null)).isFalse();
    assertThat(ReconcileDecision.statusWriteNeeded(LbStatus.EMPTY, A, null)).isTrue();
    // The server dropped ipMode: the Service shows A after A_VIP was written.
    StatusWrite last = new StatusWrite(A_VIP, A);
    assertThat(ReconcileDecision.statusWriteNeeded(A, A_VIP, last)).isFalse();
    // Someone changed the status since: write again.
    assertThat(ReconcileDecision.statusWriteNeeded(LbStatus.EMPTY, A_VIP, last)).isTrue();
  }

  @Test
  void aFieldTheServerDoesNotKeepIsNoDriftEvenWithoutMemoryOfTheWrite() {
    // The local provider and Hetzner with proxy protocol answer ipMode Proxy; 1.20 stores none.
    LbStatus proxy = new LbStatus(List.of(new LbIngress("10.0.0.1", null, "Proxy", List.of())));
    VerifyResult same = new VerifyResult(EnsureResult.of(proxy), List.of());
    assertThat(ReconcileDecision.shows(A, proxy, null)).isTrue();
    assertThat(ReconcileDecision.statusWriteNeeded(A, proxy, null)).isFalse();
    assertThat(ReconcileDecision.repairs(same, A, null)).isEmpty();
    assertThat(ReconcileDecision.repairs(same, A, new StatusWrite(proxy, A))).isEmpty();
  }

  /**
   * A current server (1.29+) stores ipMode VIP for an ip written without a mode (a webhook or
   * Hetzner load balancer without proxy protocol): after a restart, with no memory of the write,
   * that is neither a status to write again, nor drift, nor someone else's ingress.
   */
  @Test
  void anIpModeTheServerDefaultedIsNoDifference() {
    VerifyResult same = new VerifyResult(EnsureResult.of(A), List.of());
    assertThat(A_VIP.shows(A)).isTrue();
    assertThat(ReconcileDecision.statusWriteNeeded(A_VIP, A, null)).isFalse();
    assertThat(ReconcileDecision.repairs(same, A_VIP, null)).isEmpty();
    assertThat(ReconcileDecision.replacesForeignIngress(A_VIP, A, null)).isFalse();
    // A mode set on purpose still counts.
    LbStatus proxy = new LbStatus(List.of(new LbIngress("10.0.0.1", null, "Proxy", List.of())));
    assertThat(A_VIP.shows(proxy)).isFalse();
    assertThat(ReconcileDecision.statusWriteNeeded(A_VIP, proxy, null)).isTrue();
    // A hostname gets no default.
    LbStatus host = new LbStatus(List.of(LbIngress.hostname("lb.example.com")));
    LbStatus hostStored =
        new LbStatus(
            List.of(
                new LbIngress(null, "lb.example.com", null, List.of()),
                new LbIngress("10.0.0.1", null, "VIP", List.of())));
    assertThat(host.keptAs(hostStored)).isEqualTo(host);
  }

  @Test
  void aRepairIsARealDifferenceNamingTheFieldAndBothValues() {
    LbStatus proxy = new LbStatus(List.of(new LbIngress("10.0.0.7", null, "Proxy", List.of())));
    VerifyResult moved = new VerifyResult(EnsureResult.of(proxy), List.of());
    assertThat(ReconcileDecision.repairs(moved, A, null))
        .containsExactly("status.loadBalancer.ingress[0].ip: expected 10.0.0.7, found 10.0.0.1");
    assertThat(ReconcileDecision.repairs(moved, LbStatus.EMPTY, null))
        .containsExactly("status.loadBalancer.ingress: expected [10.0.0.7], found []");
    // A server that keeps ipMode: a changed mode is drift.
    LbStatus vip = new LbStatus(List.of(new LbIngress("10.0.0.7", null, "VIP", List.of())));
    assertThat(ReconcileDecision.repairs(moved, vip, null))
        .containsExactly("status.loadBalancer.ingress[0].ipMode: expected Proxy, found VIP");
    // What the provider says it fixed comes first, as it said it.
    VerifyResult fixed = new VerifyResult(EnsureResult.of(A), List.of("listener 80 was gone"));
    assertThat(ReconcileDecision.repairs(fixed, A, null)).containsExactly("listener 80 was gone");
  }

  @Test
  void providerAnswersAndFailures() {
    assertThat(ReconcileDecision.unusable(EnsureResult.of(A))).isNull();
    assertThat(ReconcileDecision.unusable(new EnsureResult(null, List.of())))
        .isInstanceOf(ProviderException.Retry.class);
    assertThat(
            ReconcileDecision.afterFailure(
                    new ProviderException.ImplementedElsewhere("other"), FULL)
                .outcome())
        .isEqualTo(Outcome.SUCCESS);
    assertThat(
            ReconcileDecision.afterFailure(
                    new ProviderException.InvalidInput("spec.ports", "x", "bad"), FULL)
                .outcome())
        .isEqualTo(Outcome.PERMANENT);
    assertThat(ReconcileDecision.afterFailure(new RuntimeException("x"), FULL).outcome())
        .isEqualTo(Outcome.RETRY);
  }

  @Test
  void cleanupClearsTheStatusOnlyOfAServiceThatLivesOn() {
    Service live = finalized("u1");
    assertThat(ReconcileDecision.clearStatusOnCleanup(live, A)).isTrue();
    assertThat(ReconcileDecision.clearStatusOnCleanup(live, LbStatus.EMPTY)).isFalse();
    live.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    assertThat(ReconcileDecision.clearStatusOnCleanup(live, A)).isFalse();
  }

  @Test
  void aProviderNamesTheReasonOfItsRefusal() {
    assertThat(
            ReconcileDecision.failureReason(
                new ProviderException.InvalidInput("f", "v", "taken", "LoadBalancerNameTaken")))
        .isEqualTo("LoadBalancerNameTaken");
    assertThat(ReconcileDecision.failureReason(new ProviderException.InvalidInput("f", "v", "bad")))
        .isEqualTo("SyncLoadBalancerFailed");
    assertThat(ReconcileDecision.failureReason(new RuntimeException("x")))
        .isEqualTo("SyncLoadBalancerFailed");
  }

  @Test
  void aServiceOfAClassPierDoesNotOwnIsNeverCleanedUpEvenWithTheFinalizer() {
    Service foreign = finalized("u1");
    foreign.getSpec().setLoadBalancerClass("example.com/other");
    assertThat(plan(foreign, null, FULL).action()).isEqualTo(Action.CLASS_NOT_OWNED);

    foreign.getMetadata().setDeletionTimestamp("2026-12-03T12:00:00Z");
    assertThat(plan(foreign, null, FULL).action()).isEqualTo(Action.CLASS_NOT_OWNED);

    // Without Pier's finalizer and status it is simply another controller's Service.
    Service other = svc("u2");
    other.getSpec().setLoadBalancerClass("example.com/other");
    assertThat(plan(other, null, FULL).action()).isEqualTo(Action.NOT_WANTED);
  }

  @Test
  void withoutClasslessServicesAClasslessServiceIsAnotherControllersAndNeverCleanedUp() {
    ServiceFilter notDefault = new ServiceFilter(Set.of("pier.dev/lb"), false);
    assertThat(ReconcileDecision.plan(notDefault, svc("u1"), null, FULL, false, false).action())
        .isEqualTo(Action.NOT_WANTED);
    assertThat(
            ReconcileDecision.plan(notDefault, finalized("u1"), null, FULL, false, false).action())
        .isEqualTo(Action.CLASS_NOT_OWNED);
    Service owned = svc("u1");
    owned.getSpec().setLoadBalancerClass("pier.dev/lb");
    assertThat(ReconcileDecision.plan(notDefault, owned, null, FULL, false, false).action())
        .isEqualTo(Action.ENSURE);
  }

  @Test
  void aTypeChangeOfAServicePierServedIsStillCleanedUp() {
    Service clusterIp = finalized("u1");
    clusterIp.getSpec().setType("ClusterIP");
    ServiceFilter notDefault = new ServiceFilter(Set.of(), false);
    // The API server clears spec.loadBalancerClass with the type; the finalizer says Pier served
    // it.
    assertThat(ReconcileDecision.plan(notDefault, clusterIp, null, FULL, true, true).action())
        .isEqualTo(Action.CLEANUP);
  }

  @Test
  void aCacheOlderThanTheLastStatusWriteIsBehindAndVersionsPierCannotReadAreNot() {
    StatusWrite last = new StatusWrite(A, A, "1001");
    assertThat(ReconcileDecision.cacheBehind("41", last)).isTrue();
    assertThat(ReconcileDecision.cacheBehind("1001", last)).isFalse();
    assertThat(ReconcileDecision.cacheBehind("2000", last)).isFalse();
    assertThat(ReconcileDecision.cacheBehind("opaque", last)).isFalse();
    assertThat(ReconcileDecision.cacheBehind("41", new StatusWrite(A, A))).isFalse();
    assertThat(ReconcileDecision.cacheBehind("41", null)).isFalse();
  }
}
