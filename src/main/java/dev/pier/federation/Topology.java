package dev.pier.federation;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A member's region and zones, from its nodes' {@code topology.kubernetes.io/region|zone} labels,
 * falling back per node to the {@code failure-domain.beta.kubernetes.io} ones. Zones are every
 * distinct zone, sorted. The region is the most common one among the nodes (on a tie, the smallest
 * name): one mislabelled node does not move the cluster. A non-empty override wins.
 *
 * @param region null when no node has one and there is no override
 */
public record Topology(String region, List<String> zones) {
  public static final String REGION = "topology.kubernetes.io/region";
  public static final String ZONE = "topology.kubernetes.io/zone";
  public static final String BETA_REGION = "failure-domain.beta.kubernetes.io/region";
  public static final String BETA_ZONE = "failure-domain.beta.kubernetes.io/zone";

  public Topology {
    zones = zones == null ? List.of() : List.copyOf(zones);
  }

  public static Topology of(
      Collection<Node> nodes, String regionOverride, List<String> zonesOverride) {
    Map<String, Integer> regions = new HashMap<>();
    TreeSet<String> zones = new TreeSet<>();
    for (Node n : nodes) {
      Map<String, String> labels =
          n.getMetadata() == null || n.getMetadata().getLabels() == null
              ? Map.of()
              : n.getMetadata().getLabels();
      String r = label(labels, REGION, BETA_REGION);
      if (r != null) {
        regions.merge(r, 1, Integer::sum);
      }
      String z = label(labels, ZONE, BETA_ZONE);
      if (z != null) {
        zones.add(z);
      }
    }
    String region =
        regions.entrySet().stream()
            .sorted(
                Map.Entry.<String, Integer>comparingByValue()
                    .reversed()
                    .thenComparing(Map.Entry.comparingByKey()))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElse(null);
    if (regionOverride != null && !regionOverride.isBlank()) {
      region = regionOverride.trim();
    }
    List<String> chosenZones = List.copyOf(zones);
    if (zonesOverride != null) {
      List<String> given =
          zonesOverride.stream().filter(z -> z != null && !z.isBlank()).map(String::trim).toList();
      if (!given.isEmpty()) {
        chosenZones = given;
      }
    }
    return new Topology(region, chosenZones);
  }

  private static String label(Map<String, String> labels, String key, String fallback) {
    String v = labels.get(key);
    if (v == null || v.isEmpty()) {
      v = labels.get(fallback);
    }
    return v == null || v.isEmpty() ? null : v;
  }
}
