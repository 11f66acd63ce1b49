package dev.pier.shards;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What this replica saw of a set of Leases, read again and again: when each last changed, by the
 * rule of client-go's leader election. No other machine's clock is trusted: a Lease's renewTime is
 * not read; a Lease changed when its resourceVersion did between two reads, and is unchanged since
 * this replica first read it as it is now. Pure: the clock is the caller's.
 *
 * @param <K> what names a Lease (a shard's number, a Lease's name)
 */
public final class LeaseSightings<K> {
  /** A Lease as read: its holder ("" when free) and resourceVersion. */
  public record Read(String holder, String version) {
    /** No such Lease. */
    public static final Read MISSING = new Read("", "");
  }

  /** A Lease as last read, since when it is so, and whether this replica saw it change. */
  private record Seen(Read read, long since, boolean changed) {}

  private final Map<K, Seen> seen = new HashMap<>();

  /**
   * Records one complete read at {@code now}. A key read as {@link Read#MISSING} is followed as a
   * missing Lease; a key absent from {@code reads} is forgotten once it was seen missing.
   */
  public void update(Map<K, Read> reads, long now) {
    Set<K> keys = new HashSet<>(seen.keySet());
    keys.addAll(reads.keySet());
    for (K key : keys) {
      Read read = reads.get(key);
      Seen before = seen.get(key);
      if (read == null) {
        if (before == null || before.read().equals(Read.MISSING)) {
          seen.remove(key);
          continue;
        }
        read = Read.MISSING;
      }
      if (before == null) {
        seen.put(key, new Seen(read, now, false));
      } else if (!before.read().version().equals(read.version())) {
        seen.put(key, new Seen(read, now, true));
      }
    }
  }

  /**
   * The holder of each Lease this replica saw change within {@code within} of {@code now}, and that
   * is held: its holder renewed it lately. A Lease only read once, however fresh its renewTime says
   * it is, has not been seen renewed.
   */
  public Map<K, String> renewedWithin(Duration within, long now) {
    Map<K, String> renewed = new HashMap<>();
    seen.forEach(
        (key, s) -> {
          if (s.changed() && !s.read().holder().isEmpty() && now - s.since() < within.toNanos()) {
            renewed.put(key, s.read().holder());
          }
        });
    return renewed;
  }

  /**
   * The Leases (or missing Leases) unchanged for at least {@code duration} as this replica saw
   * them: nobody renewed, took or created them for that long.
   */
  public Set<K> unchangedFor(Duration duration, long now) {
    Set<K> unchanged = new HashSet<>();
    seen.forEach(
        (key, s) -> {
          if (now - s.since() >= duration.toNanos()) {
            unchanged.add(key);
          }
        });
    return unchanged;
  }

  /** The Lease of {@code key} as last read; null when never read or forgotten. */
  public Read last(K key) {
    Seen s = seen.get(key);
    return s == null ? null : s.read();
  }
}
