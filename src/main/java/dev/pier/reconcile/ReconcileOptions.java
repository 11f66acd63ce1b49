package dev.pier.reconcile;

import dev.pier.retry.ExponentialBackoff;
import java.time.Duration;

/** Options of the reconcile verticle, with defaults as constants. */
public final class ReconcileOptions {
  public static final int DEFAULT_CONCURRENCY = 200;
  public static final Duration DEFAULT_VERIFY_PERIOD = Duration.ofMinutes(10);

  /** Longest run of one key: above the longest deadline of any one call a run makes. */
  public static final Duration DEFAULT_RUN_DEADLINE = Duration.ofMinutes(10);

  private int concurrency = DEFAULT_CONCURRENCY;
  private Duration minRetryDelay = ExponentialBackoff.DEFAULT_MIN;
  private Duration maxRetryDelay = ExponentialBackoff.DEFAULT_MAX;
  private Duration verifyPeriod = DEFAULT_VERIFY_PERIOD;
  private Duration runDeadline = DEFAULT_RUN_DEADLINE;

  /** Keys reconciled at the same time. */
  public int getConcurrency() {
    return concurrency;
  }

  public ReconcileOptions setConcurrency(int concurrency) {
    this.concurrency = concurrency;
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
}
