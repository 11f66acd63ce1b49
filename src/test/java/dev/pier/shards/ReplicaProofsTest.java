package dev.pier.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.shards.LeaseSightings.Read;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which members count as replicas, and what a replica then wants; an explicit clock in ms. */
class ReplicaProofsTest {
  private static final Duration LEASE = Duration.ofSeconds(15);
  private static final ShardMap SHARDS = new ShardMap(32);

  private static long s(double seconds) {
    return (long) (seconds * 1_000_000_000L);
  }

  @Test
  void aMemberCountsOnlyWhileItsLeaseIsSeenRenewedWithinTheLeaseDuration() {
    LeaseSightings<String> leases = new LeaseSightings<>();
    leases.update(Map.of("pier-replica-b", new Read("b", "1")), s(0));
    List<String> members = List.of("a", "b");
    // Read once: however fresh it looks, nobody was seen renewing it.
    assertThat(ReplicaProofs.proven("a", true, members, leases, LEASE, s(1))).containsExactly("a");

    leases.update(Map.of("pier-replica-b", new Read("b", "2")), s(5));
    assertThat(ReplicaProofs.proven("a", true, members, leases, LEASE, s(6)))
        .containsExactly("a", "b");
    // Unchanged since: proven until a lease duration after the change was seen, not after.
    leases.update(Map.of("pier-replica-b", new Read("b", "2")), s(10));
    assertThat(ReplicaProofs.proven("a", true, members, leases, LEASE, s(19.9)))
        .containsExactly("a", "b");
    assertThat(ReplicaProofs.proven("a", true, members, leases, LEASE, s(20))).containsExactly("a");
  }

  @Test
  void membersWithoutALeaseAreNotProvenAndCountForNothing() {
    LeaseSightings<String> leases = new LeaseSightings<>();
    leases.update(Map.of("pier-replica-a", new Read("a", "1")), s(0));
    leases.update(Map.of("pier-replica-a", new Read("a", "2")), s(1));
    List<String> members = List.of("a", "rogue-1", "rogue-2", "rogue-3");
    Set<String> proven = ReplicaProofs.proven("a", true, members, leases, LEASE, s(2));
    assertThat(proven).containsExactly("a");
    assertThat(ReplicaProofs.wanted("a", proven, SHARDS, Set.of())).hasSize(32);
    // With the rogues counted, a would want about a quarter.
    assertThat(Rendezvous.shardsOf("a", members, SHARDS)).hasSizeLessThanOrEqualTo(8);
  }

  @Test
  void aLeaseOfANodeThatIsNoMemberProvesNothingAndAReleasedOneNothingEither() {
    LeaseSightings<String> leases = new LeaseSightings<>();
    leases.update(Map.of("x", new Read("gone", "1"), "y", new Read("b", "1")), s(0));
    leases.update(Map.of("x", new Read("gone", "2"), "y", new Read("", "2")), s(1));
    assertThat(ReplicaProofs.proven("a", true, List.of("a", "b"), leases, LEASE, s(2)))
        .containsExactly("a");
  }

  @Test
  void thisReplicaCountsByItsOwnWritesAndWantsNothingWhileUnproven() {
    LeaseSightings<String> leases = new LeaseSightings<>();
    leases.update(Map.of("pier-replica-b", new Read("b", "1")), s(0));
    leases.update(Map.of("pier-replica-b", new Read("b", "2")), s(1));
    Set<String> proven = ReplicaProofs.proven("a", false, List.of("a", "b"), leases, LEASE, s(2));
    assertThat(proven).containsExactly("b");
    assertThat(ReplicaProofs.wanted("a", proven, SHARDS, Set.of(3))).isEmpty();
  }

  @Test
  void theShardsAreDividedOverTheProvenReplicasAndRescuedShardsAreWantedToo() {
    Set<String> proven = Set.of("a", "b");
    Set<Integer> a = ReplicaProofs.wanted("a", proven, SHARDS, Set.of());
    Set<Integer> b = ReplicaProofs.wanted("b", proven, SHARDS, Set.of());
    assertThat(a).hasSize(16).doesNotContainAnyElementsOf(b);
    int ofB = b.iterator().next();
    assertThat(ReplicaProofs.wanted("a", proven, SHARDS, Set.of(ofB))).hasSize(17).contains(ofB);
  }

  @Test
  void aShardLeaseUnchangedOrMissingForALeaseDurationIsAbandoned() {
    LeaseSightings<Integer> shards = new LeaseSightings<>();
    shards.update(
        Map.of(0, new Read("a", "1"), 1, new Read("", "7"), 2, Read.MISSING, 3, new Read("b", "4")),
        s(0));
    shards.update(
        Map.of(0, new Read("a", "2"), 1, new Read("", "7"), 2, Read.MISSING, 3, new Read("b", "4")),
        s(10));
    assertThat(shards.unchangedFor(LEASE, s(14.9))).isEmpty();
    // 0 was renewed at 10; 1 (free), 2 (missing) and 3 (held, not renewed) are abandoned.
    assertThat(shards.unchangedFor(LEASE, s(15))).containsExactlyInAnyOrder(1, 2, 3);
    // A Lease that appears is a change.
    shards.update(
        Map.of(
            0,
            new Read("a", "3"),
            1,
            new Read("", "7"),
            2,
            new Read("a", "9"),
            3,
            new Read("b", "4")),
        s(16));
    assertThat(shards.unchangedFor(LEASE, s(16))).containsExactlyInAnyOrder(1, 3);
  }

  @Test
  void aLeaseThatIsGoneIsSeenMissingOnceThenForgotten() {
    LeaseSightings<String> leases = new LeaseSightings<>();
    leases.update(Map.of("r", new Read("b", "1")), s(0));
    leases.update(Map.of("r", new Read("b", "2")), s(1));
    leases.update(Map.of(), s(2));
    assertThat(leases.last("r")).isEqualTo(Read.MISSING);
    assertThat(leases.renewedWithin(LEASE, s(2))).isEmpty();
    leases.update(Map.of(), s(3));
    assertThat(leases.last("r")).isNull();
  }
}
