package dev.pier.shards;

import dev.pier.model.ServiceKey;
import java.nio.charset.StandardCharsets;

/**
 * Divides the work into a fixed number of shards: a Service key's shard is a hash of the key, the
 * same in every replica and every release (the hash is written here, not taken from the JDK's
 * {@code hashCode}, whose value no contract fixes for anything but {@code String}).
 */
public record ShardMap(int count) {
  /** Shard 0 also carries the cluster-wide jobs (docs/scale-out.md). */
  public static final int CLUSTER_WIDE = 0;

  public ShardMap {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1: " + count);
    }
  }

  /** The shard a Service belongs to. */
  public int of(ServiceKey key) {
    return of(key.toString());
  }

  /**
   * The shard of a federation member's work (its copies, its caches, the reads of its copies): the
   * Lease of that shard fences it, so a member adds no Lease of its own.
   */
  public int ofMember(String member) {
    return of("member:" + member);
  }

  /** The shard a name belongs to (a Service key's text, a member cluster's name). */
  public int of(String name) {
    return (int) Long.remainderUnsigned(hash(name), count);
  }

  /** FNV-1a over the UTF-8 bytes, then a finalizer that spreads the low bits. */
  static long hash(String text) {
    long h = 0xcbf29ce484222325L;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return mix(h);
  }

  /** The finalizer of SplitMix64. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
