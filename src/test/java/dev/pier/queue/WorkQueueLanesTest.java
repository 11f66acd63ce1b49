package dev.pier.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.pier.retry.ExponentialBackoff;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-lane concurrency: node sync's host-only runs have slots of their own, apart from full
 * reconciles, driven on one Vert.x context as the reconcile verticle drives the queue.
 */
class WorkQueueLanesTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

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

  /** Counts runs in flight per lane as the handler sees them, and the most seen at once. */
  private static final class Lanes {
    final Map<WorkLane, AtomicInteger> now = new EnumMap<>(WorkLane.class);
    final Map<WorkLane, AtomicInteger> max = new EnumMap<>(WorkLane.class);
    final AtomicInteger maxTotal = new AtomicInteger();
    final AtomicInteger total = new AtomicInteger();

    Lanes() {
      for (WorkLane l : WorkLane.values()) {
        now.put(l, new AtomicInteger());
        max.put(l, new AtomicInteger());
      }
    }

    void started(WorkItem<String> item) {
      max.get(item.lane()).accumulateAndGet(now.get(item.lane()).incrementAndGet(), Math::max);
      maxTotal.accumulateAndGet(total.incrementAndGet(), Math::max);
    }

    void ended(WorkItem<String> item) {
      now.get(item.lane()).decrementAndGet();
      total.decrementAndGet();
    }
  }

  private WorkQueue<String> queue(
      Map<WorkLane, Integer> limits,
      Duration runDeadline,
      Function<WorkItem<String>, Future<WorkResult>> handler,
      WorkQueue.Listener<String> listener) {
    CompletableFuture<WorkQueue<String>> q = new CompletableFuture<>();
    ctx.runOnContext(
        v ->
            q.complete(
                new WorkQueue<>(
                    vertx,
                    limits,
                    new ExponentialBackoff<>(Duration.ofMillis(20), Duration.ofMillis(160)),
                    runDeadline,
                    handler,
                    listener,
                    null)));
    return q.join();
  }

  private <T> T on(Supplier<T> action) {
    CompletableFuture<T> r = new CompletableFuture<>();
    ctx.runOnContext(
        v -> {
          try {
            r.complete(action.get());
          } catch (RuntimeException | AssertionError e) {
            r.completeExceptionally(e);
          }
        });
    try {
      return r.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof AssertionError a) {
        throw a;
      }
      throw e;
    }
  }

  private void run(Runnable action) {
    on(
        () -> {
          action.run();
          return null;
        });
  }

  @Test
  void aRunTakesTheHostUpdateLaneOnlyWhenItDoesNothingButUpdateHosts() {
    assertThat(new WorkItem<>("a", Set.of(WorkKind.UPDATE_HOSTS), 0).lane())
        .isEqualTo(WorkLane.HOST_UPDATE);
    assertThat(new WorkItem<>("a", Set.of(WorkKind.UPDATE_HOSTS), 2).lane())
        .isEqualTo(WorkLane.HOST_UPDATE);
    for (Set<WorkKind> kinds :
        List.of(
            Set.of(WorkKind.RECONCILE),
            Set.of(WorkKind.DNS),
            Set.of(WorkKind.VERIFY),
            Set.of(WorkKind.RECONCILE, WorkKind.UPDATE_HOSTS),
            Set.of(WorkKind.UPDATE_HOSTS, WorkKind.DNS),
            Set.<WorkKind>of())) {
      assertThat(new WorkItem<>("a", kinds, 0).lane())
          .as(kinds.toString())
          .isEqualTo(WorkLane.FULL);
    }
  }

  @Test
  void eachLaneHasItsOwnLimitAndHostUpdatesRunWhileFullReconcilesFillTheirs() {
    Lanes lanes = new Lanes();
    List<Promise<WorkResult>> fullOpen = Collections.synchronizedList(new ArrayList<>());
    List<String> hostStarts = Collections.synchronizedList(new ArrayList<>());
    List<String> fullStarts = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger hostDone = new AtomicInteger();
    WorkQueue<String> q =
        queue(
            Map.of(WorkLane.FULL, 2, WorkLane.HOST_UPDATE, 5),
            Duration.ofMinutes(10),
            item -> {
              lanes.started(item);
              if (item.lane() == WorkLane.FULL) {
                // Full reconciles hold their slots until the test lets them go.
                fullStarts.add(item.key());
                Promise<WorkResult> p = Promise.promise();
                fullOpen.add(p);
                return p.future().onComplete(ar -> lanes.ended(item));
              }
              hostStarts.add(item.key());
              return vertx
                  .timer(20)
                  .map(
                      t -> {
                        lanes.ended(item);
                        hostDone.incrementAndGet();
                        return WorkResult.success();
                      });
            },
            null);
    run(
        () -> {
          // The full reconciles are queued first: a cold start's backlog ahead of a node change.
          for (int i = 0; i < 10; i++) {
            q.add("full-" + i, WorkKind.RECONCILE);
          }
          for (int i = 0; i < 10; i++) {
            q.add("host-" + i, WorkKind.UPDATE_HOSTS);
          }
          assertThat(q.inFlight(WorkLane.FULL)).isEqualTo(2);
          assertThat(q.inFlight(WorkLane.HOST_UPDATE)).isEqualTo(5);
          assertThat(q.inFlight()).isEqualTo(7);
          assertThat(q.depth()).isEqualTo(13);
        });

    // Every host update finishes while the full lane stays saturated by two held runs.
    await().atMost(WAIT).until(() -> hostDone.get() == 10);
    assertThat(fullOpen).hasSize(2);
    assertThat(lanes.max.get(WorkLane.HOST_UPDATE).get()).isEqualTo(5);
    assertThat(lanes.max.get(WorkLane.FULL).get()).isEqualTo(2);
    assertThat(lanes.maxTotal.get()).isEqualTo(7);
    // Within a lane, keys start in the order they were queued.
    assertThat(hostStarts)
        .containsExactly(
            "host-0", "host-1", "host-2", "host-3", "host-4", "host-5", "host-6", "host-7",
            "host-8", "host-9");
    run(
        () -> {
          assertThat(q.inFlight(WorkLane.HOST_UPDATE)).isZero();
          assertThat(q.inFlight(WorkLane.FULL)).isEqualTo(2);
          assertThat(q.stats().inFlight()).isEqualTo(2);
          assertThat(q.depth()).isEqualTo(8);
        });

    // Releasing full runs one at a time lets the next full key in, never a third at once.
    for (int released = 0; released < 10; released++) {
      int r = released;
      run(() -> fullOpen.get(r).complete(WorkResult.success()));
      int expected = Math.min(10, r + 3);
      await().atMost(WAIT).until(() -> fullOpen.size() == expected);
    }
    assertThat(lanes.max.get(WorkLane.FULL).get()).isEqualTo(2);
    assertThat(fullStarts)
        .containsExactly(
            "full-0", "full-1", "full-2", "full-3", "full-4", "full-5", "full-6", "full-7",
            "full-8", "full-9");
    await().atMost(WAIT).until(() -> on(q::isIdle));
    assertThat(on(() -> q.inFlight())).isZero();
  }

  @Test
  void aKeyWithBothKindsCountsAsFullAndItsLaneIsDecidedByItsMergedKindsAsItStarts() {
    List<WorkItem<String>> starts = Collections.synchronizedList(new ArrayList<>());
    List<Promise<WorkResult>> open = Collections.synchronizedList(new ArrayList<>());
    WorkQueue<String> q =
        queue(
            Map.of(WorkLane.FULL, 1, WorkLane.HOST_UPDATE, 5),
            Duration.ofMinutes(10),
            item -> {
              starts.add(item);
              Promise<WorkResult> p = Promise.promise();
              open.add(p);
              return p.future();
            },
            null);
    run(
        () -> {
          q.pause();
          q.add("full", WorkKind.RECONCILE);
          q.add("both", EnumSet.of(WorkKind.RECONCILE, WorkKind.UPDATE_HOSTS));
          // Queued as host-only, then a full reconcile merged in while it waits: full.
          q.add("merged", WorkKind.UPDATE_HOSTS);
          q.add("merged", WorkKind.RECONCILE);
          q.add("host", WorkKind.UPDATE_HOSTS);
          q.resume();
        });
    await().atMost(WAIT).until(() -> starts.size() == 2);
    sleep(200);
    // Only the one full slot's key and the host-only key run; both others wait for FULL.
    assertThat(starts).extracting(WorkItem::key).containsExactly("full", "host");
    run(
        () -> {
          assertThat(q.inFlight(WorkLane.FULL)).isEqualTo(1);
          assertThat(q.inFlight(WorkLane.HOST_UPDATE)).isEqualTo(1);
          assertThat(q.depth()).isEqualTo(2);
        });

    // The full lane takes them one at a time, in the order they were first queued.
    run(() -> open.get(0).complete(WorkResult.success()));
    await().atMost(WAIT).until(() -> starts.size() == 3);
    assertThat(starts.get(2).key()).isEqualTo("both");
    assertThat(starts.get(2).lane()).isEqualTo(WorkLane.FULL);
    run(() -> open.get(2).complete(WorkResult.success()));
    await().atMost(WAIT).until(() -> starts.size() == 4);
    assertThat(starts.get(3).key()).isEqualTo("merged");
    assertThat(starts.get(3).kinds())
        .containsExactlyInAnyOrder(WorkKind.UPDATE_HOSTS, WorkKind.RECONCILE);
    run(
        () -> {
          assertThat(q.inFlight(WorkLane.FULL)).isEqualTo(1);
          assertThat(q.inFlight(WorkLane.HOST_UPDATE)).isEqualTo(1);
        });
  }

  @Test
  void aStuckRunFreesTheSlotOfItsLaneOnly() {
    List<WorkItem<String>> starts = Collections.synchronizedList(new ArrayList<>());
    List<String> stuck = Collections.synchronizedList(new ArrayList<>());
    Map<String, Promise<WorkResult>> open = new ConcurrentHashMap<>();
    WorkQueue<String> q =
        queue(
            Map.of(WorkLane.FULL, 1, WorkLane.HOST_UPDATE, 1),
            Duration.ofMillis(1000),
            item -> {
              starts.add(item);
              Promise<WorkResult> p = Promise.promise();
              open.put(item.key(), p);
              return p.future();
            },
            new WorkQueue.Listener<>() {
              @Override
              public void onStuck(String key, Duration elapsed) {
                stuck.add(key);
              }
            });
    run(() -> q.add("h1", WorkKind.UPDATE_HOSTS));
    await().atMost(WAIT).until(() -> starts.size() == 1);
    // Half a deadline later: f1 holds the full slot past h1's deadline.
    sleep(500);
    run(
        () -> {
          q.add("f1", WorkKind.RECONCILE);
          q.add("f2", WorkKind.RECONCILE);
          q.add("h2", WorkKind.UPDATE_HOSTS);
        });
    await().atMost(WAIT).until(() -> starts.size() == 2);
    assertThat(starts).extracting(WorkItem::key).containsExactly("h1", "f1");

    // h1 passes its deadline: its host slot goes to h2, and the full lane gains nothing.
    await().atMost(WAIT).until(() -> starts.size() == 3);
    assertThat(starts.get(2).key()).isEqualTo("h2");
    assertThat(stuck).containsExactly("h1");
    run(
        () -> {
          assertThat(q.stuck()).isEqualTo(1);
          assertThat(q.inFlight(WorkLane.HOST_UPDATE)).isEqualTo(1);
          assertThat(q.inFlight(WorkLane.FULL)).isEqualTo(1);
          assertThat(q.inFlight()).isEqualTo(2);
          assertThat(q.depth()).isEqualTo(1);
        });
    run(() -> open.get("f1").complete(WorkResult.success()));
    await().atMost(WAIT).until(() -> starts.size() == 4);
    assertThat(starts.get(3).key()).isEqualTo("f2");
    run(() -> open.get("f2").complete(WorkResult.success()));

    // The abandoned run settles: its key runs again, in the host lane once h2 leaves it.
    run(() -> open.get("h1").complete(WorkResult.success()));
    sleep(100);
    assertThat(starts).hasSize(4);
    run(() -> open.get("h2").complete(WorkResult.success()));
    await().atMost(WAIT).until(() -> starts.size() == 5);
    assertThat(starts.get(4).key()).isEqualTo("h1");
    assertThat(starts.get(4).lane()).isEqualTo(WorkLane.HOST_UPDATE);
    run(
        () -> {
          assertThat(q.stuck()).isZero();
          assertThat(q.inFlight(WorkLane.HOST_UPDATE)).isEqualTo(1);
          assertThat(q.inFlight(WorkLane.FULL)).isZero();
        });
    assertThat(stuck).containsExactly("h1");
  }

  @Test
  void oneLimitOverAllLanesStaysOneLimit() {
    Lanes lanes = new Lanes();
    AtomicInteger done = new AtomicInteger();
    CompletableFuture<WorkQueue<String>> created = new CompletableFuture<>();
    ctx.runOnContext(
        v ->
            created.complete(
                new WorkQueue<>(
                    vertx,
                    3,
                    new ExponentialBackoff<String>(Duration.ofMillis(20), Duration.ofMillis(160)),
                    Duration.ofMinutes(10),
                    item -> {
                      lanes.started(item);
                      return vertx
                          .timer(10)
                          .map(
                              t -> {
                                lanes.ended(item);
                                done.incrementAndGet();
                                return WorkResult.success();
                              });
                    },
                    null)));
    WorkQueue<String> q = created.join();
    run(
        () -> {
          for (int i = 0; i < 10; i++) {
            q.add("full-" + i, WorkKind.RECONCILE);
            q.add("host-" + i, WorkKind.UPDATE_HOSTS);
          }
        });
    await().atMost(WAIT).until(() -> done.get() == 20);
    assertThat(lanes.maxTotal.get()).isEqualTo(3);
  }

  @Test
  void everyLaneNeedsALimitOfAtLeastOne() {
    assertThatThrownBy(() -> create(Map.of(WorkLane.FULL, 2, WorkLane.HOST_UPDATE, 0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HOST_UPDATE")
        .hasMessageContaining("got 0");
    assertThatThrownBy(() -> create(Map.of(WorkLane.FULL, -1, WorkLane.HOST_UPDATE, 5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("FULL")
        .hasMessageContaining("got -1");
    assertThatThrownBy(() -> create(Map.of(WorkLane.FULL, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HOST_UPDATE");
    assertThat(create(Map.of(WorkLane.FULL, 1, WorkLane.HOST_UPDATE, 1)).inFlight()).isZero();
  }

  /** Validation happens before the queue touches its context. */
  private WorkQueue<String> create(Map<WorkLane, Integer> limits) {
    return new WorkQueue<>(
        vertx,
        limits,
        new ExponentialBackoff<>(Duration.ofMillis(20), Duration.ofMillis(160)),
        WAIT,
        item -> Future.succeededFuture(WorkResult.success()),
        null,
        null);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
