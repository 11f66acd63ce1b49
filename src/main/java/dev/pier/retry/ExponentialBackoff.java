package dev.pier.retry;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-key exponential backoff (client-go's ItemExponentialFailureRateLimiter): the n-th consecutive
 * failure of a key waits {@code min * 2^(n-1)}, capped at {@code max}. Not thread-safe: the work
 * queue uses it from its own context only.
 */
public final class ExponentialBackoff<K> {
  public static final Duration DEFAULT_MIN = Duration.ofSeconds(5);
  public static final Duration DEFAULT_MAX = Duration.ofSeconds(300);

  private final long minMillis;
  private final long maxMillis;
  private final Map<K, Integer> failures = new HashMap<>();

  public ExponentialBackoff(Duration min, Duration max) {
    if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
      throw new IllegalArgumentException("backoff needs 0 < min <= max, got " + min + ", " + max);
    }
    this.minMillis = min.toMillis();
    this.maxMillis = max.toMillis();
  }

  /** Records a failure of {@code key} and returns how long to wait before retrying it. */
  public Duration next(K key) {
    int n = failures.merge(key, 1, Integer::sum);
    return Duration.ofMillis(delayMillis(n));
  }

  /** The delay after {@code n} consecutive failures. */
  long delayMillis(int n) {
    return delayMillis(minMillis, maxMillis, n);
  }

  /**
   * The backoff formula on its own, for callers that count attempts themselves: {@code min *
   * 2^(n-1)} after {@code n >= 1} consecutive failures, capped at {@code max}.
   */
  public static Duration delay(Duration min, Duration max, int n) {
    return Duration.ofMillis(delayMillis(min.toMillis(), max.toMillis(), n));
  }

  private static long delayMillis(long minMillis, long maxMillis, int n) {
    if (minMillis <= 0) {
      return 0;
    }
    int shift = Math.min(Math.max(n, 1) - 1, 62);
    long factor = 1L << shift;
    if (factor > maxMillis / minMillis) {
      return maxMillis;
    }
    return Math.min(maxMillis, minMillis * factor);
  }

  /** Forgets the key's failures (after a success, or when the key goes away). */
  public void forget(K key) {
    failures.remove(key);
  }

  public int failures(K key) {
    return failures.getOrDefault(key, 0);
  }
}
