package dev.pier.queue;

import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * How the slots of one lane are shared among clusters: work-conserving, with a floor each known
 * cluster can always reach. A run of cluster C may start when, after it starts, the free slots
 * still cover what every other known cluster lacks of its floor:
 *
 * <pre>free - 1 >= sum over known c != C of max(0, floor - inFlight(c))</pre>
 *
 * and a known cluster below its floor may take any free slot. So a lone busy cluster uses every
 * slot but the others' floors, and however the others behave (runs that never end included), each
 * known cluster reaches its floor of runs at once. Clusters are counted whether or not they have
 * work: a cluster whose first key arrives while the others hang finds its floor free.
 *
 * <p>When the known clusters' floors do not fit in the lane ({@code clusters x floor > limit}), the
 * floor shrinks to {@code limit / clusters}, at least 1. With more clusters than slots the floors
 * cannot all be kept: a cluster below its floor still takes any free slot, and one past it only a
 * slot that leaves every other cluster its floor. With one known cluster or none, any free slot may
 * be taken, as without shares.
 *
 * @param floor the runs each known cluster can always have in flight in a lane, at least 1
 */
public record FairShare(int floor) {
  public FairShare {
    if (floor < 1) {
      throw new IllegalArgumentException("the floor must be >= 1, got " + floor);
    }
  }

  /** The floor of each of {@code clusters} known clusters in a lane of {@code limit} slots. */
  public int floorIn(int limit, int clusters) {
    if (clusters <= 1) {
      return Math.min(floor, limit);
    }
    return Math.max(1, Math.min(floor, limit / clusters));
  }

  /**
   * A lane as it is now.
   *
   * @param limit the lane's slots
   * @param inFlightTotal runs holding a slot of the lane
   * @param inFlight runs holding a slot of the lane, of one cluster
   * @param known the known clusters
   */
  public Lane lane(
      int limit, int inFlightTotal, ToIntFunction<String> inFlight, Set<String> known) {
    int free = limit - inFlightTotal;
    int f = floorIn(limit, known.size());
    int reserve = 0;
    for (String c : known) {
      reserve += Math.max(0, f - inFlight.applyAsInt(c));
    }
    return new Lane(free, f, reserve, inFlight, known);
  }

  /**
   * One lane's state: its free slots, the floor of each known cluster, and what the known clusters
   * lack of their floors together.
   */
  public record Lane(
      int free, int floor, int reserve, ToIntFunction<String> inFlight, Set<String> known) {

    /** Whether a run of {@code cluster} may take a slot now. */
    public boolean mayStart(String cluster) {
      if (free < 1) {
        return false;
      }
      if (known.size() <= 1) {
        return true;
      }
      boolean isKnown = known.contains(cluster);
      if (isKnown && inFlight.applyAsInt(cluster) < floor) {
        return true;
      }
      // At or past its floor (or not known) the cluster lacks nothing: the reserve is the others'.
      return free - 1 >= reserve;
    }
  }
}
