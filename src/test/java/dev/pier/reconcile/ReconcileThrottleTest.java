package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.ServiceKey;
import dev.pier.queue.Deferral;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.retry.TokenBucket;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which runs wait, and how long: the rate limit's rules on a hand-driven clock. */
class ReconcileThrottleTest {
  private static final Duration INTERVAL = Duration.ofSeconds(30);
  private final AtomicLong now = new AtomicLong(7_000_000_000L);
  private final Set<ServiceKey> ensured = new HashSet<>();

  private static ServiceKey key(int i) {
    return new ServiceKey("kubernetes", "ns", "svc-" + i);
  }

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  private ReconcileThrottle throttle(double rate, int burst) {
    return new ReconcileThrottle(
        () -> new TokenBucket(rate, burst, now::get), INTERVAL, ensured::contains, now::get);
  }

  private static WorkItem<ServiceKey> full(ServiceKey key) {
    return new WorkItem<>(key, Set.of(WorkKind.RECONCILE), 0, false);
  }

  private static WorkItem<ServiceKey> retry(ServiceKey key, WorkKind kind) {
    return new WorkItem<>(key, Set.of(kind), 1, true);
  }

  @Test
  void aColdStartOfTenThousandServicesIsNeverHeldBack() {
    ReconcileThrottle t = throttle(10, 100);
    for (int i = 0; i < 10_000; i++) {
      t.specChanged(key(i));
      assertThat(t.check(full(key(i)))).isEqualTo(Deferral.NONE);
    }
    // Nor the first ensures without a spec-change mark (a DNS or node-sync run of a new key).
    for (int i = 10_000; i < 20_000; i++) {
      assertThat(t.check(full(key(i)))).isEqualTo(Deferral.NONE);
    }
  }

  @Test
  void aSpecChangeIsNeverHeldBackEvenRightAfterAnotherEnsure() {
    ReconcileThrottle t = throttle(1, 1);
    ServiceKey k = key(1);
    ensured.add(k);
    for (int i = 0; i < 50; i++) {
      t.specChanged(k);
      assertThat(t.check(full(k))).isEqualTo(Deferral.NONE);
    }
  }

  @Test
  void annotationOnlyEnsuresOfOneServiceAreAnIntervalApart() {
    ReconcileThrottle t = throttle(10, 100);
    ServiceKey k = key(1);
    ensured.add(k);
    assertThat(t.check(full(k)))
        .as("the first after a quiet spell goes at once")
        .isEqualTo(Deferral.NONE);
    advance(Duration.ofSeconds(1));
    Deferral d = t.check(full(k));
    assertThat(d.reason()).isEqualTo(ReconcileThrottle.MIN_INTERVAL);
    assertThat(d.delay()).isEqualTo(Duration.ofSeconds(29));
    advance(Duration.ofSeconds(19));
    assertThat(t.check(full(k)).delay()).isEqualTo(Duration.ofSeconds(10));
    assertThat(t.check(full(key(2)))).as("first ensure of another key").isEqualTo(Deferral.NONE);
    advance(Duration.ofSeconds(10));
    assertThat(t.check(full(k))).isEqualTo(Deferral.NONE);
  }

  @Test
  void aSpecChangeDuringTheIntervalRunsAtOnceAndDoesNotRestartIt() {
    ReconcileThrottle t = throttle(10, 100);
    ServiceKey k = key(1);
    ensured.add(k);
    assertThat(t.check(full(k))).isEqualTo(Deferral.NONE);
    advance(Duration.ofSeconds(5));
    t.specChanged(k);
    assertThat(t.check(full(k))).isEqualTo(Deferral.NONE);
    assertThat(t.check(full(k)).delay()).isEqualTo(Duration.ofSeconds(25));
  }

  @Test
  void retriesTakeTokensAndQueueUpForTheNextOnes() {
    ReconcileThrottle t = throttle(10, 2);
    assertThat(t.check(retry(key(1), WorkKind.RECONCILE))).isEqualTo(Deferral.NONE);
    assertThat(t.check(retry(key(2), WorkKind.UPDATE_HOSTS))).isEqualTo(Deferral.NONE);
    Deferral third = t.check(retry(key(3), WorkKind.VERIFY));
    assertThat(third.reason()).isEqualTo(ReconcileThrottle.RATE_LIMIT);
    assertThat(third.delay()).isEqualTo(Duration.ofMillis(100));
    assertThat(t.check(retry(key(4), WorkKind.RECONCILE)).delay())
        .isEqualTo(Duration.ofMillis(200));
    // Asked again while it waits (its key was added again), a key keeps its reservation.
    advance(Duration.ofMillis(50));
    assertThat(t.check(retry(key(3), WorkKind.VERIFY)).delay()).isEqualTo(Duration.ofMillis(50));
    advance(Duration.ofMillis(50));
    assertThat(t.check(retry(key(3), WorkKind.VERIFY))).isEqualTo(Deferral.NONE);
    advance(Duration.ofMillis(100));
    assertThat(t.check(retry(key(4), WorkKind.RECONCILE))).isEqualTo(Deferral.NONE);
  }

  @Test
  void aMembersRetryStormSpendsItsOwnTokensNotAnotherClusters() {
    ReconcileThrottle t = throttle(10, 2);
    // A member whose Services keep failing: its retries reserve tokens a minute ahead.
    for (int i = 0; i < 600; i++) {
      t.check(retry(new ServiceKey("member", "ns", "svc-" + i), WorkKind.RECONCILE));
    }
    assertThat(t.check(retry(new ServiceKey("member", "ns", "late"), WorkKind.RECONCILE)).delay())
        .isGreaterThan(Duration.ofSeconds(59));
    // The host's retries still find their own bucket full.
    assertThat(t.check(retry(key(1), WorkKind.RECONCILE))).isEqualTo(Deferral.NONE);
    assertThat(t.check(retry(key(2), WorkKind.RECONCILE))).isEqualTo(Deferral.NONE);
    assertThat(t.check(retry(key(3), WorkKind.RECONCILE)).delay())
        .isEqualTo(Duration.ofMillis(100));
    // A member that left and joins again starts with a full bucket.
    t.forget("member");
    assertThat(t.check(retry(new ServiceKey("member", "ns", "again"), WorkKind.RECONCILE)))
        .isEqualTo(Deferral.NONE);
  }

  @Test
  void aSpecChangeOvertakesARetryWaitingForItsToken() {
    ReconcileThrottle t = throttle(1, 1);
    assertThat(t.check(retry(key(1), WorkKind.RECONCILE))).isEqualTo(Deferral.NONE);
    assertThat(t.check(retry(key(2), WorkKind.RECONCILE)).defers()).isTrue();
    t.specChanged(key(2));
    assertThat(t.check(retry(key(2), WorkKind.RECONCILE))).isEqualTo(Deferral.NONE);
  }

  @Test
  void annotationEnsuresPastTheirIntervalStillTakeATokenEach() {
    ReconcileThrottle t = throttle(1, 2);
    for (int i = 0; i < 3; i++) {
      ensured.add(key(i));
    }
    assertThat(t.check(full(key(0)))).isEqualTo(Deferral.NONE);
    assertThat(t.check(full(key(1)))).isEqualTo(Deferral.NONE);
    Deferral d = t.check(full(key(2)));
    assertThat(d.reason()).isEqualTo(ReconcileThrottle.RATE_LIMIT);
    advance(d.delay());
    assertThat(t.check(full(key(2)))).isEqualTo(Deferral.NONE);
    // Its interval starts when it ran, not when it was first held back.
    advance(Duration.ofSeconds(1));
    assertThat(t.check(full(key(2))).delay()).isEqualTo(Duration.ofSeconds(29));
  }

  @Test
  void nodeSyncVerificationAndDnsRunsAreNotHeldBack() {
    ReconcileThrottle t = throttle(1, 1);
    ServiceKey k = key(1);
    ensured.add(k);
    assertThat(t.check(full(k))).isEqualTo(Deferral.NONE);
    for (WorkKind kind : Set.of(WorkKind.UPDATE_HOSTS, WorkKind.VERIFY, WorkKind.DNS)) {
      assertThat(t.check(new WorkItem<>(k, Set.of(kind), 0, false))).isEqualTo(Deferral.NONE);
    }
    // A DNS retry calls no load-balancer provider: not held back either.
    assertThat(t.check(retry(k, WorkKind.DNS))).isEqualTo(Deferral.NONE);
  }

  @Test
  void withoutABucketOnlyTheIntervalHolds() {
    ReconcileThrottle t = new ReconcileThrottle(null, INTERVAL, ensured::contains, now::get);
    ServiceKey k = key(1);
    ensured.add(k);
    for (int i = 0; i < 100; i++) {
      assertThat(t.check(retry(key(i), WorkKind.RECONCILE))).isEqualTo(Deferral.NONE);
    }
    assertThat(t.check(full(k))).isEqualTo(Deferral.NONE);
    assertThat(t.check(full(k)).reason()).isEqualTo(ReconcileThrottle.MIN_INTERVAL);
  }
}
