package dev.pier.dns.publish;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.DnsNames;
import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.kube.ClusterAccess;
import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceRef;
import dev.pier.nodes.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a cluster's names go: its region and zones, from its nodes' labels by the one {@link
 * Topology} rule, or from {@code dns.topology.*} where set.
 */
final class ClusterLocator {
  // Under the publisher's name, where every line of DNS publishing is logged.
  private static final ServiceLog serviceLog = ServiceLog.of(DnsPublisher.class);

  private final DnsOptions options;

  ClusterLocator(DnsOptions options) {
    this.options = options;
  }

  /** The cluster's region and zones, from its nodes or the configuration. */
  ClusterLocation locate(ClusterAccess cluster) {
    Topology t = Topology.ofNodes(cluster.nodes(), options.getRegion(), options.getZones());
    return new ClusterLocation(cluster.name(), t.region(), t.zones());
  }

  /**
   * One Warning when the region or a zone is not a DNS label: its names cannot exist, and only the
   * nodes' labels or {@code dns.topology.*} can change that.
   */
  void reportUnusable(
      ClusterAccess cluster, ServiceRef service, ObjectRef ref, ClusterLocation location) {
    List<String> bad = new ArrayList<>();
    if (location.region() != null && !DnsNames.isLabel(location.region())) {
      bad.add("region '" + location.region() + "'");
    }
    location.zones().stream()
        .filter(z -> !DnsNames.isLabel(z))
        .forEach(z -> bad.add("zone '" + z + "'"));
    if (bad.isEmpty()) {
      return;
    }
    String msg =
        "No DNS name for node label "
            + String.join(", ", bad)
            + " of "
            + Topology.REGION
            + "/"
            + Topology.ZONE
            + " (or the failure-domain.beta labels): not a DNS label; set dns.topology.*";
    serviceLog.warn(service, "{}", msg);
    cluster.events().warning(ref, EventReasons.INVALID_DNS_LABEL, msg);
  }
}
