package dev.pier.reconcile;

import dev.pier.model.ServiceKey;
import dev.pier.queue.Deferral;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkQueue;
import dev.pier.retry.MinIntervalGate;
import dev.pier.retry.TokenBucket;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Which runs of the reconcile queue wait, so that success is rate-limited too. Never held back: a
 * Service's first ensure in this process and a run asked for by a change of the spec (a cold start
 * of 10,000 Services, or a port added, runs at once), node sync's host updates, verification and
 * DNS-only runs. Held back:
 *
 * <ul>
 *   <li>a retry of provider work (a run after a failed one): by its cluster's token bucket;
 *   <li>a full ensure asked for by a change that is not one of the spec (annotations): by the
 *       per-Service minimum interval between such ensures, then by the token bucket.
 * </ul>
 *
 * <p>Each cluster has a bucket of its own, as it has a provider of its own: a member whose Services
 * keep failing spends its own tokens, never another cluster's.
 *
 * <p>A held-back run is deferred, not dropped: it runs when its wait ends, with the Service as it
 * is then. A bucket reservation belongs to its key, so a key asked for again while it waits does
 * not take a second token. Runs on the reconcile verticle's context.
 */
public final class ReconcileThrottle implements WorkQueue.Gate<ServiceKey> {
  /** The label of a run held back by the per-Service minimum interval. */
  public static final String MIN_INTERVAL = "min_interval";

  /** The label of a run held back by the overall rate limit. */
  public static final String RATE_LIMIT = "rate_limit";

  private final Supplier<TokenBucket> newBucket;
  private final Map<String, TokenBucket> buckets = new HashMap<>();
  private final MinIntervalGate<ServiceKey> interval;
  private final Predicate<ServiceKey> ensuredBefore;
  private final LongSupplier nanoClock;
  private final Set<ServiceKey> specChanged = new HashSet<>();
  private final Map<ServiceKey, Long> reservedUntil = new HashMap<>();

  /**
   * @param newBucket makes the rate limit of one cluster, or null for none
   * @param minInterval between two full ensures of one Service not caused by a spec change; zero:
   *     none
   * @param ensuredBefore whether this process ensured the key's load balancer already
   */
  public ReconcileThrottle(
      Supplier<TokenBucket> newBucket,
      Duration minInterval,
      Predicate<ServiceKey> ensuredBefore,
      LongSupplier nanoClock) {
    this.newBucket = newBucket;
    this.interval = new MinIntervalGate<>(minInterval, nanoClock);
    this.ensuredBefore = ensuredBefore;
    this.nanoClock = nanoClock;
  }

  /** The next full run of {@code key} is for a change of its spec (or its creation, deletion). */
  public void specChanged(ServiceKey key) {
    specChanged.add(key);
  }

  @Override
  public Deferral check(WorkItem<ServiceKey> item) {
    ServiceKey key = item.key();
    Set<WorkKind> kinds = item.kinds();
    boolean full = kinds.contains(WorkKind.RECONCILE);
    if (full && specChanged.remove(key)) {
      reservedUntil.remove(key);
      return Deferral.NONE;
    }
    boolean provider =
        full || kinds.contains(WorkKind.UPDATE_HOSTS) || kinds.contains(WorkKind.VERIFY);
    if (!provider) {
      return Deferral.NONE;
    }
    if (item.retry()) {
      return rate(key);
    }
    if (!full || !ensuredBefore.test(key)) {
      return Deferral.NONE;
    }
    Deferral wait = Deferral.of(interval.waitFor(key), MIN_INTERVAL);
    if (wait.defers()) {
      return wait;
    }
    Deferral rate = rate(key);
    if (!rate.defers()) {
      interval.passed(key);
    }
    return rate;
  }

  /** Forgets the rate limit of a cluster that left. */
  public void forget(String cluster) {
    buckets.remove(cluster);
  }

  /**
   * A token of the bucket of {@code key}'s cluster: now, or the one it reserved, or a new
   * reservation.
   */
  private Deferral rate(ServiceKey key) {
    if (newBucket == null) {
      return Deferral.NONE;
    }
    Long until = reservedUntil.get(key);
    if (until != null) {
      long left = until - nanoClock.getAsLong();
      if (left > 0) {
        return Deferral.of(Duration.ofNanos(left), RATE_LIMIT);
      }
      reservedUntil.remove(key);
      return Deferral.NONE;
    }
    Duration wait = buckets.computeIfAbsent(key.cluster(), c -> newBucket.get()).reserve();
    if (!wait.isZero()) {
      reservedUntil.put(key, nanoClock.getAsLong() + wait.toNanos());
    }
    return Deferral.of(wait, RATE_LIMIT);
  }
}
