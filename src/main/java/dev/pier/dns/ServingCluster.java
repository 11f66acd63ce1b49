package dev.pier.dns;

import java.util.List;

/**
 * One cluster that serves a Service: its location, the addresses of its load balancer, and whether
 * endpoints are ready behind them. A Service's names are computed from a list of these, one per
 * cluster.
 *
 * @param ipv4 IPv4 ingress addresses (hostnames already resolved)
 * @param ipv6 IPv6 ingress addresses
 * @param healthy the Service has at least one ready endpoint address in this cluster
 * @param unresolved the ingress hostnames that could not be resolved, each with the reason: while
 *     any is left, the cluster's addresses are not known, and the names it feeds keep their records
 */
public record ServingCluster(
    ClusterLocation location,
    List<String> ipv4,
    List<String> ipv6,
    boolean healthy,
    List<String> unresolved) {
  public ServingCluster {
    ipv4 = List.copyOf(ipv4);
    ipv6 = List.copyOf(ipv6);
    unresolved = List.copyOf(unresolved);
  }

  public ServingCluster(
      ClusterLocation location, List<String> ipv4, List<String> ipv6, boolean healthy) {
    this(location, ipv4, ipv6, healthy, List.of());
  }

  boolean hasAddresses() {
    return !ipv4.isEmpty() || !ipv6.isEmpty();
  }

  /** Healthy, yet with addresses that could not all be resolved: its names cannot be computed. */
  public boolean addressesUnknown() {
    return healthy && !unresolved.isEmpty();
  }
}
