package dev.pier.shards;

import java.util.Map;
import java.util.Set;

/**
 * Who held each shard's Lease, and which reply keys each replica published, as this replica last
 * read Pier's Leases; and this replica's own identity and key. An answer on a cluster-wide address
 * is believed only when it is sealed by the holder of the shard it speaks for: a wrong or missing
 * identity or seal, or a shard whose holder is not known, makes it unknown, never data. Replaced
 * whole on each read: safe to read from any thread.
 */
public final class ShardHolders {
  private record View(Map<Integer, String> holders, Map<String, Set<String>> keys) {}

  private final String identity;
  private final String key;
  private volatile View view = new View(Map.of(), Map.of());

  /**
   * @param identity what this replica writes as the holder of the shard Leases it holds
   * @param key the reply key its own Lease publishes
   */
  public ShardHolders(String identity, String key) {
    this.identity = identity;
    this.key = key;
  }

  public String identity() {
    return identity;
  }

  /** The reply key this replica publishes in its Lease. */
  public String key() {
    return key;
  }

  /** One complete read: each shard's holder ("" when free), each identity's published keys. */
  public void update(Map<Integer, String> holders, Map<String, Set<String>> keys) {
    view = new View(Map.copyOf(holders), Map.copyOf(keys));
  }

  /** This replica's seal on its answer {@code text} for {@code shard} to {@code nonce}. */
  public String seal(String nonce, int shard, String text) {
    return ReplySeal.seal(key, nonce, shard, text);
  }

  /**
   * Whether the answer comes from the replica that held {@code shard} at the last read: {@code
   * from} is that holder, and {@code seal} was made with a key it published.
   */
  public boolean fromHolder(int shard, String from, String nonce, String text, String seal) {
    View v = view;
    String holder = v.holders().get(shard);
    if (holder == null || holder.isEmpty() || !holder.equals(from)) {
      return false;
    }
    for (String k : v.keys().getOrDefault(from, Set.of())) {
      if (ReplySeal.verify(k, nonce, shard, text, seal)) {
        return true;
      }
    }
    return false;
  }
}
