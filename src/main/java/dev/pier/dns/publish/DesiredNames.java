package dev.pier.dns.publish;

import dev.pier.dns.AnswerPolicy;
import dev.pier.dns.DesiredRecords;
import dev.pier.dns.DnsNames;
import dev.pier.dns.RecordSet;
import dev.pier.dns.ServingCluster;
import dev.pier.model.ServiceKey;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one sync of a Service's names is to bring about, before DNS is read: the records each name
 * should hold, the names that cannot exist, and the names that cannot be computed now.
 *
 * @param desired the records each name should hold, by name: every name this sync may change, an
 *     empty list for a name whose records go
 * @param invalid names over DNS's length limits, never sent, each with its problem
 * @param unknown names fed by a cluster whose addresses are not known: left as they are
 * @param kept the unknown names that hold the Service's records now, and keep them
 * @param before the names holding the Service's records before this sync
 */
record DesiredNames(
    Map<String, List<RecordSet>> desired,
    Map<String, String> invalid,
    Set<String> unknown,
    Set<String> kept,
    Set<String> before) {

  /**
   * @param zone the zone's name; names outside it or the domain filter are not Pier's to write
   * @param policy how the names answer (strategy and TTLs)
   * @param mark the owner mark the records carry
   * @param before the names holding the Service's records now
   */
  static DesiredNames of(
      DnsNames names,
      DnsOptions options,
      String zone,
      ServiceKey key,
      List<ServingCluster> serving,
      AnswerPolicy policy,
      String mark,
      Set<String> before) {
    Map<String, List<RecordSet>> desired = new LinkedHashMap<>();
    Map<String, String> invalid = new LinkedHashMap<>();
    DesiredRecords.compute(names, key.namespace(), key.name(), serving, policy, mark)
        .forEach(
            (name, sets) -> {
              if (!manages(zone, options.getDomainFilter(), name)) {
                return;
              }
              Optional<String> problem = DnsNames.nameProblem(name);
              if (problem.isPresent()) {
                invalid.put(name, problem.get());
              } else {
                desired.put(name, sets);
              }
            });
    Set<String> unknown = DesiredRecords.unknown(names, key.namespace(), key.name(), serving);
    desired.keySet().removeAll(unknown);
    for (String name : before) {
      if (!unknown.contains(name)) {
        desired.putIfAbsent(name, List.of());
      }
    }
    Set<String> kept = new LinkedHashSet<>(before);
    kept.retainAll(unknown);
    return new DesiredNames(desired, invalid, unknown, kept, before);
  }

  /** Nothing to hold and nothing held: DNS need not be read at all. */
  boolean none() {
    return desired.values().stream().allMatch(List::isEmpty) && before.isEmpty();
  }

  /** Inside the zone and the domain filter. */
  static boolean manages(String zone, List<String> domainFilter, String name) {
    if (!DnsNames.within(name, zone)) {
      return false;
    }
    return domainFilter.isEmpty() || domainFilter.stream().anyMatch(d -> DnsNames.within(name, d));
  }
}
