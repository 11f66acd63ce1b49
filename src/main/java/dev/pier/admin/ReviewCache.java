package dev.pier.admin;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Answers of reviews by key, each for {@code ttl}, at most {@code maxEntries}: when full, the least
 * recently used entry goes, never the whole cache, so a flood of new keys evicts only the stalest.
 * Not thread-safe: used from one Vert.x context.
 */
final class ReviewCache {
  private record Entry(int status, long expiresNanos) {}

  private final Duration ttl;
  private final LongSupplier nanos;
  private final Map<String, Entry> entries;

  /**
   * @param maxEntries entries kept at most, at least 1
   * @param ttl how long an answer holds
   * @param nanos a monotonic clock in nanoseconds
   */
  ReviewCache(int maxEntries, Duration ttl, LongSupplier nanos) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("a review cache needs room for one entry");
    }
    this.ttl = ttl;
    this.nanos = nanos;
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > maxEntries;
          }
        };
  }

  /** The answer for {@code key} while it holds, else null (an expired one is dropped). */
  Integer get(String key) {
    Entry e = entries.get(key);
    if (e == null) {
      return null;
    }
    if (nanos.getAsLong() - e.expiresNanos() >= 0) {
      entries.remove(key);
      return null;
    }
    return e.status();
  }

  void put(String key, int status) {
    entries.put(key, new Entry(status, nanos.getAsLong() + ttl.toNanos()));
  }

  void remove(String key) {
    entries.remove(key);
  }

  int size() {
    return entries.size();
  }
}
