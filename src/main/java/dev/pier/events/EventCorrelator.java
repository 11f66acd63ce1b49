package dev.pier.events;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decides what happens to an Event, as client-go's event correlator does: a repeat of the same
 * event (object, type, reason, message) within the aggregation window bumps the count of the
 * existing Event instead of creating one; a per-object token bucket (burst, then one per refill
 * interval) drops event storms. Pure logic with an explicit clock; not thread-safe.
 */
public final class EventCorrelator {
  public static final int DEFAULT_CACHE_SIZE = 4096;
  public static final long DEFAULT_WINDOW_MILLIS = 10 * 60 * 1000L;
  public static final int DEFAULT_BURST = 25;
  public static final long DEFAULT_REFILL_MILLIS = 5 * 60 * 1000L;

  /** What to send: a new Event, or a count update of an earlier one. */
  public record Decision(Action action, String eventName, int count, long firstMillis) {}

  public enum Action {
    CREATE,
    UPDATE_COUNT,
    DROP
  }

  private record Seen(String eventName, int count, long firstMillis, long lastMillis) {}

  private static final class Bucket {
    double tokens;
    long lastMillis;
  }

  private final int cacheSize;
  private final long windowMillis;
  private final int burst;
  private final long refillMillis;
  private final LinkedHashMap<String, Seen> seen;
  private final Map<String, Bucket> buckets = new HashMap<>();

  public EventCorrelator() {
    this(DEFAULT_CACHE_SIZE, DEFAULT_WINDOW_MILLIS, DEFAULT_BURST, DEFAULT_REFILL_MILLIS);
  }

  public EventCorrelator(int cacheSize, long windowMillis, int burst, long refillMillis) {
    this.cacheSize = cacheSize;
    this.windowMillis = windowMillis;
    this.burst = burst;
    this.refillMillis = refillMillis;
    this.seen =
        new LinkedHashMap<>(64, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
            return size() > EventCorrelator.this.cacheSize;
          }
        };
  }

  /** Decides for one event at {@code now}; {@code newName} names it if it is created. */
  public Decision decide(
      ObjectRef ref, String type, String reason, String message, String newName, long now) {
    if (!takeToken(ref.uid() == null ? ref.namespace() + "/" + ref.name() : ref.uid(), now)) {
      return new Decision(Action.DROP, null, 0, 0);
    }
    String key = ref.uid() + '\u0000' + type + '\u0000' + reason + '\u0000' + message;
    Seen previous = seen.get(key);
    if (previous != null && now - previous.lastMillis() <= windowMillis) {
      Seen next = new Seen(previous.eventName(), previous.count() + 1, previous.firstMillis(), now);
      seen.put(key, next);
      return new Decision(Action.UPDATE_COUNT, next.eventName(), next.count(), next.firstMillis());
    }
    seen.put(key, new Seen(newName, 1, now, now));
    if (buckets.size() > cacheSize) {
      buckets.clear();
    }
    return new Decision(Action.CREATE, newName, 1, now);
  }

  /** Forgets an aggregated event whose update failed because the Event no longer exists. */
  public void forget(ObjectRef ref, String type, String reason, String message) {
    seen.remove(ref.uid() + '\u0000' + type + '\u0000' + reason + '\u0000' + message);
  }

  private boolean takeToken(String object, long now) {
    Bucket b = buckets.get(object);
    if (b == null) {
      b = new Bucket();
      b.tokens = burst;
      b.lastMillis = now;
      buckets.put(object, b);
    }
    b.tokens = Math.min(burst, b.tokens + (double) (now - b.lastMillis) / refillMillis);
    b.lastMillis = now;
    if (b.tokens < 1) {
      return false;
    }
    b.tokens -= 1;
    return true;
  }
}
