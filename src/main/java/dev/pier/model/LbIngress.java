package dev.pier.model;

import java.util.List;

/**
 * One entry of {@code status.loadBalancer.ingress}. {@code ipMode} is {@code VIP}, {@code Proxy} or
 * null; {@code ports} carries per-port errors where the API server supports them (1.24+).
 */
public record LbIngress(String ip, String hostname, String ipMode, List<PortStatus> ports) {
  /** The mode a server that knows {@code ipMode} stores for an {@code ip} without one. */
  public static final String VIP = "VIP";

  public LbIngress {
    ports = ports == null ? List.of() : List.copyOf(ports);
  }

  public static LbIngress ip(String ip) {
    return new LbIngress(ip, null, null, List.of());
  }

  public static LbIngress hostname(String hostname) {
    return new LbIngress(null, hostname, null, List.of());
  }

  /**
   * {@code status.loadBalancer.ingress[].ports[]}: a port and, when it failed, a CamelCase error.
   */
  public record PortStatus(int port, String protocol, String error) {}
}
