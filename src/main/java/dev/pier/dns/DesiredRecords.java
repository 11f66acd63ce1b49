package dev.pier.dns;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    return compute(names, namespace, service, serving, AnswerPolicy.roundRobin(ttl), owner);
  }

  /**
   * As {@link #compute(DnsNames, String, String, List, long, String)}, the global name answering as
   * {@code policy}'s strategy says (see {@link GlobalAnswers}).
   */
  public static Map<String, List<RecordSet>> compute(
      DnsNames names,
      String namespace,
      String service,
      List<ServingCluster> serving,
      AnswerPolicy policy,
      String owner) {
    Map<String, List<RecordSet>> out = new LinkedHashMap<>();
    for (Level l : levels(names, namespace, service, serving)) {
      out.put(l.name(), level(l, serving, policy, owner));
    }
    return out;
  }

  /**
   * The names fed by a healthy cluster whose addresses are not known (a hostname that did not
   * resolve): what they should hold cannot be computed, so they keep what they have.
   */
  public static Set<String> unknown(
      DnsNames names, String namespace, String service, List<ServingCluster> serving) {
    Set<String> out = new LinkedHashSet<>();
    for (Level l : levels(names, namespace, service, serving)) {
      if (serving.stream().anyMatch(c -> c.addressesUnknown() && l.atLevel().test(c))) {
        out.add(l.name());
      }
    }
    return out;
  }

  /** One name: the clusters it answers with, and the name above it (null for the global one). */
  private record Level(String name, Predicate<ServingCluster> atLevel, String up) {}

  /** Every name of the Service, zones first, global last. */
  private static List<Level> levels(
      DnsNames names, String namespace, String service, List<ServingCluster> serving) {
    Map<String, Level> out = new LinkedHashMap<>();
    String global = names.global(namespace, service);
    TreeSet<String> regions = new TreeSet<>();
    for (ServingCluster c : serving) {
      if (!c.hasAddresses() && c.unresolved().isEmpty()) {
        continue;
      }
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
        out.putIfAbsent(
            name,
            new Level(
                name,
                d -> region.equals(d.location().region()) && d.location().zones().contains(zone),
                names.region(namespace, service, region)));
      }
    }
    for (String region : regions) {
      String name = names.region(namespace, service, region);
      out.put(name, new Level(name, d -> region.equals(d.location().region()), global));
    }
    out.put(global, new Level(global, d -> true, null));
    return List.copyOf(out.values());
  }

  private static List<RecordSet> level(
      Level level, List<ServingCluster> clusters, AnswerPolicy policy, String owner) {
    String name = level.name();
    long ttl = policy.ttl();
    if (level.up() == null) {
      return GlobalAnswers.records(
          name, clusters.stream().filter(ServingCluster::healthy).toList(), policy, owner);
    }
    TreeSet<String> v4 = new TreeSet<>();
    TreeSet<String> v6 = new TreeSet<>();
    for (ServingCluster c : clusters) {
      if (c.healthy() && level.atLevel().test(c)) {
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
    if (sets.isEmpty() && level.up() != null) {
      sets.add(new RecordSet(name, RecordSet.CNAME, ttl, List.of(level.up()), owner));
    }
    return List.copyOf(sets);
  }
}
