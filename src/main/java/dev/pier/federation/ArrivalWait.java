package dev.pier.federation;

import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Whether a host Service's aggregate waits for members whose load balancers are on their way. On a
 * cold start the members' load balancers for one Service arrive seconds apart; written as each
 * arrives, the host gets its annotation and status once per member. Waiting a bounded time for the
 * placed, reachable members still without an address puts them in one write.
 *
 * <p>Only arrivals wait: an aggregate that adds addresses to what the host shows while a member is
 * still pending. A removal, a change, or a member that is unreachable (not pending) is written at
 * once, and no wait outlasts {@code max} from the first incomplete aggregate.
 */
public final class ArrivalWait {
  private ArrivalWait() {}

  /**
   * @param pending placed members that are ready and whose copy has no address yet (or no copy)
   * @param shown the addresses the host Service shows now
   * @param next the addresses of the aggregate now
   * @param incompleteSince when this Service's aggregate was first found incomplete (epoch millis)
   * @return how long to wait before writing, or {@link Duration#ZERO} to write now
   */
  public static Duration decide(
      Set<String> pending,
      Set<String> shown,
      Set<String> next,
      long incompleteSince,
      long now,
      Duration max) {
    boolean arrival = next.containsAll(shown) && !next.equals(shown);
    if (pending.isEmpty() || !arrival || max.isZero()) {
      return Duration.ZERO;
    }
    long left = incompleteSince + max.toMillis() - now;
    return left <= 0 ? Duration.ZERO : Duration.ofMillis(left);
  }

  /**
   * The placed members a LoadBalancer Service's aggregate waits for: ready, and with no address in
   * their copy (or no copy).
   *
   * @param loadBalancer the host Service is of type LoadBalancer (no other waits)
   * @param ready whether a member is ready now (not whether the aggregate holds it as last seen)
   */
  public static Set<String> pending(
      boolean loadBalancer, List<IngressAggregate.MemberStatus> statuses, Predicate<String> ready) {
    Set<String> pending = new TreeSet<>();
    if (!loadBalancer) {
      return pending;
    }
    for (IngressAggregate.MemberStatus s : statuses) {
      if (ready.test(s.cluster())
          && (s.copy() == null
              || s.copy().getIngress() == null
              || s.copy().getIngress().isEmpty())) {
        pending.add(s.cluster());
      }
    }
    return pending;
  }

  /** The addresses of a status as the wait compares them: IPs, else hostnames. */
  public static Set<String> addresses(LbStatus status) {
    Set<String> out = new TreeSet<>();
    for (LbIngress i : status.ingress()) {
      out.add(i.ip() != null ? i.ip() : String.valueOf(i.hostname()));
    }
    return out;
  }
}
