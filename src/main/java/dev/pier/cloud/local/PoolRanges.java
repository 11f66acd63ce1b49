package dev.pier.cloud.local;

import dev.pier.util.Ip;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The configured address pools as ranges, in the order given, checked as they are parsed: at least
 * one pool, names unique, every pool with addresses, no two ranges overlapping. Immutable.
 */
final class PoolRanges {

  private final List<PoolRange> ranges;
  private final List<PoolSpec> pools;
  private final String description;

  private PoolRanges(List<PoolRange> ranges, String description) {
    this.ranges = ranges;
    this.description = description;
    List<PoolSpec> distinct = new ArrayList<>();
    for (PoolRange range : ranges) {
      if (!distinct.contains(range.pool())) {
        distinct.add(range.pool());
      }
    }
    this.pools = List.copyOf(distinct);
  }

  /**
   * Parses the configured pools.
   *
   * @throws IllegalArgumentException naming the bad value, when a pool is malformed, empty, or
   *     overlaps another, or two pools have the same name
   */
  static PoolRanges parse(List<PoolSpec> pools) {
    if (pools == null || pools.isEmpty()) {
      throw new IllegalArgumentException("at least one address pool is required");
    }
    List<PoolRange> out = new ArrayList<>(pools.size());
    Set<String> names = new HashSet<>();
    for (PoolSpec pool : pools) {
      if (pool.name() != null && !names.add(pool.name())) {
        throw new IllegalArgumentException("two address pools are named " + pool.name());
      }
      if (pool.addresses().isEmpty()) {
        throw new IllegalArgumentException("address pool " + pool.label() + " has no addresses");
      }
      for (String raw : pool.addresses()) {
        if (raw == null || raw.isBlank()) {
          throw new IllegalArgumentException("address pool must not be empty");
        }
        PoolRange range = PoolRange.parse(raw.trim(), pool);
        for (PoolRange other : out) {
          if (range.overlaps(other)) {
            throw new IllegalArgumentException(
                "address pool " + range.text() + " overlaps address pool " + other.text());
          }
        }
        out.add(range);
      }
    }
    return new PoolRanges(List.copyOf(out), describe(pools));
  }

  /** Pools for messages: {@code [127.240.0.0/16, {name: a, addresses: [...]}]}. */
  static String describe(List<PoolSpec> pools) {
    return "[" + String.join(", ", pools.stream().map(PoolSpec::toString).toList()) + "]";
  }

  /** The pools as configured, for messages. */
  String description() {
    return description;
  }

  /** Every range, in the order configured. */
  List<PoolRange> all() {
    return ranges;
  }

  PoolRange get(int index) {
    return ranges.get(index);
  }

  /** The index of the range holding {@code ip}, or -1. */
  int indexOf(Ip ip) {
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.get(i).contains(ip)) {
        return i;
      }
    }
    return -1;
  }

  /** The distinct configured pools, in order. */
  List<PoolSpec> pools() {
    return pools;
  }

  /**
   * Whether a pool the namespace may use (the named one, if {@code poolName} is not null) holds
   * addresses of the family ({@code v6}: IPv6, else IPv4).
   */
  boolean hasFamily(String namespace, String poolName, boolean v6) {
    for (PoolRange range : ranges) {
      if (range.v6() == v6 && range.admits(namespace, poolName)) {
        return true;
      }
    }
    return false;
  }
}
