package dev.pier.model;

/** One port of a LoadBalancer Service as a load balancer sees it. */
public record LbPort(String name, String protocol, int port, int nodePort) {

  public LbPort {
    protocol = protocol == null ? "TCP" : protocol;
    name = name == null ? "" : name;
  }

  /** {@code 80/TCP}, the form used in messages. */
  public String label() {
    return port + "/" + protocol;
  }
}
