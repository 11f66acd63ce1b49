package dev.pier.shards;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which cluster members have proven they are Pier's replicas: a member counts when a replica Lease
 * naming it as holder was seen renewed within the lease duration. Those Leases are written with
 * Pier's ServiceAccount, which a process that merely reached the cluster port does not have; so a
 * member without one gets no shards (docs/scale-out.md, "Who can join").
 */
public final class ReplicaProofs {
  private ReplicaProofs() {}

  /**
   * The proven members among {@code members}.
   *
   * @param self this replica's node id
   * @param selfRenewed whether this replica wrote its own Lease within {@code leaseDuration} (it
   *     trusts its own writes, not a read of them)
   * @param members the cluster's members now, {@code self} among them
   * @param replicaLeases the replica Leases as this replica saw them
   */
  public static Set<String> proven(
      String self,
      boolean selfRenewed,
      Collection<String> members,
      LeaseSightings<String> replicaLeases,
      Duration leaseDuration,
      long now) {
    Map<String, String> renewed = replicaLeases.renewedWithin(leaseDuration, now);
    Set<String> holders = new HashSet<>(renewed.values());
    Set<String> proven = new TreeSet<>();
    for (String member : members) {
      if (member.equals(self) ? selfRenewed : holders.contains(member)) {
        proven.add(member);
      }
    }
    return proven;
  }

  /**
   * The shards this replica should hold: with {@code proven} containing {@code self}, its share by
   * rendezvous hashing over the proven members, plus the shards it rescued (their Leases free or
   * stale for a lease duration, whatever the assignment said); none while it is not proven itself.
   */
  public static Set<Integer> wanted(
      String self, Set<String> proven, ShardMap shards, Set<Integer> rescued) {
    if (!proven.contains(self)) {
      return Set.of();
    }
    Set<Integer> wanted = new TreeSet<>(Rendezvous.shardsOf(self, proven, shards));
    wanted.addAll(rescued);
    return wanted;
  }
}
