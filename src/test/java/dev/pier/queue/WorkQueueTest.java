package dev.pier.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.retry.ExponentialBackoff;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Queue semantics, driven on one Vert.x context as the reconcile verticle drives it. */
class WorkQueueTest {
  private Vertx vertx;
  private Context ctx;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    ctx = vertx.getOrCreateContext();
  }

  @AfterEach
  void tearDown() {
    vertx.close().await();
  }

  private WorkQueue<String> queue(
      int max, Duration min, Function<WorkItem<String>, Future<WorkResult>> handler) {
    return queue(max, min, Duration.ofMinutes(10), handler, null);
  }

  private WorkQueue<String> queue(
      int max,
      Duration min,
      Duration runDeadline,
      Function<WorkItem<String>, Future<WorkResult>> handler,
      WorkQueue.Listener<String> listener) {
    CompletableFuture<WorkQueue<String>> q = new CompletableFuture<>();
    ctx.runOnContext(
        v ->
            q.complete(
                new WorkQueue<>(
                    vertx,
                    max,
                    new ExponentialBackoff<>(min, min.multipliedBy(8)),
                    runDeadline,
                    handler,
                    listener)));
    return q.join();
  }

  private void on(Consumer<Void> action) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    ctx.runOnContext(
        v -> {
          action.accept(null);
          done.complete(null);
        });
    done.join();
  }

  @Test
  void aWaitingKeyIsQueuedOnceAndItsKindsMerge() {
    List<WorkItem<String>> runs = Collections.synchronizedList(new ArrayList<>());
    WorkQueue<String> q =
        queue(
            1,
            Duration.ofMillis(50),
            item -> {
              runs.add(item);
              return Future.succeededFuture(WorkResult.success());
            });
    on(
        v -> {
          q.pause();
          q.add("a", WorkKind.RECONCILE);
          q.add("a", WorkKind.UPDATE_HOSTS);
          q.add("b", WorkKind.RECONCILE);
          assertThat(q.depth()).isEqualTo(2);
          q.resume();
        });
    await().until(() -> runs.size() == 2);
    assertThat(runs.get(0).key()).isEqualTo("a");
    assertThat(runs.get(0).kinds())
        .containsExactlyInAnyOrder(WorkKind.RECONCILE, WorkKind.UPDATE_HOSTS);
    assertThat(runs.get(1).key()).isEqualTo("b");
  }

  @Test
  void aKeyNeverRunsTwiceAtOnceAndAReAddRunsAgainAfterwards() {
    Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
    AtomicInteger maxSeen = new AtomicInteger();
    List<Promise<WorkResult>> open = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger runs = new AtomicInteger();
    WorkQueue<String> q =
        queue(
            10,
            Duration.ofMillis(50),
            item -> {
              int now =
                  running.computeIfAbsent(item.key(), k -> new AtomicInteger()).incrementAndGet();
              maxSeen.accumulateAndGet(now, Math::max);
              runs.incrementAndGet();
              Promise<WorkResult> p = Promise.promise();
              open.add(p);
              return p.future().onComplete(ar -> running.get(item.key()).decrementAndGet());
            });
    on(v -> q.add("a", WorkKind.RECONCILE));
    await().until(() -> open.size() == 1);
    on(
        v -> {
          q.add("a", WorkKind.RECONCILE);
          q.add("a", WorkKind.DNS);
          assertThat(q.inFlight()).isEqualTo(1);
          assertThat(q.depth()).isZero();
        });
    assertThat(runs.get()).isEqualTo(1);
    on(v -> open.get(0).complete(WorkResult.success()));
    await().until(() -> open.size() == 2);
    on(v -> open.get(1).complete(WorkResult.success()));
    await().until(() -> running.get("a").get() == 0);
    assertThat(runs.get()).isEqualTo(2);
    assertThat(maxSeen.get()).isEqualTo(1);
  }

  /**
   * A key dropped while it runs (its shard lost) is not retried when that run fails, nor when it
   * passes its deadline: another replica runs it now. Added again (the shard taken back), it runs.
   */
  @Test
  void aKeyDroppedWhileItRunsIsNotRetriedUntilAddedAgain() {
    List<Promise<WorkResult>> open = Collections.synchronizedList(new ArrayList<>());
    WorkQueue<String> q =
        queue(10, Duration.ofMillis(50), Duration.ofMillis(300), held(open), null);
    on(
        v -> {
          q.add("a", WorkKind.RECONCILE);
          q.add("b", WorkKind.RECONCILE);
        });
    await().until(() -> open.size() == 2);
    on(v -> q.drop(k -> true));
    // Past the deadline, then failed: neither brings a run back.
    await()
        .during(Duration.ofMillis(600))
        .atMost(Duration.ofSeconds(2))
        .until(() -> open.size() == 2);
    on(
        v -> {
          open.get(0).complete(WorkResult.retry(Set.of(WorkKind.RECONCILE)));
          open.get(1).complete(WorkResult.fenced(Duration.ofMillis(50), Set.of()));
        });
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> open.size() == 2);
    on(
        v -> {
          assertThat(q.waitingForRetry()).isZero();
          assertThat(q.failures("a")).isZero();
          assertThat(q.isIdle()).isTrue();
          q.add("a", WorkKind.RECONCILE);
        });
    await().until(() -> open.size() == 3);
  }

  /** Runs that end when the test completes their promise, kept in {@code open} as they start. */
  private static Function<WorkItem<String>, Future<WorkResult>> held(
      List<Promise<WorkResult>> open) {
    return item -> {
      Promise<WorkResult> p = Promise.promise();
      open.add(p);
      return p.future();
    };
  }

  /** A key dropped and added again while it runs runs again once that run ends. */
  @Test
  void aKeyDroppedAndAddedAgainWhileItRunsRunsAgainAfterwards() {
    List<Promise<WorkResult>> open = Collections.synchronizedList(new ArrayList<>());
    WorkQueue<String> q = queue(10, Duration.ofMillis(50), held(open));
    on(v -> q.add("a", WorkKind.RECONCILE));
    await().until(() -> open.size() == 1);
    on(
        v -> {
          q.drop("a"::equals);
          q.add("a", WorkKind.RECONCILE);
          open.get(0).complete(WorkResult.retry(Set.of(WorkKind.RECONCILE)));
        });
    await().until(() -> open.size() == 2);
  }

  @Test
  void atMostMaxInFlightKeysRunAtOnce() {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxSeen = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    WorkQueue<String> q =
        queue(
            3,
            Duration.ofMillis(50),
            item -> {
              maxSeen.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              return vertx
                  .timer(5)
                  .map(
                      t -> {
                        inFlight.decrementAndGet();
                        done.incrementAndGet();
                        return WorkResult.success();
                      });
            });
    on(
        v -> {
          for (int i = 0; i < 30; i++) {
            q.add("k" + i, WorkKind.RECONCILE);
          }
        });
    await().until(() -> done.get() == 30);
    assertThat(maxSeen.get()).isEqualTo(3);
  }

  @Test
  void failuresRetryWithGrowingBackoffAndSuccessResetsIt() {
    List<Long> times = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger calls = new AtomicInteger();
    WorkQueue<String> q =
        queue(
            1,
            Duration.ofMillis(100),
            item -> {
              times.add(System.nanoTime());
              return Future.succeededFuture(
                  calls.incrementAndGet() < 4
                      ? WorkResult.retry(item.kinds())
                      : WorkResult.success());
            });
    on(v -> q.add("a", WorkKind.RECONCILE));
    await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 4);
    // Retries wait at least 100, 200 and 400 ms: each gap at least the backoff of its failure.
    assertThat(millis(times.get(1) - times.get(0))).isGreaterThanOrEqualTo(100);
    assertThat(millis(times.get(2) - times.get(1))).isGreaterThanOrEqualTo(200);
    assertThat(millis(times.get(3) - times.get(2))).isGreaterThanOrEqualTo(400);
    on(v -> assertThat(q.failures("a")).isZero());
  }

  @Test
  void retryAfterUsesTheRequestedDelayAndLeavesBackoffAlone() {
    AtomicInteger calls = new AtomicInteger();
    List<Long> times = Collections.synchronizedList(new ArrayList<>());
    WorkQueue<String> q =
        queue(
            1,
            Duration.ofSeconds(60),
            item -> {
              times.add(System.nanoTime());
              return Future.succeededFuture(
                  calls.incrementAndGet() == 1
                      ? WorkResult.retryAfter(Duration.ofMillis(150), item.kinds())
                      : WorkResult.success());
            });
    on(v -> q.add("a", WorkKind.RECONCILE));
    await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 2);
    assertThat(millis(times.get(1) - times.get(0))).isGreaterThanOrEqualTo(150);
  }

  @Test
  void aDirectAddOfAKeyWaitingForRetryRunsItNow() {
    AtomicInteger calls = new AtomicInteger();
    Map<Integer, Set<WorkKind>> kindsByCall = new HashMap<>();
    WorkQueue<String> q =
        queue(
            1,
            Duration.ofSeconds(60),
            item -> {
              int n = calls.incrementAndGet();
              kindsByCall.put(n, item.kinds());
              return Future.succeededFuture(
                  n == 1 ? WorkResult.retry(Set.of(WorkKind.RECONCILE)) : WorkResult.success());
            });
    on(v -> q.add("a", WorkKind.UPDATE_HOSTS));
    await().until(() -> calls.get() == 1);
    on(v -> assertThat(q.waitingForRetry()).isEqualTo(1));
    on(v -> q.add("a", WorkKind.DNS));
    await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 2);
    assertThat(kindsByCall.get(2)).isEqualTo(EnumSet.of(WorkKind.RECONCILE, WorkKind.DNS));
    on(v -> assertThat(q.isIdle()).isTrue());
  }

  @Test
  void permanentFailuresAreNotRetried() {
    AtomicInteger calls = new AtomicInteger();
    WorkQueue<String> q =
        queue(
            1,
            Duration.ofMillis(10),
            item -> {
              calls.incrementAndGet();
              return Future.succeededFuture(WorkResult.permanent());
            });
    on(v -> q.add("a", WorkKind.RECONCILE));
    await().until(() -> calls.get() == 1);
    on(v -> assertThat(q.isIdle()).isTrue());
  }

  @Test
  void aThrowingHandlerIsRetriedLikeAFailure() {
    AtomicInteger calls = new AtomicInteger();
    WorkQueue<String> q =
        queue(
            1,
            Duration.ofMillis(20),
            item -> {
              if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("boom");
              }
              return Future.succeededFuture(WorkResult.success());
            });
    on(v -> q.add("a", WorkKind.RECONCILE));
    await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 2);
  }

  @Test
  void aRunPastItsDeadlineFreesItsSlotButKeepsItsKeyLockedUntilItSettles() {
    List<WorkItem<String>> runs = Collections.synchronizedList(new ArrayList<>());
    List<Promise<WorkResult>> openA = Collections.synchronizedList(new ArrayList<>());
    List<String> stuck = Collections.synchronizedList(new ArrayList<>());
    List<Duration> stuckAfter = Collections.synchronizedList(new ArrayList<>());
    WorkQueue<String> q =
        queue(
            1,
            Duration.ofMillis(20),
            Duration.ofMillis(300),
            item -> {
              runs.add(item);
              if (item.key().equals("a")) {
                Promise<WorkResult> p = Promise.promise();
                openA.add(p);
                return p.future();
              }
              return Future.succeededFuture(WorkResult.success());
            },
            new WorkQueue.Listener<>() {
              @Override
              public void onStuck(String key, Duration elapsed) {
                stuck.add(key);
                stuckAfter.add(elapsed);
              }
            });
    on(
        v -> {
          q.add("a", WorkKind.RECONCILE);
          q.add("b", WorkKind.RECONCILE);
        });
    await().until(() -> openA.size() == 1);
    // B waits for the one slot, which A's run holds until its deadline.
    assertThat(runs).extracting(WorkItem::key).containsExactly("a");
    await().atMost(Duration.ofSeconds(5)).until(() -> runs.size() == 2);
    assertThat(runs.get(1).key()).isEqualTo("b");
    assertThat(stuck).containsExactly("a");
    assertThat(stuckAfter.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));

    // A is retried, but not while its first run is pending, even when asked for again.
    on(v -> q.add("a", WorkKind.DNS));
    sleep(700);
    assertThat(runs).extracting(WorkItem::key).containsExactly("a", "b");
    assertThat(openA).hasSize(1);
    assertThat(stuck).containsExactly("a");

    // Once it settles, A runs again with the kinds it had and those added meanwhile.
    on(v -> openA.get(0).complete(WorkResult.success()));
    await().atMost(Duration.ofSeconds(5)).until(() -> openA.size() == 2);
    assertThat(runs.get(2).key()).isEqualTo("a");
    assertThat(runs.get(2).kinds()).containsExactlyInAnyOrder(WorkKind.RECONCILE, WorkKind.DNS);
    on(v -> openA.get(1).complete(WorkResult.success()));
    await().atMost(Duration.ofSeconds(5)).until(() -> callOn(q::isIdle));
    assertThat(stuck).containsExactly("a");
  }

  private boolean callOn(java.util.function.Supplier<Boolean> check) {
    CompletableFuture<Boolean> r = new CompletableFuture<>();
    ctx.runOnContext(v -> r.complete(check.get()));
    return r.join();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private WorkQueue<String> gated(
      Function<WorkItem<String>, Future<WorkResult>> handler,
      WorkQueue.Gate<String> gate,
      List<Deferral> deferred) {
    CompletableFuture<WorkQueue<String>> q = new CompletableFuture<>();
    ctx.runOnContext(
        v ->
            q.complete(
                new WorkQueue<>(
                    vertx,
                    4,
                    new ExponentialBackoff<>(Duration.ofMillis(50), Duration.ofMillis(400)),
                    Duration.ofMinutes(10),
                    handler,
                    new WorkQueue.Listener<>() {
                      @Override
                      public void onDeferred(String key, Deferral deferral) {
                        deferred.add(deferral);
                      }
                    },
                    gate)));
    return q.join();
  }

  @Test
  void aDeferredKeyWaitsWithoutRunningAndIsAskedAboutAgainWhenTheWaitEnds() {
    List<WorkItem<String>> runs = Collections.synchronizedList(new ArrayList<>());
    List<Deferral> deferred = Collections.synchronizedList(new ArrayList<>());
    List<Long> asked = Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    WorkQueue<String> q =
        gated(
            item -> {
              runs.add(item);
              return Future.succeededFuture(WorkResult.success());
            },
            item -> {
              asked.add(System.nanoTime());
              return millis(System.nanoTime() - start) < 300
                  ? Deferral.of(Duration.ofMillis(300), "test")
                  : Deferral.NONE;
            },
            deferred);
    on(v -> q.add("a", WorkKind.RECONCILE));
    // Added again while it waits: asked about again, deferred again, still not run.
    await().pollDelay(Duration.ofMillis(100)).until(() -> true);
    on(v -> q.add("a", WorkKind.DNS));
    assertThat(runs).isEmpty();
    on(v -> assertThat(q.waitingForRetry()).isEqualTo(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> runs.size() == 1);
    assertThat(millis(System.nanoTime() - start)).isGreaterThanOrEqualTo(300);
    // Deferred work keeps its kinds and what was added meanwhile.
    assertThat(runs.get(0).kinds()).containsExactlyInAnyOrder(WorkKind.RECONCILE, WorkKind.DNS);
    assertThat(deferred).hasSizeGreaterThanOrEqualTo(2).allMatch(d -> d.reason().equals("test"));
    assertThat(asked).hasSize(deferred.size() + 1);
    on(v -> assertThat(q.isIdle()).isTrue());
  }

  @Test
  void theGateSeesWhetherARunRetriesAFailedOne() {
    List<WorkItem<String>> seen = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger calls = new AtomicInteger();
    WorkQueue<String> q =
        gated(
            item ->
                Future.succeededFuture(
                    switch (calls.incrementAndGet()) {
                      case 1 -> WorkResult.retry(item.kinds());
                      case 2 -> WorkResult.retryAfter(Duration.ofMillis(50), item.kinds());
                      default -> WorkResult.success();
                    }),
            item -> {
              seen.add(item);
              return Deferral.NONE;
            },
            new ArrayList<>());
    on(v -> q.add("a", WorkKind.RECONCILE));
    await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 3);
    on(v -> q.add("a", WorkKind.RECONCILE));
    await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 4);
    // First run, a retry after RETRY, a retry after RETRY_AFTER, a fresh run after success.
    assertThat(seen.stream().map(WorkItem::retry)).containsExactly(false, true, true, false);
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }
}
