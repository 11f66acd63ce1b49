package dev.pier.cli;

import dev.pier.dns.DnsNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The DNS names Pier publishes for a federated Service (docs/dns.md): the global name, one per
 * region of the members with a copy, and one per zone there. A member whose region is not known
 * (one from Pier's config file, which has no Secret) adds only to the global name.
 */
final class ServiceNames {
  private ServiceNames() {}

  /** A member's region and zones as its Secret reports them. */
  record Place(String region, List<String> zones) {}

  static List<String> of(
      DnsNames names,
      String namespace,
      String service,
      Collection<String> clusters,
      Map<String, Place> places) {
    TreeSet<String> regions = new TreeSet<>();
    TreeSet<String> zones = new TreeSet<>();
    for (String cluster : clusters) {
      Place p = places.get(cluster);
      if (p == null || p.region() == null || p.region().isEmpty()) {
        continue;
      }
      regions.add(names.region(namespace, service, p.region()));
      for (String zone : p.zones()) {
        zones.add(names.zone(namespace, service, zone, p.region()));
      }
    }
    List<String> out = new ArrayList<>();
    out.add(names.global(namespace, service));
    out.addAll(regions);
    out.addAll(zones);
    return out;
  }
}
