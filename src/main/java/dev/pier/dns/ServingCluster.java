package dev.pier.dns;

import java.util.List;

/**
 * One cluster that serves a Service: its location, the addresses of its load balancer, and whether
 * endpoints are ready behind them. A Service's names are computed from a list of these, one per
 * cluster; today that is the cluster Pier runs against.
 *
 * @param ipv4 IPv4 ingress addresses (hostnames already resolved)
 * @param ipv6 IPv6 ingress addresses
 * @param healthy the Service has at least one ready endpoint address in this cluster
 */
public record ServingCluster(
    ClusterLocation location, List<String> ipv4, List<String> ipv6, boolean healthy) {
  public ServingCluster {
    ipv4 = List.copyOf(ipv4);
    ipv6 = List.copyOf(ipv6);
  }

  boolean hasAddresses() {
    return !ipv4.isEmpty() || !ipv6.isEmpty();
  }
}
