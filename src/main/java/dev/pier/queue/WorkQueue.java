package dev.pier.queue;

import dev.pier.retry.ExponentialBackoff;
import dev.pier.util.Futures;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A per-key work queue with client-go workqueue semantics, driven by Vert.x timers:
 *
 * <ul>
 *   <li>a waiting key is queued once (the kinds of work asked for are merged);
 *   <li>a key is never run twice at the same time; a key added while it runs runs again after;
 *   <li>at most {@code maxInFlight} keys run at once: either one limit over all runs (the {@code
 *       int} constructors), or one limit per {@link WorkLane} (the {@link Map} constructor), so
 *       that node sync's many cheap host updates do not wait behind full reconciles, nor raise how
 *       many of those run at once. A run's lane follows from its merged kinds as it starts ({@link
 *       WorkItem#lane()}): a run that only updates hosts takes {@link WorkLane#HOST_UPDATE}, any
 *       other {@link WorkLane#FULL}. Keys start in the order they were queued, except that a key
 *       whose lane is full is passed over for the next key of a lane with room: one lane's backlog
 *       never holds the other back, and within a lane the order stays;
 *   <li>with {@link Shares} (lanes only), each lane's slots are shared among clusters by a {@link
 *       FairShare}: a key whose cluster has taken all the lane can give it without eating into the
 *       other known clusters' floors is passed over, keeping its place, for the next key of a
 *       cluster with room. So keys of one cluster whose runs hang cannot hold every slot;
 *   <li>a failed run is retried after the key's exponential backoff, or a delay the run asks for; a
 *       success resets the backoff; a fenced run (its process stopped leading) is looked at again
 *       after the delay it asks for, its backoff unchanged;
 *   <li>a direct add of a key waiting for a retry runs it now;
 *   <li>a gate may defer work that is about to run: it waits (with later work of the key merged
 *       into it) and is asked about again when the wait ends;
 *   <li>a run still going after {@code runDeadline} is abandoned: its slot (in its lane) goes to
 *       other keys and the key is retried, but it stays locked until the abandoned run's future
 *       settles (so it still never runs twice at once), then runs again with its kinds and any
 *       added meanwhile.
 * </ul>
 *
 * <p>Not thread-safe by design: every method must be called on the context the queue was created on
 * (the reconcile verticle's), which is also where handler futures complete.
 */
public final class WorkQueue<K> {
  private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);

  /** Observes the queue for metrics. */
  public interface Listener<K> {
    default void onDone(WorkItem<K> item, WorkResult result, long nanos) {}

    default void onRetryScheduled(K key, Duration delay) {}

    /**
     * A run of {@code key} passed the queue's run deadline after {@code elapsed}: its slot is freed
     * and the key runs again once the abandoned run settles. Called once per such run.
     */
    default void onStuck(K key, Duration elapsed) {}

    /** The gate deferred work of {@code key} that was about to run. */
    default void onDeferred(K key, Deferral deferral) {}

    /**
     * The keys of {@code cluster} waiting only for its share (their lane has free slots, kept for
     * other clusters' floors) are now {@code keys}; called when the number changes, 0 included.
     */
    default void onHeldForShare(String cluster, int keys) {}
  }

  /**
   * Shares each lane among clusters.
   *
   * @param share the rule, with each cluster's floor
   * @param clusterOf the cluster of a key
   * @param clusters the known clusters, whether they have keys or not; asked as runs start
   */
  public record Shares<K>(
      FairShare share, Function<K, String> clusterOf, Supplier<Set<String>> clusters) {}

  /** Decides whether work about to run runs now or waits: the seam for rate limits. */
  public interface Gate<K> {
    Gate<Object> OPEN = item -> Deferral.NONE;

    /** Called as {@code item} is about to run: {@link Deferral#NONE} runs it now. */
    Deferral check(WorkItem<K> item);
  }

  private record Delayed(long timerId, long dueAtMillis, EnumSet<WorkKind> kinds) {}

  /** A key waiting to run: its place in the queue, its cluster and the kinds merged so far. */
  private static final class Ready {
    final long seq;
    final String cluster;
    final EnumSet<WorkKind> kinds;

    Ready(long seq, String cluster, EnumSet<WorkKind> kinds) {
      this.seq = seq;
      this.cluster = cluster;
      this.kinds = kinds;
    }

    WorkLane lane() {
      return WorkLane.of(kinds);
    }
  }

  private static final WorkLane[] LANES = WorkLane.values();

  private final Vertx vertx;
  // Runs holding a slot, over all lanes; Integer.MAX_VALUE with per-lane limits.
  private final int maxInFlight;
  // Per lane, by ordinal; Integer.MAX_VALUE with one limit over all.
  private final int[] laneMaxInFlight;
  private final ExponentialBackoff<K> backoff;
  private final Duration runDeadline;
  private final Function<WorkItem<K>, Future<WorkResult>> handler;
  private final Listener<K> listener;
  private final Gate<K> gate;
  // Null: one cluster, or clusters not told apart.
  private final Shares<K> shares;

  private final Map<K, Ready> ready = new HashMap<>();
  // Per lane, by ordinal, and per cluster ("" without shares): the keys waiting to run in the order
  // they were first queued; no empty map is kept. A key moves to another lane (keeping its place)
  // when kinds merged into it change its lane.
  private final List<Map<String, TreeMap<Long, K>>> readyByLane = new ArrayList<>();
  private long nextSeq;
  // Runs holding a slot, per lane by ordinal (runs past their deadline hold none).
  private final int[] laneInFlight = new int[LANES.length];
  // The same per cluster, with shares; a cluster without runs has no entry.
  private final Map<String, int[]> clusterInFlight = new HashMap<>();
  // What onHeldForShare last told, without zeros; and each lane's floor last logged.
  private Map<String, Integer> heldTold = Map.of();
  private final int[] floorTold = new int[LANES.length];
  // Keys with a run in progress, abandoned ones included: the key lock.
  private final Set<K> running = new HashSet<>();
  // Runs past their deadline: their keys stay locked but hold no concurrency slot.
  private final Set<K> stuck = new HashSet<>();
  private final Map<K, Long> deadlineTimers = new HashMap<>();
  private final Map<K, EnumSet<WorkKind>> addedWhileRunning = new HashMap<>();
  // Keys dropped while they ran: their runs are not retried (another owner runs them now).
  private final Set<K> droppedWhileRunning = new HashSet<>();
  private final Map<K, Delayed> delayed = new HashMap<>();
  // Keys whose last run failed: their next run is a retry.
  private final Set<K> failed = new HashSet<>();
  private boolean paused;
  private boolean closed;
  // Copies of the sizes for readers on other threads (metrics scrapes).
  private volatile int depthSeen;
  private volatile int inFlightSeen;
  private volatile int waitingSeen;

  public WorkQueue(
      Vertx vertx,
      int maxInFlight,
      ExponentialBackoff<K> backoff,
      Duration runDeadline,
      Function<WorkItem<K>, Future<WorkResult>> handler,
      Listener<K> listener) {
    this(vertx, maxInFlight, backoff, runDeadline, handler, listener, null);
  }

  /**
   * A queue with one limit over all runs, whatever their lane.
   *
   * @param gate decides whether work about to run waits; null: never
   */
  public WorkQueue(
      Vertx vertx,
      int maxInFlight,
      ExponentialBackoff<K> backoff,
      Duration runDeadline,
      Function<WorkItem<K>, Future<WorkResult>> handler,
      Listener<K> listener,
      Gate<K> gate) {
    this(
        vertx,
        checkLimit("maxInFlight", maxInFlight),
        unlimitedLanes(),
        backoff,
        runDeadline,
        handler,
        listener,
        gate,
        null);
  }

  /**
   * A queue with a limit per lane: runs of one lane never wait for a slot of another.
   *
   * @param maxInFlight the runs each lane may have in flight; every lane needs one, at least 1
   * @param gate decides whether work about to run waits; null: never
   */
  public WorkQueue(
      Vertx vertx,
      Map<WorkLane, Integer> maxInFlight,
      ExponentialBackoff<K> backoff,
      Duration runDeadline,
      Function<WorkItem<K>, Future<WorkResult>> handler,
      Listener<K> listener,
      Gate<K> gate) {
    this(vertx, maxInFlight, backoff, runDeadline, handler, listener, gate, null);
  }

  /**
   * A queue with a limit per lane, each lane shared among clusters.
   *
   * @param shares how each lane is shared among clusters; null: not at all
   */
  public WorkQueue(
      Vertx vertx,
      Map<WorkLane, Integer> maxInFlight,
      ExponentialBackoff<K> backoff,
      Duration runDeadline,
      Function<WorkItem<K>, Future<WorkResult>> handler,
      Listener<K> listener,
      Gate<K> gate,
      Shares<K> shares) {
    this(
        vertx,
        Integer.MAX_VALUE,
        laneLimits(maxInFlight),
        backoff,
        runDeadline,
        handler,
        listener,
        gate,
        shares);
  }

  @SuppressWarnings("unchecked")
  private WorkQueue(
      Vertx vertx,
      int maxInFlight,
      int[] laneMaxInFlight,
      ExponentialBackoff<K> backoff,
      Duration runDeadline,
      Function<WorkItem<K>, Future<WorkResult>> handler,
      Listener<K> listener,
      Gate<K> gate,
      Shares<K> shares) {
    if (runDeadline.isZero() || runDeadline.isNegative()) {
      throw new IllegalArgumentException("runDeadline must be positive, got " + runDeadline);
    }
    this.runDeadline = runDeadline;
    this.vertx = vertx;
    this.maxInFlight = maxInFlight;
    this.laneMaxInFlight = laneMaxInFlight;
    for (int i = 0; i < LANES.length; i++) {
      readyByLane.add(new HashMap<>());
    }
    this.shares = shares;
    this.backoff = backoff;
    this.handler = handler;
    this.listener = listener == null ? new Listener<>() {} : listener;
    this.gate = gate == null ? (Gate<K>) (Gate<?>) Gate.OPEN : gate;
  }

  private static int checkLimit(String name, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, got " + limit);
    }
    return limit;
  }

  private static int[] unlimitedLanes() {
    int[] limits = new int[LANES.length];
    Arrays.fill(limits, Integer.MAX_VALUE);
    return limits;
  }

  private static int[] laneLimits(Map<WorkLane, Integer> maxInFlight) {
    int[] limits = new int[LANES.length];
    for (WorkLane lane : LANES) {
      Integer limit = maxInFlight.get(lane);
      if (limit == null || limit < 1) {
        throw new IllegalArgumentException(
            "maxInFlight of lane " + lane + " must be >= 1, got " + limit);
      }
      limits[lane.ordinal()] = limit;
    }
    return limits;
  }

  /** Asks for work of {@code kind} on {@code key} as soon as possible. */
  public void add(K key, WorkKind kind) {
    add(key, EnumSet.of(kind));
  }

  public void add(K key, Set<WorkKind> kinds) {
    if (closed || kinds.isEmpty()) {
      return;
    }
    Delayed waiting = delayed.remove(key);
    EnumSet<WorkKind> merged = EnumSet.copyOf(kinds);
    if (waiting != null) {
      vertx.cancelTimer(waiting.timerId());
      merged.addAll(waiting.kinds());
    }
    enqueue(key, merged);
    dispatch();
  }

  /** Asks for work on {@code key} after {@code delay}; an earlier pending delay wins. */
  public void addAfter(K key, Set<WorkKind> kinds, Duration delay) {
    if (closed || kinds.isEmpty()) {
      return;
    }
    if (delay.isZero() || delay.isNegative()) {
      add(key, kinds);
      return;
    }
    long due = System.currentTimeMillis() + delay.toMillis();
    EnumSet<WorkKind> merged = EnumSet.copyOf(kinds);
    Delayed existing = delayed.get(key);
    if (existing != null) {
      merged.addAll(existing.kinds());
      if (existing.dueAtMillis() <= due) {
        delayed.put(key, new Delayed(existing.timerId(), existing.dueAtMillis(), merged));
        return;
      }
      vertx.cancelTimer(existing.timerId());
    }
    long timerId =
        vertx.setTimer(
            delay.toMillis(),
            id -> {
              Delayed d = delayed.get(key);
              if (d != null && d.timerId() == id) {
                delayed.remove(key);
                enqueue(key, d.kinds());
                dispatch();
              }
            });
    delayed.put(key, new Delayed(timerId, due, merged));
    waitingSeen = delayed.size();
  }

  /** Stops starting new runs (runs in flight finish); {@link #resume()} starts them again. */
  public void pause() {
    paused = true;
    if (shares != null) {
      reportHeld(knownClusters());
    }
  }

  public void resume() {
    paused = false;
    dispatch();
  }

  /** Drops all waiting work and timers; runs in flight finish but are not retried. */
  public void close() {
    closed = true;
    deadlineTimers.values().forEach(vertx::cancelTimer);
    deadlineTimers.clear();
    delayed.values().forEach(d -> vertx.cancelTimer(d.timerId()));
    delayed.clear();
    ready.clear();
    readyByLane.forEach(Map::clear);
    addedWhileRunning.clear();
    droppedWhileRunning.clear();
    failed.clear();
    depthSeen = 0;
    waitingSeen = 0;
  }

  /**
   * Drops the waiting work of every key {@code which} matches: queued, waiting for a retry or added
   * while it runs, with its failure count. Runs in flight finish but are not retried, even past
   * their deadline; a key added after the drop runs again once its run ends. A replica calls it for
   * the keys of the shards it lost: their new owner runs them.
   */
  public void drop(Predicate<K> which) {
    for (K key : running) {
      if (which.test(key)) {
        droppedWhileRunning.add(key);
      }
    }
    ready.keySet().removeIf(which);
    for (Map<String, TreeMap<Long, K>> lane : readyByLane) {
      lane.values()
          .removeIf(
              keys -> {
                keys.values().removeIf(which);
                return keys.isEmpty();
              });
    }
    delayed
        .entrySet()
        .removeIf(
            e -> {
              if (which.test(e.getKey())) {
                vertx.cancelTimer(e.getValue().timerId());
                return true;
              }
              return false;
            });
    addedWhileRunning.keySet().removeIf(which);
    failed.removeIf(
        key -> {
          if (which.test(key) && !running.contains(key)) {
            backoff.forget(key);
            return true;
          }
          return false;
        });
    depthSeen = ready.size();
    waitingSeen = delayed.size();
    if (shares != null) {
      reportHeld(knownClusters());
    }
  }

  /**
   * The known clusters changed (a member joined or left): with shares, the floors are looked at
   * again, and keys that a leaving cluster's floor held back may start.
   */
  public void clustersChanged() {
    dispatch();
  }

  /** Sizes as of the queue's last change; safe to call from any thread. */
  public Stats stats() {
    return new Stats(depthSeen, inFlightSeen, waitingSeen);
  }

  /** Keys waiting to run, running, and waiting for a retry. */
  public record Stats(int depth, int inFlight, int waitingForRetry) {}

  /** Keys waiting to run now (the queue depth). */
  public int depth() {
    return ready.size();
  }

  /** Runs holding a concurrency slot, over all lanes (runs past their deadline do not). */
  public int inFlight() {
    return running.size() - stuck.size();
  }

  /** Runs holding a concurrency slot of {@code lane}. */
  public int inFlight(WorkLane lane) {
    return laneInFlight[lane.ordinal()];
  }

  /** Runs past their deadline whose keys wait for them to settle. */
  public int stuck() {
    return stuck.size();
  }

  /** Keys waiting for a retry or a requested delay. */
  public int waitingForRetry() {
    return delayed.size();
  }

  public boolean isIdle() {
    return ready.isEmpty() && running.isEmpty() && delayed.isEmpty();
  }

  public int failures(K key) {
    return backoff.failures(key);
  }

  private void enqueue(K key, EnumSet<WorkKind> kinds) {
    if (running.contains(key)) {
      addedWhileRunning.merge(key, kinds, WorkQueue::union);
    } else {
      enqueueReady(key, kinds);
    }
  }

  /** Queues {@code key} to run, at the end of its lane unless it waits already. */
  private void enqueueReady(K key, Set<WorkKind> kinds) {
    Ready r = ready.get(key);
    if (r == null) {
      r = new Ready(nextSeq++, clusterOf(key), EnumSet.copyOf(kinds));
      ready.put(key, r);
      addToLane(r, key);
      return;
    }
    WorkLane before = r.lane();
    r.kinds.addAll(kinds);
    if (r.lane() != before) {
      removeFromLane(r, before);
      addToLane(r, key);
    }
  }

  private void addToLane(Ready r, K key) {
    readyByLane
        .get(r.lane().ordinal())
        .computeIfAbsent(r.cluster, c -> new TreeMap<>())
        .put(r.seq, key);
  }

  private void removeFromLane(Ready r, WorkLane lane) {
    Map<String, TreeMap<Long, K>> byCluster = readyByLane.get(lane.ordinal());
    TreeMap<Long, K> keys = byCluster.get(r.cluster);
    if (keys != null) {
      keys.remove(r.seq);
      if (keys.isEmpty()) {
        byCluster.remove(r.cluster);
      }
    }
  }

  private String clusterOf(K key) {
    return shares == null ? "" : Objects.requireNonNullElse(shares.clusterOf().apply(key), "");
  }

  /** The known clusters now; none without shares. */
  private Set<String> knownClusters() {
    if (shares == null) {
      return Set.of();
    }
    try {
      Set<String> known = shares.clusters().get();
      return known == null ? Set.of() : Set.copyOf(known);
    } catch (RuntimeException e) {
      log.warn("Queue could not list the known clusters; sharing no lane", e);
      return Set.of();
    }
  }

  /** Runs of {@code cluster} holding a slot of the lane {@code lane} (an ordinal). */
  private int inFlight(String cluster, int lane) {
    int[] counts = clusterInFlight.get(cluster);
    return counts == null ? 0 : counts[lane];
  }

  private void countRun(String cluster, WorkLane lane, int delta) {
    if (shares == null) {
      return;
    }
    int[] counts = clusterInFlight.computeIfAbsent(cluster, c -> new int[LANES.length]);
    counts[lane.ordinal()] += delta;
    if (Arrays.stream(counts).allMatch(n -> n == 0)) {
      clusterInFlight.remove(cluster);
    }
  }

  /** The lane's share among the known clusters, or null when it is not shared. */
  private FairShare.Lane shareOf(int lane, Set<String> known) {
    if (shares == null || known.size() <= 1) {
      return null;
    }
    return shares
        .share()
        .lane(laneMaxInFlight[lane], laneInFlight[lane], c -> inFlight(c, lane), known);
  }

  /**
   * The key queued first among lanes with a free slot whose cluster may take it, or null. Keys of a
   * cluster at its share are passed over and keep their place.
   */
  private K nextReady(Set<String> known) {
    Map.Entry<Long, K> first = null;
    for (WorkLane lane : LANES) {
      int i = lane.ordinal();
      if (laneInFlight[i] >= laneMaxInFlight[i]) {
        continue;
      }
      FairShare.Lane share = shareOf(i, known);
      for (Map.Entry<String, TreeMap<Long, K>> e : readyByLane.get(i).entrySet()) {
        Map.Entry<Long, K> head = e.getValue().firstEntry();
        if (head != null
            && (first == null || head.getKey() < first.getKey())
            && (share == null || share.mayStart(e.getKey()))) {
          first = head;
        }
      }
    }
    return first == null ? null : first.getValue();
  }

  /**
   * Tells the listener how many keys of each cluster wait only for its share: those of lanes with a
   * free slot that their cluster may not take. Logs a floor lowered because the known clusters'
   * floors do not fit in a lane.
   */
  private void reportHeld(Set<String> known) {
    Map<String, Integer> held = new HashMap<>();
    for (WorkLane lane : LANES) {
      int i = lane.ordinal();
      FairShare.Lane share = shareOf(i, known);
      if (share == null) {
        continue;
      }
      if (share.floor() != floorTold[i]) {
        floorTold[i] = share.floor();
        if (share.floor() < shares.share().floor()) {
          log.warn(
              "{} clusters share the {} slots of lane {}: each one's floor is lowered from {} to"
                  + " {}",
              known.size(),
              laneMaxInFlight[i],
              lane,
              shares.share().floor(),
              share.floor());
        }
      }
      if (paused || closed || share.free() < 1) {
        continue;
      }
      for (Map.Entry<String, TreeMap<Long, K>> e : readyByLane.get(i).entrySet()) {
        if (!share.mayStart(e.getKey())) {
          held.merge(e.getKey(), e.getValue().size(), Integer::sum);
        }
      }
    }
    if (held.equals(heldTold)) {
      return;
    }
    Set<String> clusters = new HashSet<>(heldTold.keySet());
    clusters.addAll(held.keySet());
    for (String c : clusters) {
      int now = held.getOrDefault(c, 0);
      if (now != heldTold.getOrDefault(c, 0)) {
        try {
          listener.onHeldForShare(c, now);
        } catch (RuntimeException e) {
          log.warn("Queue listener failed", e);
        }
      }
    }
    heldTold = Map.copyOf(held);
  }

  private static EnumSet<WorkKind> union(EnumSet<WorkKind> a, EnumSet<WorkKind> b) {
    EnumSet<WorkKind> u = EnumSet.copyOf(a);
    u.addAll(b);
    return u;
  }

  private void dispatch() {
    Set<String> known = knownClusters();
    while (!paused && !closed && inFlight() < maxInFlight && !ready.isEmpty()) {
      K key = nextReady(known);
      if (key == null) {
        break;
      }
      Ready next = ready.remove(key);
      removeFromLane(next, next.lane());
      WorkItem<K> item =
          new WorkItem<>(key, next.kinds, backoff.failures(key), failed.contains(key));
      Deferral deferral = check(item);
      if (deferral.defers()) {
        defer(item, deferral);
      } else {
        run(item);
      }
    }
    depthSeen = ready.size();
    inFlightSeen = inFlight();
    waitingSeen = delayed.size();
    if (shares != null) {
      reportHeld(known);
    }
  }

  /** The gate's answer; a gate that fails holds nothing back. */
  private Deferral check(WorkItem<K> item) {
    try {
      Deferral d = gate.check(item);
      return d == null ? Deferral.NONE : d;
    } catch (RuntimeException e) {
      log.warn("Queue gate failed for {}; running it now", item.key(), e);
      return Deferral.NONE;
    }
  }

  /** Parks work the gate deferred; it comes back through the gate when the wait ends. */
  private void defer(WorkItem<K> item, Deferral deferral) {
    try {
      listener.onDeferred(item.key(), deferral);
    } catch (RuntimeException e) {
      log.warn("Queue listener failed", e);
    }
    // Whole milliseconds, at least one: a timer never fires before the wait is over.
    long millis = Math.max(1, (deferral.delay().toNanos() + 999_999) / 1_000_000);
    addAfter(item.key(), item.kinds(), Duration.ofMillis(millis));
  }

  private void run(WorkItem<K> item) {
    K key = item.key();
    running.add(key);
    laneInFlight[item.lane().ordinal()]++;
    countRun(clusterOf(key), item.lane(), 1);
    long start = System.nanoTime();
    deadlineTimers.put(
        key, vertx.setTimer(runDeadline.toMillis(), id -> pastDeadline(item, id, start)));
    Futures.call(() -> handler.apply(item))
        .onComplete(
            ar -> {
              WorkResult r;
              if (ar.succeeded() && ar.result() != null) {
                r = ar.result();
              } else {
                log.warn("Work on {} failed unexpectedly", item.key(), ar.cause());
                r = WorkResult.retry(item.kinds());
              }
              finish(item, r, System.nanoTime() - start);
            });
  }

  /**
   * The run of {@code item} passed its deadline: frees its slot and asks for the key again, which
   * runs once the abandoned run settles (the key stays in {@code running}).
   */
  private void pastDeadline(WorkItem<K> item, long timerId, long start) {
    K key = item.key();
    Long current = deadlineTimers.get(key);
    if (current == null || current != timerId || closed) {
      return;
    }
    deadlineTimers.remove(key);
    stuck.add(key);
    laneInFlight[item.lane().ordinal()]--;
    countRun(clusterOf(key), item.lane(), -1);
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    log.debug(
        "Work on {} still not done after {}; its slot is freed and it runs again once it ends",
        key,
        elapsed);
    try {
      listener.onStuck(key, elapsed);
    } catch (RuntimeException e) {
      log.warn("Queue listener failed", e);
    }
    if (!droppedWhileRunning.contains(key)) {
      addedWhileRunning.merge(key, EnumSet.copyOf(item.kinds()), WorkQueue::union);
    }
    dispatch();
  }

  private void finish(WorkItem<K> item, WorkResult result, long nanos) {
    K key = item.key();
    running.remove(key);
    if (!stuck.remove(key)) {
      laneInFlight[item.lane().ordinal()]--;
      countRun(clusterOf(key), item.lane(), -1);
    }
    Long timer = deadlineTimers.remove(key);
    if (timer != null) {
      vertx.cancelTimer(timer);
    }
    try {
      listener.onDone(item, result, nanos);
    } catch (RuntimeException e) {
      log.warn("Queue listener failed", e);
    }
    if (droppedWhileRunning.remove(key)) {
      backoff.forget(key);
      failed.remove(key);
    } else {
      scheduleNext(item, result);
    }
    EnumSet<WorkKind> again = addedWhileRunning.remove(key);
    if (again != null && !closed) {
      Delayed waiting = delayed.remove(key);
      if (waiting != null) {
        vertx.cancelTimer(waiting.timerId());
        again.addAll(waiting.kinds());
      }
      enqueueReady(key, again);
    }
    dispatch();
  }

  /** What comes after a run that was not dropped: its retry, or none. */
  private void scheduleNext(WorkItem<K> item, WorkResult result) {
    K key = item.key();
    switch (result.outcome()) {
      case SUCCESS, PERMANENT -> {
        backoff.forget(key);
        failed.remove(key);
      }
      case RETRY -> {
        failed.add(key);
        Duration delay = backoff.next(key);
        listener.onRetryScheduled(key, delay);
        addAfter(key, retryKinds(item, result), delay);
      }
      case RETRY_AFTER -> {
        failed.add(key);
        listener.onRetryScheduled(key, result.delay());
        addAfter(key, retryKinds(item, result), result.delay());
      }
      case FENCED -> addAfter(key, retryKinds(item, result), result.delay());
    }
  }

  private Set<WorkKind> retryKinds(WorkItem<K> item, WorkResult result) {
    return result.retryKinds().isEmpty() ? item.kinds() : result.retryKinds();
  }
}
