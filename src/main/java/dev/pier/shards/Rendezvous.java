package dev.pier.shards;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which replica should own a shard: rendezvous (highest random weight) hashing over the live
 * replicas' ids. When a replica joins or leaves, only the shards it wins or held move; every
 * replica computes the same answer from the same member list, without talking.
 */
public final class Rendezvous {
  private Rendezvous() {}

  /** The owner of {@code shard} among {@code replicas}; null when there is none. */
  public static String owner(int shard, Collection<String> replicas) {
    String best = null;
    long bestScore = 0;
    for (String replica : replicas) {
      long score = score(replica, shard);
      if (best == null
          || Long.compareUnsigned(score, bestScore) > 0
          || (score == bestScore && replica.compareTo(best) < 0)) {
        best = replica;
        bestScore = score;
      }
    }
    return best;
  }

  /** The shards of {@code map} that {@code self} should own among {@code replicas}. */
  public static Set<Integer> shardsOf(String self, Collection<String> replicas, ShardMap map) {
    List<String> all = new ArrayList<>(replicas);
    if (!all.contains(self)) {
      all.add(self);
    }
    Set<Integer> mine = new TreeSet<>();
    for (int shard = 0; shard < map.count(); shard++) {
      if (self.equals(owner(shard, all))) {
        mine.add(shard);
      }
    }
    return mine;
  }

  static long score(String replica, int shard) {
    return ShardMap.mix(ShardMap.hash(replica) ^ ShardMap.mix(shard + 0x9e3779b97f4a7c15L));
  }
}
