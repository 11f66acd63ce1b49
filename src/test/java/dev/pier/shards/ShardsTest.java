package dev.pier.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.model.ServiceKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardsTest {
  private static final ShardMap MAP = new ShardMap(32);

  @Test
  void aKeysShardIsFixedAcrossReleases() {
    // Fixed values: a change of the hash would move every Service to another replica on upgrade.
    assertThat(MAP.of(new ServiceKey("local", "default", "web")))
        .isEqualTo(MAP.of("local/default/web"));
    assertThat(ShardMap.hash("")).isEqualTo(ShardMap.mix(0xcbf29ce484222325L));
    assertThat(MAP.of("local/default/web")).isBetween(0, 31);
  }

  @Test
  void keysSpreadOverAllShards() {
    int[] counts = new int[32];
    for (int i = 0; i < 32_000; i++) {
      counts[MAP.of(new ServiceKey("local", "ns-" + (i % 50), "svc-" + i))]++;
    }
    for (int c : counts) {
      assertThat(c).isBetween(800, 1200);
    }
  }

  @Test
  void aMembersShardIsFixedAndApartFromAServiceKeyOfTheSameText() {
    // Fixed values: a change would move every member's work to another replica on upgrade.
    assertThat(MAP.ofMember("east")).isEqualTo(MAP.of("member:east"));
    assertThat(new ShardMap(1).ofMember("east")).isZero();
    int[] counts = new int[32];
    for (int i = 0; i < 3_200; i++) {
      counts[MAP.ofMember("member-" + i)]++;
    }
    for (int c : counts) {
      assertThat(c).isBetween(60, 140);
    }
  }

  @Test
  void aShardMapNeedsAShard() {
    assertThatThrownBy(() -> new ShardMap(0)).hasMessageContaining("count must be at least 1: 0");
  }

  @Test
  void everyShardHasExactlyOneOwnerAndTheyShareTheShards() {
    List<String> replicas = List.of("a", "b", "c");
    Map<String, Set<Integer>> owned = new HashMap<>();
    for (String r : replicas) {
      owned.put(r, Rendezvous.shardsOf(r, replicas, MAP));
    }
    Set<Integer> all = new HashSet<>();
    int total = 0;
    for (Set<Integer> s : owned.values()) {
      all.addAll(s);
      total += s.size();
      assertThat(s.size()).isBetween(4, 20);
    }
    assertThat(total).isEqualTo(32);
    assertThat(all).hasSize(32);
  }

  /**
   * Bounded loads: over random sets of three replicas, each holds 10 or 11 of 32 shards, and when
   * one leaves the survivors keep all but a few of theirs.
   */
  @Test
  void sharesAreEvenAndALeaveMovesLittleBesideTheLeaversShards() {
    java.util.Random random = new java.util.Random(7);
    int extra = 0;
    for (int trial = 0; trial < 500; trial++) {
      List<String> three = new java.util.ArrayList<>();
      for (int i = 0; i < 3; i++) {
        three.add(Long.toHexString(random.nextLong()));
      }
      Map<Integer, String> before = Rendezvous.assign(three, MAP);
      Map<String, Integer> load = new HashMap<>();
      before.values().forEach(r -> load.merge(r, 1, Integer::sum));
      assertThat(load.values()).allSatisfy(n -> assertThat(n).isBetween(10, 11));
      String leaving = three.get(1);
      List<String> two = List.of(three.get(0), three.get(2));
      Map<Integer, String> after = Rendezvous.assign(two, MAP);
      for (int shard = 0; shard < 32; shard++) {
        if (!before.get(shard).equals(leaving) && !before.get(shard).equals(after.get(shard))) {
          extra++;
        }
        assertThat(two).contains(after.get(shard));
      }
    }
    assertThat(extra / 500.0).as("survivors' shards moved per leave").isLessThan(1.5);
  }

  @Test
  void aLeavingReplicaMovesOnlyItsOwnShards() {
    List<String> three = List.of("a", "b", "c");
    List<String> two = List.of("a", "c");
    for (int shard = 0; shard < 32; shard++) {
      String before = Rendezvous.owner(shard, three);
      String after = Rendezvous.owner(shard, two);
      if (!before.equals("b")) {
        assertThat(after).as("shard %d", shard).isEqualTo(before);
      }
    }
  }

  @Test
  void theOwnerDoesNotDependOnTheOrderOfTheMemberList() {
    for (int shard = 0; shard < 32; shard++) {
      assertThat(Rendezvous.owner(shard, List.of("x", "y", "z")))
          .isEqualTo(Rendezvous.owner(shard, List.of("z", "x", "y")));
    }
    assertThat(Rendezvous.owner(3, List.of())).isNull();
  }

  @Test
  void aLoneReplicaOwnsEveryShard() {
    assertThat(Rendezvous.shardsOf("solo", List.of(), MAP)).hasSize(32);
  }
}
