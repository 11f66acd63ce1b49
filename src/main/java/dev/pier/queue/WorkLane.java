package dev.pier.queue;

import java.util.Set;

/**
 * The concurrency lane a run of a key takes: each lane has its own limit of runs in flight, so work
 * of one lane never waits for a slot of the other.
 */
public enum WorkLane {
  /** Every run that does more than node sync: full reconciles, DNS, verification. */
  FULL,
  /**
   * Runs that only point an existing load balancer at a changed node set ({@link
   * WorkKind#UPDATE_HOSTS} alone): one cheap provider call each, many at once after a node change.
   */
  HOST_UPDATE;

  /** The lane of a run of {@code kinds}: {@link #HOST_UPDATE} for exactly {UPDATE_HOSTS}. */
  public static WorkLane of(Set<WorkKind> kinds) {
    return kinds.size() == 1 && kinds.contains(WorkKind.UPDATE_HOSTS) ? HOST_UPDATE : FULL;
  }
}
