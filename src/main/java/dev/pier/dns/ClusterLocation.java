package dev.pier.dns;

import java.util.List;

/**
 * Where a cluster's nodes run.
 *
 * @param region null when the nodes carry no region label
 * @param zones every zone the nodes are in, sorted; empty when none is known
 */
public record ClusterLocation(String cluster, String region, List<String> zones) {
  public ClusterLocation {
    zones = zones == null ? List.of() : zones.stream().distinct().sorted().toList();
    if (region == null) {
      zones = List.of();
    }
  }
}
