package dev.pier.reconcile;

import dev.pier.retry.ExponentialBackoff;
import java.time.Duration;

/** Options of the reconcile verticle, with defaults as constants. */
public final class ReconcileOptions {
  public static final int DEFAULT_CONCURRENCY = 200;

  private int concurrency = DEFAULT_CONCURRENCY;
  private Duration minRetryDelay = ExponentialBackoff.DEFAULT_MIN;
  private Duration maxRetryDelay = ExponentialBackoff.DEFAULT_MAX;

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
}
