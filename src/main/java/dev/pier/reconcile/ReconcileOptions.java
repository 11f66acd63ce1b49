package dev.pier.reconcile;

import dev.pier.retry.ExponentialBackoff;
import java.time.Duration;

/** Options of the reconcile verticle, with defaults as constants. */
public final class ReconcileOptions {
  public static final int DEFAULT_CONCURRENCY = 200;

  /**
   * Runs each cluster can always have in flight in a lane, however the other clusters' runs behave:
   * with the host and 9 members, a lone busy cluster uses 164 of the 200 slots and leaves 4 to each
   * of the other 9.
   */
  public static final int DEFAULT_CLUSTER_FLOOR = 4;

  /**
   * Node-sync-only host updates in flight, apart from {@link #DEFAULT_CONCURRENCY}: a node sync
   * takes about provider latency x load balancers / this, 10,000 x 100 ms / 500 = 2 s.
   */
  public static final int DEFAULT_NODE_SYNC_CONCURRENCY = 500;

  public static final Duration DEFAULT_VERIFY_PERIOD = Duration.ofMinutes(10);

  /** Longest run of one key: above the longest deadline of any one call a run makes. */
  public static final Duration DEFAULT_RUN_DEADLINE = Duration.ofMinutes(10);

  /**
   * Retries and ensures not caused by a spec change, a second, per cluster over its Services: far
   * below a cold start's pace (which it never slows), far above what a healthy cluster needs.
   */
  public static final double DEFAULT_RATE_LIMIT = 10;

  /** Such runs that may go at once before the rate limit bites: a retry storm's first wave. */
  public static final int DEFAULT_RATE_BURST = 100;

  /**
   * Shortest time between two full ensures of one Service that are not caused by a spec change: an
   * annotation stamped every second costs one ensure per 30 s, and a real annotation edit waits at
   * most this long (the first after a quiet spell goes at once).
   */
  public static final Duration DEFAULT_MIN_ENSURE_INTERVAL = Duration.ofSeconds(30);

  private int concurrency = DEFAULT_CONCURRENCY;
  private int nodeSyncConcurrency = DEFAULT_NODE_SYNC_CONCURRENCY;
  private int clusterFloor = DEFAULT_CLUSTER_FLOOR;
  private Duration minRetryDelay = ExponentialBackoff.DEFAULT_MIN;
  private Duration maxRetryDelay = ExponentialBackoff.DEFAULT_MAX;
  private Duration verifyPeriod = DEFAULT_VERIFY_PERIOD;
  private Duration runDeadline = DEFAULT_RUN_DEADLINE;
  private double rateLimit = DEFAULT_RATE_LIMIT;
  private int rateBurst = DEFAULT_RATE_BURST;
  private Duration minEnsureInterval = DEFAULT_MIN_ENSURE_INTERVAL;

  /** Keys reconciled at the same time (node-sync-only host updates aside). */
  public int getConcurrency() {
    return concurrency;
  }

  public ReconcileOptions setConcurrency(int concurrency) {
    this.concurrency = concurrency;
    return this;
  }

  /**
   * Runs each cluster can always have in flight in each lane ({@link #getConcurrency()}, {@link
   * #getNodeSyncConcurrency()}), whatever the other clusters' runs do; lowered to lane / clusters,
   * at least 1, when the clusters' floors do not fit in a lane (see {@code queue.FairShare}).
   */
  public int getClusterFloor() {
    return clusterFloor;
  }

  public ReconcileOptions setClusterFloor(int clusterFloor) {
    this.clusterFloor = clusterFloor;
    return this;
  }

  /**
   * Keys whose run only updates their load balancer's hosts (node sync) running at the same time,
   * apart from and on top of {@link #getConcurrency()}.
   */
  public int getNodeSyncConcurrency() {
    return nodeSyncConcurrency;
  }

  public ReconcileOptions setNodeSyncConcurrency(int nodeSyncConcurrency) {
    this.nodeSyncConcurrency = nodeSyncConcurrency;
    return this;
  }

  public Duration getMinRetryDelay() {
    return minRetryDelay;
  }

  public ReconcileOptions setMinRetryDelay(Duration minRetryDelay) {
    this.minRetryDelay = minRetryDelay;
    return this;
  }

  public Duration getMaxRetryDelay() {
    return maxRetryDelay;
  }

  public ReconcileOptions setMaxRetryDelay(Duration maxRetryDelay) {
    this.maxRetryDelay = maxRetryDelay;
    return this;
  }

  /** How long one round of verifying every served load balancer takes; zero: no verification. */
  public Duration getVerifyPeriod() {
    return verifyPeriod;
  }

  public ReconcileOptions setVerifyPeriod(Duration verifyPeriod) {
    this.verifyPeriod = verifyPeriod;
    return this;
  }

  /**
   * Longest run of one key: a run past it frees its concurrency slot and the key is retried once
   * the run ends (a key never runs twice at once).
   */
  public Duration getRunDeadline() {
    return runDeadline;
  }

  public ReconcileOptions setRunDeadline(Duration runDeadline) {
    this.runDeadline = runDeadline;
    return this;
  }

  /**
   * Retries and ensures not caused by a spec change, a second, per cluster over its Services; zero:
   * no limit.
   */
  public double getRateLimit() {
    return rateLimit;
  }

  public ReconcileOptions setRateLimit(double rateLimit) {
    this.rateLimit = rateLimit;
    return this;
  }

  /** How many of those may go at once before the rate limit bites. */
  public int getRateBurst() {
    return rateBurst;
  }

  public ReconcileOptions setRateBurst(int rateBurst) {
    this.rateBurst = rateBurst;
    return this;
  }

  /**
   * Shortest time between two full ensures of one Service not caused by a spec change; zero: none.
   */
  public Duration getMinEnsureInterval() {
    return minEnsureInterval;
  }

  public ReconcileOptions setMinEnsureInterval(Duration minEnsureInterval) {
    this.minEnsureInterval = minEnsureInterval;
    return this;
  }
}
