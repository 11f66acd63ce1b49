package dev.pier.dns;

import dev.pier.model.LbNode;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Reads a cluster's region and zones from its nodes' {@code topology.kubernetes.io/region|zone}
 * labels, falling back to the {@code failure-domain.beta.kubernetes.io} ones. The region is the
 * first node's (by name) that has one; zones are every zone seen, so that a cluster spanning
 * several zones gets a name in each (federation v1 named only the first).
 */
public final class Topology {
  public static final String REGION = "topology.kubernetes.io/region";
  public static final String ZONE = "topology.kubernetes.io/zone";
  public static final String BETA_REGION = "failure-domain.beta.kubernetes.io/region";
  public static final String BETA_ZONE = "failure-domain.beta.kubernetes.io/zone";

  private Topology() {}

  /**
   * @param regionOverride used instead of the labels when not empty
   * @param zonesOverride used instead of the labels when not empty
   */
  public static ClusterLocation locate(
      String cluster, List<LbNode> nodes, String regionOverride, List<String> zonesOverride) {
    List<LbNode> sorted = nodes.stream().sorted(Comparator.comparing(LbNode::name)).toList();
    String region = regionOverride;
    if (region == null || region.isEmpty()) {
      region =
          sorted.stream()
              .map(n -> label(n, REGION, BETA_REGION))
              .filter(r -> r != null)
              .findFirst()
              .orElse(null);
    }
    List<String> zones = zonesOverride;
    if (zones == null || zones.isEmpty()) {
      TreeSet<String> seen = new TreeSet<>();
      for (LbNode n : sorted) {
        String z = label(n, ZONE, BETA_ZONE);
        if (z != null) {
          seen.add(z);
        }
      }
      zones = List.copyOf(seen);
    }
    return new ClusterLocation(
        cluster,
        region == null ? null : region.toLowerCase(Locale.ROOT),
        zones.stream().map(z -> z.toLowerCase(Locale.ROOT)).toList());
  }

  private static String label(LbNode n, String key, String fallback) {
    String v = n.labels().get(key);
    if (v == null || v.isEmpty()) {
      v = n.labels().get(fallback);
    }
    return v == null || v.isEmpty() ? null : v;
  }
}
