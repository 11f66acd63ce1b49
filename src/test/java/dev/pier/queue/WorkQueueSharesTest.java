package dev.pier.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.retry.ExponentialBackoff;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each cluster's share of a lane, on a real Vert.x context: keys are {@code cluster/name}, and the
 * runs of a hung cluster are futures that never settle. A key starts inside {@link WorkQueue#add}
 * when it may, so "starts at once" is asserted in the same task that adds it.
 */
class WorkQueueSharesTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private Vertx vertx;
  private Context ctx;
  private final AtomicReference<Set<String>> known =
      new AtomicReference<>(Set.of("host", "east", "west"));
  private final List<String> started = Collections.synchronizedList(new ArrayList<>());
  // Runs in flight by key; a hung cluster's are never completed unless the test says so.
  private final Map<String, Promise<WorkResult>> open = new ConcurrentHashMap<>();
  private final Map<String, Integer> held = new ConcurrentHashMap<>();

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    ctx = vertx.getOrCreateContext();
  }

  @AfterEach
  void tearDown() {
    vertx.close().await();
  }

  private static String clusterOf(String key) {
    return key.substring(0, key.indexOf('/'));
  }

  /** A queue of {@code slots} full and host-update slots each, shared with {@code floor}. */
  private WorkQueue<String> queue(int slots, int floor) {
    CompletableFuture<WorkQueue<String>> q = new CompletableFuture<>();
    ctx.runOnContext(
        v ->
            q.complete(
                new WorkQueue<>(
                    vertx,
                    Map.of(WorkLane.FULL, slots, WorkLane.HOST_UPDATE, slots),
                    new ExponentialBackoff<>(Duration.ofMillis(20), Duration.ofMillis(160)),
                    Duration.ofMinutes(10),
                    item -> {
                      started.add(item.key());
                      Promise<WorkResult> p = Promise.promise();
                      open.put(item.key(), p);
                      return p.future();
                    },
                    new WorkQueue.Listener<>() {
                      @Override
                      public void onHeldForShare(String cluster, int keys) {
                        held.put(cluster, keys);
                      }
                    },
                    null,
                    new WorkQueue.Shares<>(
                        new FairShare(floor), WorkQueueSharesTest::clusterOf, known::get))));
    return q.join();
  }

  private void run(Runnable action) {
    CompletableFuture<Void> r = new CompletableFuture<>();
    ctx.runOnContext(
        v -> {
          try {
            action.run();
            r.complete(null);
          } catch (RuntimeException | AssertionError e) {
            r.completeExceptionally(e);
          }
        });
    try {
      r.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof AssertionError a) {
        throw a;
      }
      throw e;
    }
  }

  private List<String> startedOf(String cluster) {
    synchronized (started) {
      return started.stream().filter(k -> clusterOf(k).equals(cluster)).toList();
    }
  }

  private static void addAll(WorkQueue<String> q, String cluster, int n) {
    for (int i = 0; i < n; i++) {
      q.add(cluster + "/svc-" + i, WorkKind.RECONCILE);
    }
  }

  @Test
  void aHungClusterFillsItsShareAndAnotherClustersKeyStartsAtOnce() {
    WorkQueue<String> q = queue(8, 2);
    run(
        () -> {
          // 20 keys of a member whose runs never end: it takes all but the others' floors.
          addAll(q, "west", 20);
          assertThat(q.inFlight(WorkLane.FULL)).isEqualTo(4);
          assertThat(startedOf("west")).hasSize(4);
          assertThat(q.depth()).isEqualTo(16);
        });
    // The 16 keys passed over are told to the metrics.
    await().atMost(WAIT).until(() -> held.getOrDefault("west", 0) == 16);

    run(
        () -> {
          // A key of the host, and one of a member that had no key at all yet, start at once.
          q.add("host/web", WorkKind.RECONCILE);
          assertThat(started).contains("host/web");
          q.add("east/api", WorkKind.RECONCILE);
          assertThat(started).contains("east/api");
          // Each can reach its floor while west hangs; west gets nothing more.
          q.add("host/db", WorkKind.RECONCILE);
          q.add("east/db", WorkKind.RECONCILE);
          assertThat(startedOf("host")).containsExactly("host/web", "host/db");
          assertThat(startedOf("east")).containsExactly("east/api", "east/db");
          assertThat(startedOf("west")).hasSize(4);
          assertThat(q.inFlight(WorkLane.FULL)).isEqualTo(8);
        });

    run(
        () -> {
          // A host run ends: its slot is the host's floor, not west's, whose keys keep waiting.
          open.get("host/web").complete(WorkResult.success());
          assertThat(startedOf("west")).hasSize(4);
          q.add("host/web", WorkKind.RECONCILE);
          assertThat(started).containsSubsequence("host/web", "host/web");
          // A west run ends: the next west key in the order they were queued takes its slot.
          open.get("west/svc-0").complete(WorkResult.success());
          assertThat(startedOf("west"))
              .containsExactly(
                  "west/svc-0", "west/svc-1", "west/svc-2", "west/svc-3", "west/svc-4");
        });
  }

  @Test
  void aHungClusterFillsItsShareOfTheHostUpdateLaneToo() {
    WorkQueue<String> q = queue(6, 2);
    run(
        () -> {
          for (int i = 0; i < 10; i++) {
            q.add("west/svc-" + i, WorkKind.UPDATE_HOSTS);
          }
          assertThat(q.inFlight(WorkLane.HOST_UPDATE)).isEqualTo(2);
          q.add("host/web", WorkKind.UPDATE_HOSTS);
          assertThat(started).contains("host/web");
          // The full lane is west's as much as anyone's.
          q.add("west/full", WorkKind.RECONCILE);
          assertThat(started).contains("west/full");
        });
  }

  @Test
  void aLeavingClustersFloorGoesBackToTheOthers() {
    WorkQueue<String> q = queue(8, 2);
    run(
        () -> {
          addAll(q, "west", 20);
          assertThat(startedOf("west")).hasSize(4);
          // host and east leave: west is the only cluster and may use every slot.
          known.set(Set.of("west"));
          q.clustersChanged();
          assertThat(startedOf("west")).hasSize(8);
          assertThat(q.depth()).isEqualTo(12);
        });
    // West waits for its lane now, not for its share.
    await().atMost(WAIT).until(() -> held.getOrDefault("west", -1) == 0);
  }

  @Test
  void withOneKnownClusterEverySlotIsUsedAsWithoutShares() {
    known.set(Set.of("host"));
    WorkQueue<String> q = queue(8, 4);
    run(
        () -> {
          addAll(q, "host", 20);
          assertThat(q.inFlight(WorkLane.FULL)).isEqualTo(8);
        });
    assertThat(held).isEmpty();
  }
}
