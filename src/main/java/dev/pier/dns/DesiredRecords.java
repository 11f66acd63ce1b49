package dev.pier.dns;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The records a Service's names should have, from the clusters serving it. Each level gets A
 * records for the IPv4 and AAAA records for the IPv6 ingress addresses of the clusters at that
 * level with ready endpoints; a zone or region level without any becomes a CNAME to the level
 * above; the global name without any has no records. Region and zone names exist for every region
 * and zone of a serving cluster.
 */
public final class DesiredRecords {
  private DesiredRecords() {}

  /**
   * @return every name of the Service with its desired rrsets, zones first, global last; an empty
   *     list means the name must have none of Pier's records
   */
  public static Map<String, List<RecordSet>> compute(
      DnsNames names,
      String namespace,
      String service,
      List<ServingCluster> serving,
      long ttl,
      String owner) {
    List<ServingCluster> clusters = serving.stream().filter(ServingCluster::hasAddresses).toList();
    Map<String, List<RecordSet>> out = new LinkedHashMap<>();
    String global = names.global(namespace, service);
    TreeSet<String> regions = new TreeSet<>();
    for (ServingCluster c : clusters) {
      String region = c.location().region();
      if (!DnsNames.isLabel(region)) {
        continue;
      }
      regions.add(region);
      for (String zone : c.location().zones()) {
        if (!DnsNames.isLabel(zone)) {
          continue;
        }
        String name = names.zone(namespace, service, zone, region);
        if (out.containsKey(name)) {
          continue;
        }
        out.put(
            name,
            level(
                name,
                clusters,
                d -> region.equals(d.location().region()) && d.location().zones().contains(zone),
                names.region(namespace, service, region),
                ttl,
                owner));
      }
    }
    for (String region : regions) {
      String name = names.region(namespace, service, region);
      out.put(
          name,
          level(name, clusters, d -> region.equals(d.location().region()), global, ttl, owner));
    }
    out.put(global, level(global, clusters, d -> true, null, ttl, owner));
    return out;
  }

  private static List<RecordSet> level(
      String name,
      List<ServingCluster> clusters,
      Predicate<ServingCluster> atLevel,
      String up,
      long ttl,
      String owner) {
    TreeSet<String> v4 = new TreeSet<>();
    TreeSet<String> v6 = new TreeSet<>();
    for (ServingCluster c : clusters) {
      if (c.healthy() && atLevel.test(c)) {
        v4.addAll(c.ipv4());
        v6.addAll(c.ipv6());
      }
    }
    List<RecordSet> sets = new ArrayList<>();
    if (!v4.isEmpty()) {
      sets.add(new RecordSet(name, RecordSet.A, ttl, List.copyOf(v4), owner));
    }
    if (!v6.isEmpty()) {
      sets.add(new RecordSet(name, RecordSet.AAAA, ttl, List.copyOf(v6), owner));
    }
    if (sets.isEmpty() && up != null) {
      sets.add(new RecordSet(name, RecordSet.CNAME, ttl, List.of(up), owner));
    }
    return List.copyOf(sets);
  }
}
