package dev.pier.federation;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Envoy's panic threshold for a federated Service: when fewer than {@code threshold} percent of the
 * members it is placed in are reachable, losing contact is no proof of failure (Pier's egress, or
 * tokens that expired together, can hide a whole healthy fleet), so the unreachable members are
 * held as they were last seen instead of leaving the Service's status and names. Each is held for
 * at most {@code maxHold} after it became unreachable. Above the threshold an unreachable member
 * among reachable ones leaves as usual: that failover is what federation is for.
 */
public final class HeldMembers {
  private HeldMembers() {}

  /**
   * A member the Service is placed in.
   *
   * @param unreadySince when it last became unreachable (epoch millis); ignored while ready
   */
  public record Placed(String name, boolean ready, long unreadySince) {}

  /**
   * @param held the unreachable members to treat as last seen; empty: none
   * @param since when the oldest of them became unreachable (epoch millis), or -1
   * @param until when the first of them stops being held (epoch millis), or -1
   * @param reachable how many placed members are reachable
   * @param placed how many members the Service is placed in
   */
  public record Decision(Set<String> held, long since, long until, int reachable, int placed) {
    public Decision {
      held = Set.copyOf(held);
    }

    public boolean holding() {
      return !held.isEmpty();
    }
  }

  /**
   * @param thresholdPercent below this share of reachable placed members, hold; 0: never hold
   */
  public static Decision decide(
      List<Placed> placed, int thresholdPercent, Duration maxHold, long now) {
    int reachable = (int) placed.stream().filter(Placed::ready).count();
    if (placed.isEmpty() || reachable * 100L >= (long) thresholdPercent * placed.size()) {
      return new Decision(Set.of(), -1, -1, reachable, placed.size());
    }
    Set<String> held = new LinkedHashSet<>();
    long since = Long.MAX_VALUE;
    long until = Long.MAX_VALUE;
    for (Placed p : placed) {
      long expires = p.unreadySince() + maxHold.toMillis();
      if (!p.ready() && now < expires) {
        held.add(p.name());
        since = Math.min(since, p.unreadySince());
        until = Math.min(until, expires);
      }
    }
    return held.isEmpty()
        ? new Decision(Set.of(), -1, -1, reachable, placed.size())
        : new Decision(held, since, until, reachable, placed.size());
  }
}
