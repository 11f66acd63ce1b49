package dev.pier.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rule that shares a lane among clusters, on a lane driven by hand. */
class FairShareTest {

  /** One lane: its runs in flight per cluster, started while the rule lets them. */
  private static final class Lane {
    final FairShare share;
    final int limit;
    final Set<String> known;
    final Map<String, Integer> inFlight = new HashMap<>();

    Lane(int floor, int limit, Set<String> known) {
      this.share = new FairShare(floor);
      this.limit = limit;
      this.known = known;
    }

    int total() {
      return inFlight.values().stream().mapToInt(Integer::intValue).sum();
    }

    boolean mayStart(String cluster) {
      return share.lane(limit, total(), c -> inFlight.getOrDefault(c, 0), known).mayStart(cluster);
    }

    /** Starts runs of {@code cluster} (which never end) while it may: how many it started. */
    int fill(String cluster) {
      int started = 0;
      while (mayStart(cluster)) {
        inFlight.merge(cluster, 1, Integer::sum);
        started++;
      }
      return started;
    }

    void end(String cluster) {
      inFlight.merge(cluster, -1, Integer::sum);
    }
  }

  @Test
  void oneClusterUsesEverySlotAsWithoutShares() {
    assertThat(new Lane(4, 10, Set.of("host")).fill("host")).isEqualTo(10);
    assertThat(new Lane(4, 10, Set.of()).fill("host")).isEqualTo(10);
    // A key of a cluster not known (one that left) with one known cluster: as without shares.
    assertThat(new Lane(4, 10, Set.of("host")).fill("gone")).isEqualTo(10);
  }

  @Test
  void aLoneBusyClusterUsesEverythingButTheOthersFloors() {
    Lane lane = new Lane(4, 20, Set.of("host", "east", "west"));
    assertThat(lane.fill("west")).isEqualTo(12);
    // The others' floors stay free: each reaches its floor at once, no more.
    assertThat(lane.fill("host")).isEqualTo(4);
    assertThat(lane.fill("east")).isEqualTo(4);
    assertThat(lane.total()).isEqualTo(20);
  }

  @Test
  void aClusterPastItsFloorTakesASlotOnlyWhenTheOthersFloorsStayCovered() {
    Lane lane = new Lane(2, 10, Set.of("host", "east", "west"));
    lane.fill("west");
    assertThat(lane.inFlight.get("west")).isEqualTo(6);
    lane.inFlight.put("host", 1);
    // free 3, host lacks 1 and east 2: west may not start; host and east may.
    assertThat(lane.mayStart("west")).isFalse();
    assertThat(lane.mayStart("host")).isTrue();
    assertThat(lane.mayStart("east")).isTrue();
    // One of west's runs ends: 4 free slots cover the 3 the others lack and one run of west.
    lane.end("west");
    assertThat(lane.fill("west")).isEqualTo(1);
    // The lane full, one of host's runs ends: the slot is host's own floor.
    lane.inFlight.put("host", 2);
    lane.inFlight.put("east", 2);
    lane.end("host");
    assertThat(lane.mayStart("west")).isFalse();
    assertThat(lane.mayStart("east")).isFalse();
    assertThat(lane.mayStart("host")).isTrue();
    // Every floor reached, a free slot goes to whoever comes.
    lane.inFlight.put("host", 2);
    lane.end("west");
    assertThat(lane.mayStart("west")).isTrue();
    assertThat(lane.mayStart("east")).isTrue();
  }

  @Test
  void twoHungClustersLeaveTheThirdItsFloor() {
    Lane lane = new Lane(4, 20, Set.of("host", "east", "west"));
    // Two members whose runs never end take turns at every slot they can get.
    boolean any = true;
    while (any) {
      any = false;
      for (String c : new String[] {"east", "west"}) {
        if (lane.mayStart(c)) {
          lane.inFlight.merge(c, 1, Integer::sum);
          any = true;
        }
      }
    }
    assertThat(lane.total()).isEqualTo(16);
    assertThat(lane.fill("host")).isEqualTo(4);
  }

  @Test
  void aClusterThatJoinsWhileTheLaneIsFullTakesTheNextFreeSlots() {
    Lane lane = new Lane(2, 6, Set.of("host"));
    assertThat(lane.fill("host")).isEqualTo(6);
    Lane joined = new Lane(2, 6, Set.of("host", "west"));
    joined.inFlight.putAll(lane.inFlight);
    assertThat(joined.mayStart("west")).isFalse();
    joined.end("host");
    // The member below its floor takes the freed slot; the host, past its floor, waits.
    assertThat(joined.mayStart("host")).isFalse();
    assertThat(joined.fill("west")).isEqualTo(1);
    joined.end("host");
    assertThat(joined.fill("west")).isEqualTo(1);
    joined.end("host");
    assertThat(joined.fill("host")).isEqualTo(1);
  }

  @Test
  void aClusterNotKnownGetsNoFloorButMayUseWhatNoFloorNeeds() {
    Lane lane = new Lane(2, 10, Set.of("host", "west"));
    assertThat(lane.fill("gone")).isEqualTo(6);
    assertThat(lane.fill("host")).isEqualTo(2);
    assertThat(lane.fill("west")).isEqualTo(2);
  }

  @Test
  void theFloorShrinksWhenTheClustersFloorsDoNotFit() {
    FairShare share = new FairShare(4);
    assertThat(share.floorIn(200, 10)).isEqualTo(4);
    assertThat(share.floorIn(8, 2)).isEqualTo(4);
    assertThat(share.floorIn(8, 3)).isEqualTo(2);
    assertThat(share.floorIn(8, 5)).isEqualTo(1);
    assertThat(share.floorIn(8, 20)).isEqualTo(1);
    // 3 clusters of floor 4 in 8 slots: a floor of 2 each, and a lone busy one uses 4.
    Lane lane = new Lane(4, 8, Set.of("host", "east", "west"));
    assertThat(lane.fill("west")).isEqualTo(4);
    assertThat(lane.fill("host")).isEqualTo(2);
    assertThat(lane.fill("east")).isEqualTo(2);
  }

  @Test
  void withMoreClustersThanSlotsEachStillGetsARunWhileASlotIsFree() {
    Lane lane = new Lane(4, 3, Set.of("a", "b", "c", "d", "e"));
    // Nobody can be promised a slot, but nothing deadlocks: a cluster without a run takes any
    // free slot, one with a run none that another cluster lacks.
    assertThat(lane.fill("a")).isEqualTo(1);
    assertThat(lane.fill("b")).isEqualTo(1);
    assertThat(lane.fill("c")).isEqualTo(1);
    assertThat(lane.mayStart("d")).isFalse();
    lane.end("a");
    assertThat(lane.mayStart("b")).isFalse();
    assertThat(lane.fill("d")).isEqualTo(1);
  }

  @Test
  void aFloorBelowOneIsRefused() {
    assertThatThrownBy(() -> new FairShare(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(">= 1");
  }
}
