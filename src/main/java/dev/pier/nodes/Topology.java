package dev.pier.nodes;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A cluster's region and zones, read from its nodes' labels: the one rule behind both a cluster's
 * DNS names and the region a federation member reports, so that the two always agree.
 *
 * <p>Each node's {@code topology.kubernetes.io/region|zone} labels are read, falling back per node
 * and per label to the {@code failure-domain.beta.kubernetes.io} ones. The region is the most
 * common one among the nodes (on a tie, the smallest name), so one mislabelled node does not move
 * the cluster; the zones are every distinct zone, sorted, so a cluster spanning several zones gets
 * a name in each. A non-blank override (trimmed) wins over the labels. Region and zones are
 * lowercase: DNS names are case-insensitive, and a member's reported region must be the string its
 * names use.
 *
 * @param region null when no node has one and there is no override
 * @param zones distinct and sorted; empty when none is known
 */
public record Topology(String region, List<String> zones) {
  public static final String REGION = "topology.kubernetes.io/region";
  public static final String ZONE = "topology.kubernetes.io/zone";
  public static final String BETA_REGION = "failure-domain.beta.kubernetes.io/region";
  public static final String BETA_ZONE = "failure-domain.beta.kubernetes.io/zone";

  /** Every label the rule reads: a node change that leaves them alone leaves the topology. */
  public static final List<String> LABELS = List.of(REGION, ZONE, BETA_REGION, BETA_ZONE);

  /** Nothing known: no region, no zones. */
  public static final Topology UNKNOWN = new Topology(null, List.of());

  public Topology {
    region = canonical(region);
    zones =
        zones == null
            ? List.of()
            : zones.stream()
                .map(Topology::canonical)
                .filter(Objects::nonNull)
                .distinct()
                .sorted()
                .toList();
  }

  /**
   * The topology of the nodes with these labels.
   *
   * @param nodeLabels each node's labels; a null map is a node without labels
   * @param regionOverride used instead of the labels when not blank
   * @param zonesOverride used instead of the labels when it holds a zone that is not blank
   */
  public static Topology of(
      Collection<Map<String, String>> nodeLabels,
      String regionOverride,
      List<String> zonesOverride) {
    Map<String, Integer> regions = new HashMap<>();
    List<String> zones = new ArrayList<>();
    for (Map<String, String> labels : nodeLabels) {
      Map<String, String> l = labels == null ? Map.of() : labels;
      String r = canonical(label(l, REGION, BETA_REGION));
      if (r != null) {
        regions.merge(r, 1, Integer::sum);
      }
      zones.add(label(l, ZONE, BETA_ZONE));
    }
    String region = canonical(regionOverride);
    if (region == null) {
      region = mostCommon(regions);
    }
    List<String> given =
        zonesOverride == null ? List.of() : new Topology(null, zonesOverride).zones;
    return new Topology(region, given.isEmpty() ? zones : given);
  }

  /** The topology of these API nodes, as {@link #of} reads their labels. */
  public static Topology ofNodes(
      Collection<Node> nodes, String regionOverride, List<String> zonesOverride) {
    return of(nodes.stream().map(Topology::labels).toList(), regionOverride, zonesOverride);
  }

  /** A node's labels; empty when it has none. */
  public static Map<String, String> labels(Node node) {
    return node.getMetadata() == null || node.getMetadata().getLabels() == null
        ? Map.of()
        : node.getMetadata().getLabels();
  }

  private static String mostCommon(Map<String, Integer> counts) {
    return counts.entrySet().stream()
        .min(
            Comparator.<Map.Entry<String, Integer>>comparingInt(e -> -e.getValue())
                .thenComparing(Map.Entry::getKey))
        .map(Map.Entry::getKey)
        .orElse(null);
  }

  private static String label(Map<String, String> labels, String key, String fallback) {
    String v = labels.get(key);
    return v == null || v.isBlank() ? labels.get(fallback) : v;
  }

  /** Trimmed and lowercase; null when blank. */
  private static String canonical(String value) {
    return value == null || value.isBlank() ? null : value.trim().toLowerCase(Locale.ROOT);
  }
}
