package dev.pier.dns;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which load-balancer addresses of a federated Service leave its names because Pier's own probes
 * say they stopped answering ({@link ProbeState}), under the panic rule: when fewer than {@code
 * panicThreshold} percent of the Service's probed addresses answer, Pier cannot tell a dead fleet
 * from its own blocked egress, and every address stays (held).
 *
 * @param leaving the addresses that leave the names; empty while held
 * @param failing the addresses whose probes say they stopped answering, held or not
 * @param answering how many of the probed addresses answer
 * @param probed how many addresses are probed
 */
public record DataPathDecision(
    Set<String> leaving, Set<String> failing, int answering, int probed) {
  /** Nothing probed, nothing leaves. */
  public static final DataPathDecision NONE = new DataPathDecision(Set.of(), Set.of(), 0, 0);

  public DataPathDecision {
    leaving = Set.copyOf(leaving);
    failing = Set.copyOf(failing);
  }

  /** True when addresses fail and are kept all the same (the panic rule). */
  public boolean held() {
    return !failing.isEmpty() && leaving.isEmpty();
  }

  /**
   * @param states each probed address's state; an address without one has not been probed yet and
   *     answers
   * @param addresses the addresses the names would publish
   * @param panicThreshold percent; 0: never hold
   */
  public static DataPathDecision decide(
      Set<String> addresses, Map<String, ProbeState> states, int panicThreshold) {
    Set<String> failing = new TreeSet<>();
    for (String a : addresses) {
      ProbeState s = states.get(a);
      if (s != null && !s.answering()) {
        failing.add(a);
      }
    }
    int probed = addresses.size();
    int answering = probed - failing.size();
    boolean hold = (long) answering * 100 < (long) panicThreshold * probed;
    return new DataPathDecision(hold ? Set.of() : failing, failing, answering, probed);
  }

  /** The addresses the names would publish: those of the healthy clusters. */
  public static Set<String> published(List<ServingCluster> serving) {
    Set<String> out = new TreeSet<>();
    for (ServingCluster c : serving) {
      if (c.healthy()) {
        out.addAll(c.ipv4());
        out.addAll(c.ipv6());
      }
    }
    return out;
  }

  /**
   * The clusters without the leaving addresses; a cluster left without any address is unhealthy, so
   * its zone and region names fall back to the level above, as an unready member's do.
   */
  public List<ServingCluster> apply(List<ServingCluster> serving) {
    if (leaving.isEmpty()) {
      return serving;
    }
    List<ServingCluster> out = new ArrayList<>();
    for (ServingCluster c : serving) {
      List<String> v4 = c.ipv4().stream().filter(a -> !leaving.contains(a)).toList();
      List<String> v6 = c.ipv6().stream().filter(a -> !leaving.contains(a)).toList();
      boolean emptied = c.hasAddresses() && v4.isEmpty() && v6.isEmpty();
      out.add(
          emptied
              ? new ServingCluster(c.location(), c.ipv4(), c.ipv6(), false, c.unresolved())
              : new ServingCluster(c.location(), v4, v6, c.healthy(), c.unresolved()));
    }
    return out;
  }
}
