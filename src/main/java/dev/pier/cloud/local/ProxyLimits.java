package dev.pier.cloud.local;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.pier.events.EventSink;
import dev.pier.model.ServiceRef;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's limits over all its load balancers, and its budgets per namespace: open TCP
 * connections and UDP sessions. A limit here never ends another load balancer's session: a new
 * client at one of them ends the least recently used session of its own load balancer, or is
 * refused ({@link LoadBalancerUsage}). Confined to the provider's context.
 */
final class ProxyLimits {

  private static final Logger log = LoggerFactory.getLogger(ProxyLimits.class);

  final LocalProviderOptions options;
  final MeterRegistry registry;
  final EventSink events;
  private final AtomicInteger connections = new AtomicInteger();

  /** Every UDP session, with the load balancer it belongs to. */
  private final Map<UdpSession, LoadBalancerUsage> udpSessions = new HashMap<>();

  /** Open connections and UDP sessions per namespace: [connections, sessions]. */
  private final Map<String, int[]> byNamespace = new HashMap<>();

  ProxyLimits(LocalProviderOptions options, MeterRegistry registry, EventSink events) {
    this.options = options;
    this.registry = registry;
    this.events = events;
  }

  LoadBalancerUsage forLoadBalancer(ServiceRef service) {
    return new LoadBalancerUsage(service, this);
  }

  /**
   * Takes a connection slot for a load balancer of {@code namespace}; null when taken, else the
   * limit that refuses it ({@link LoadBalancerUsage#GLOBAL} or {@link
   * LoadBalancerUsage#NAMESPACE}).
   */
  String takeConnection(String namespace) {
    if (connections.get() >= options.getMaxConnections()) {
      return LoadBalancerUsage.GLOBAL;
    }
    int budget = options.getMaxConnectionsPerNamespace();
    int[] ns = byNamespace.computeIfAbsent(namespace, k -> new int[2]);
    if (budget > 0 && ns[0] >= budget) {
      return LoadBalancerUsage.NAMESPACE;
    }
    ns[0]++;
    connections.incrementAndGet();
    return null;
  }

  void connectionClosed(String namespace) {
    connections.decrementAndGet();
    release(namespace, 0);
  }

  /**
   * Which limit has no room for another UDP session of {@code namespace}: {@link
   * LoadBalancerUsage#GLOBAL}, {@link LoadBalancerUsage#NAMESPACE}, or null when both have.
   */
  String udpFull(String namespace) {
    if (udpSessions.size() >= options.getMaxUdpSessions()) {
      return LoadBalancerUsage.GLOBAL;
    }
    int budget = options.getMaxUdpSessionsPerNamespace();
    int[] ns = byNamespace.get(namespace);
    return budget > 0 && ns != null && ns[1] >= budget ? LoadBalancerUsage.NAMESPACE : null;
  }

  /** Open TCP connections and UDP sessions. */
  record Open(int connections, int udpSessions) {}

  Open open() {
    return new Open(connections.get(), udpSessions.size());
  }

  void udpSessionAdded(UdpSession session, LoadBalancerUsage usage) {
    if (udpSessions.put(session, usage) == null) {
      byNamespace.computeIfAbsent(usage.namespace(), k -> new int[2])[1]++;
    }
  }

  void udpSessionEnded(UdpSession session) {
    LoadBalancerUsage usage = udpSessions.remove(session);
    if (usage != null) {
      release(usage.namespace(), 1);
    }
  }

  private void release(String namespace, int which) {
    int[] ns = byNamespace.get(namespace);
    if (ns != null) {
      ns[which]--;
      if (ns[0] <= 0 && ns[1] <= 0) {
        byNamespace.remove(namespace);
      }
    }
  }

  /**
   * Logs a warning when the limits could need more file descriptors than the process may open: a
   * proxied TCP connection holds two (client and backend), a UDP session one.
   */
  void checkFileDescriptors() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (!(os instanceof UnixOperatingSystemMXBean unix)) {
      return;
    }
    long needed = 2L * options.getMaxConnections() + options.getMaxUdpSessions();
    long allowed = unix.getMaxFileDescriptorCount();
    if (needed > allowed) {
      log.warn(
          "The local provider's limits (local.maxConnections {}, local.maxUdpSessions {}) need"
              + " up to {} file descriptors, the process may open {}: raise its limit (ulimit -n)"
              + " or lower these options, or connections will fail before the limits refuse them",
          options.getMaxConnections(),
          options.getMaxUdpSessions(),
          needed,
          allowed);
    }
  }
}
