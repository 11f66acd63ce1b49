package dev.pier.dns;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Spreads the data-path probes over their period instead of sending them all at once: the period is
 * cut into slots of about {@link #TICK} (at most {@link #MAX_SLOTS}), each probed address is given
 * the slot with the fewest addresses, and a tick probes one slot's addresses. Each address is still
 * probed once a period. Without it, 1,000 Services in two members opened 2,000 connections in the
 * same instant every period (docs/benchmarks.md, "Data-path probes"), which costs as many file
 * descriptors at once and looks like a burst of connections to the load balancers.
 *
 * @param <T> what is probed (a Service's address)
 */
public final class ProbeSlots<T> {
  /** About how long one slot lasts. */
  public static final Duration TICK = Duration.ofMillis(100);

  public static final int MAX_SLOTS = 100;

  private final List<Set<T>> slots = new ArrayList<>();
  private final Map<T, Integer> slotOf = new HashMap<>();

  public ProbeSlots(Duration period) {
    long n = Math.max(1, Math.min(MAX_SLOTS, period.toMillis() / TICK.toMillis()));
    for (int i = 0; i < n; i++) {
      slots.add(new LinkedHashSet<>());
    }
  }

  public int slots() {
    return slots.size();
  }

  /** How often a slot's turn comes: the period over the slots, at least 1 ms. */
  public long tickMillis(Duration period) {
    return Math.max(1, period.toMillis() / slots.size());
  }

  /**
   * Gives {@code item} the slot with the fewest items (the lowest such slot), unless it has one.
   *
   * @return its slot
   */
  public int add(T item) {
    Integer had = slotOf.get(item);
    if (had != null) {
      return had;
    }
    int best = 0;
    for (int i = 1; i < slots.size(); i++) {
      if (slots.get(i).size() < slots.get(best).size()) {
        best = i;
      }
    }
    slots.get(best).add(item);
    slotOf.put(item, best);
    return best;
  }

  /** {@code item} is no longer probed. */
  public void remove(T item) {
    Integer slot = slotOf.remove(item);
    if (slot != null) {
      slots.get(slot).remove(item);
    }
  }

  /** The items whose turn is {@code tick} (counted from 0, endlessly), a copy. */
  public List<T> due(long tick) {
    return List.copyOf(slots.get((int) (tick % slots.size())));
  }

  /** Items in {@code slot}, for tests. */
  int load(int slot) {
    return slots.get(slot).size();
  }
}
