package dev.pier.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.model.ServiceKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardsTest {
  private static final ShardMap MAP = new ShardMap(32);

  /**
   * Literals computed once from the released hash: a change of the FNV constants, the finalizer or
   * the modulo moves every Service to another replica on upgrade, and must fail here. The count
   * 1000 is there because with a power of two a signed modulo gives the same shards as the unsigned
   * one.
   */
  @Test
  void aKeysShardIsFixedAcrossReleases() {
    assertThat(ShardMap.hash("")).isEqualTo(0xf52a15e9a9b5e89bL);
    assertThat(ShardMap.hash("local/default/web")).isEqualTo(0x14eca5c1ea51f223L);
    Object[][] table = {
      // cluster, namespace, name, shard of 32, shard of 1000
      {"local", "default", "web", 3, 651},
      {"local", "default", "api", 24, 584},
      {"local", "kube-system", "dns", 28, 460},
      {"east", "shop", "checkout", 17, 577},
      {"west", "shop", "checkout", 31, 319},
      {"local", "prod", "gateway", 23, 231},
      {"host", "ns", "web", 20, 476},
      {"local", "default", "ünïcode", 26, 82},
    };
    for (Object[] row : table) {
      ServiceKey key = new ServiceKey((String) row[0], (String) row[1], (String) row[2]);
      assertThat(MAP.of(key)).as("%s of 32", key).isEqualTo(row[3]);
      assertThat(new ShardMap(1000).of(key)).as("%s of 1000", key).isEqualTo(row[4]);
    }
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

  /** Literals as above: a change would move every member's work to another replica on upgrade. */
  @Test
  void aMembersShardIsFixedAcrossReleases() {
    Map<String, Integer> table =
        Map.of("east", 8, "south", 15, "eu-1", 25, "us-east-1", 20, "member-1", 28, "a", 19);
    table.forEach((member, shard) -> assertThat(MAP.ofMember(member)).as(member).isEqualTo(shard));
    assertThat(new ShardMap(8).ofMember("south")).isEqualTo(7);
    assertThat(new ShardMap(1).ofMember("east")).isZero();
  }

  @Test
  void aMembersShardIsApartFromAServiceKeyOfTheSameText() {
    assertThat(MAP.ofMember("east")).isEqualTo(MAP.of("member:east")).isNotEqualTo(MAP.of("east"));
  }

  @Test
  void membersSpreadOverAllShards() {
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

  /**
   * The owners of a fixed set of replicas, as released: replicas of two releases side by side in a
   * rolling upgrade must agree on every shard's owner.
   */
  @Test
  void theAssignmentIsFixedAcrossReleases() {
    Map<Integer, String> owners = Rendezvous.assign(List.of("pier-0", "pier-1", "pier-2"), MAP);
    StringBuilder digits = new StringBuilder();
    owners.values().forEach(owner -> digits.append(owner.charAt("pier-".length())));
    assertThat(digits).hasToString("10210122111120201100121220220200");
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

  /** Every replica computes the assignment from its own view of the member list, in any order. */
  @Test
  void theAssignmentDoesNotDependOnTheOrderOfTheMemberList() {
    Random random = new Random(11);
    for (int trial = 0; trial < 50; trial++) {
      List<String> replicas = randomReplicas(random, 2 + trial % 6);
      Map<Integer, String> expected = Rendezvous.assign(replicas, MAP);
      for (int shuffle = 0; shuffle < 20; shuffle++) {
        List<String> shuffled = new ArrayList<>(replicas);
        Collections.shuffle(shuffled, random);
        assertThat(Rendezvous.assign(shuffled, MAP)).as("%s", shuffled).isEqualTo(expected);
      }
    }
    assertThat(Rendezvous.assign(List.of(), MAP)).isEmpty();
  }

  /**
   * The load bound of bounded loads: no replica holds more than the shard count over the replicas,
   * rounded up, and with three replicas of 32 shards each holds 10 or 11.
   */
  @Test
  void noReplicaHoldsMoreThanItsShareRoundedUp() {
    Random random = new Random(7);
    for (int trial = 0; trial < 500; trial++) {
      int n = 1 + trial % 7;
      List<String> replicas = randomReplicas(random, n);
      Map<Integer, String> owners = Rendezvous.assign(replicas, MAP);
      assertThat(owners.keySet()).hasSize(32);
      assertThat(replicas).containsAll(owners.values());
      int share = (32 + n - 1) / n;
      assertThat(loads(owners).values())
          .as("%s", replicas)
          .allSatisfy(l -> assertThat(l).isLessThanOrEqualTo(share));
      if (n == 3) {
        assertThat(loads(owners).values()).allSatisfy(l -> assertThat(l).isBetween(10, 11));
      }
    }
  }

  /**
   * What a leave costs under bounded loads, measured over 2,000 random sets of three replicas, each
   * of them leaving in turn: the leaver's shards go to the survivors, and keeping the loads even
   * moves at most five of the survivors' own shards too, under one on average. (Pure rendezvous
   * would move none, but loads up to 21 shards of 32.)
   */
  @Test
  void aLeaveMovesTheLeaversShardsAndAtMostFiveOfTheSurvivors() {
    Random random = new Random(7);
    int most = 0;
    int moved = 0;
    int leaves = 0;
    for (int trial = 0; trial < 2_000; trial++) {
      List<String> three = randomReplicas(random, 3);
      Map<Integer, String> before = Rendezvous.assign(three, MAP);
      for (String leaving : three) {
        List<String> two = new ArrayList<>(three);
        two.remove(leaving);
        Map<Integer, String> after = Rendezvous.assign(two, MAP);
        assertThat(two).containsAll(after.values());
        int survivorsMoved = 0;
        for (int shard = 0; shard < 32; shard++) {
          if (!before.get(shard).equals(leaving) && !before.get(shard).equals(after.get(shard))) {
            survivorsMoved++;
          }
        }
        most = Math.max(most, survivorsMoved);
        moved += survivorsMoved;
        leaves++;
      }
    }
    assertThat(most).as("most survivors' shards moved by one leave").isLessThanOrEqualTo(5);
    assertThat(moved / (double) leaves).as("survivors' shards moved per leave").isLessThan(0.9);
  }

  @Test
  void aLoneReplicaOwnsEveryShard() {
    assertThat(Rendezvous.shardsOf("solo", List.of(), MAP)).hasSize(32);
  }

  private static List<String> randomReplicas(Random random, int n) {
    List<String> replicas = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      replicas.add(Long.toHexString(random.nextLong()));
    }
    return replicas;
  }

  private static Map<String, Integer> loads(Map<Integer, String> owners) {
    Map<String, Integer> load = new HashMap<>();
    owners.values().forEach(r -> load.merge(r, 1, Integer::sum));
    return load;
  }
}
