package dev.pier.retry;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Per key, a minimum interval between two passes: {@link #waitFor} says how long a key must still
 * wait, {@link #passed} records that it went. Keys whose last pass is older than the interval are
 * equivalent to keys never seen, and are dropped as the map grows. Not thread-safe: used from one
 * Vert.x context.
 */
public final class MinIntervalGate<K> {
  private final long intervalNanos;
  private final LongSupplier nanoClock;
  private final Map<K, Long> lastPass = new HashMap<>();
  private int pruneAt = 1024;

  /**
   * @param interval the minimum time between two passes of one key; zero: no limit
   * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
   */
  public MinIntervalGate(Duration interval, LongSupplier nanoClock) {
    if (interval.isNegative()) {
      throw new IllegalArgumentException("interval must not be negative, got " + interval);
    }
    this.intervalNanos = interval.toNanos();
    this.nanoClock = nanoClock;
  }

  /** How long {@code key} must still wait before it may pass; zero when it may pass now. */
  public Duration waitFor(K key) {
    Long last = lastPass.get(key);
    if (last == null || intervalNanos == 0) {
      return Duration.ZERO;
    }
    long left = last + intervalNanos - nanoClock.getAsLong();
    return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  /** Records that {@code key} passed now. */
  public void passed(K key) {
    if (intervalNanos == 0) {
      return;
    }
    lastPass.put(key, nanoClock.getAsLong());
    if (lastPass.size() >= pruneAt) {
      prune();
    }
  }

  /** Keys the gate remembers (those that passed within the interval, and some older ones). */
  public int size() {
    return lastPass.size();
  }

  private void prune() {
    long now = nanoClock.getAsLong();
    for (Iterator<Long> it = lastPass.values().iterator(); it.hasNext(); ) {
      if (now - it.next() >= intervalNanos) {
        it.remove();
      }
    }
    pruneAt = Math.max(1024, lastPass.size() * 2);
  }
}
