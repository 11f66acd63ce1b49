package dev.pier.federation.sync;

import dev.pier.shards.ShardHolders;
import dev.pier.shards.ShardMap;
import java.util.function.IntPredicate;

/**
 * Which of the federation's work this replica runs. One process runs all of it (while it leads).
 * Under scale-out the work is divided: the host side (the aggregate, the finalizers, the member
 * Secrets' writes, the DNS names) belongs to shard {@link ShardMap#CLUSTER_WIDE}, and each member's
 * side (its caches, its copies, the reads of its copies) to that member's shard ({@link
 * ShardMap#ofMember}); a replica runs what belongs to the shards it holds.
 */
public final class FederationShards {
  private final ShardMap map;
  private final IntPredicate holds;
  private final ShardHolders holders;

  private FederationShards(ShardMap map, IntPredicate holds, ShardHolders holders) {
    this.map = map;
    this.holds = holds;
    this.holders = holders;
  }

  /** One process runs the whole federation. */
  public static FederationShards whole() {
    return new FederationShards(null, shard -> true, null);
  }

  /**
   * Scale-out: the shards of {@code map}, held where {@code holds} says; answers between replicas
   * sealed and checked with {@code holders}.
   */
  public static FederationShards divided(ShardMap map, IntPredicate holds, ShardHolders holders) {
    return new FederationShards(map, holds, holders);
  }

  /** Who holds which shard, to seal and check answers between replicas; null in one process. */
  ShardHolders holders() {
    return holders;
  }

  /** The shard of the member's side (0 in one process). */
  int memberShard(String member) {
    return map == null ? 0 : map.ofMember(member);
  }

  public boolean divided() {
    return map != null;
  }

  /** Whether this replica runs the host side now. */
  public boolean runsHost() {
    return holds.test(ShardMap.CLUSTER_WIDE);
  }

  /** Whether this replica runs the member's side now. */
  public boolean runsMember(String member) {
    return map == null || holds.test(map.ofMember(member));
  }

  /** Whether {@code shard} carries the host side. */
  public boolean isHostShard(int shard) {
    return shard == ShardMap.CLUSTER_WIDE;
  }

  /** Whether {@code shard} carries the member's side. */
  public boolean isMemberShard(String member, int shard) {
    return map == null || map.ofMember(member) == shard;
  }
}
