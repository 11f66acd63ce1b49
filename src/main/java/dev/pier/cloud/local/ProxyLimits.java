package dev.pier.cloud.local;

import dev.pier.events.EventSink;
import dev.pier.model.ServiceRef;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's limits over all its load balancers: open TCP connections, and UDP sessions with
 * the least recently used first, so that a new client at the limit ends the one idle longest. Each
 * load balancer's own share and limits are its {@link LoadBalancerUsage}. Confined to the
 * provider's context.
 */
final class ProxyLimits {

  private static final Logger log = LoggerFactory.getLogger(ProxyLimits.class);

  final LocalProviderOptions options;
  final MeterRegistry registry;
  final EventSink events;
  private final AtomicInteger connections = new AtomicInteger();

  /** Every UDP session, least recently used first, with the load balancer it belongs to. */
  private final LinkedHashMap<UdpSession, LoadBalancerUsage> udpSessions =
      new LinkedHashMap<>(16, 0.75f, true);

  ProxyLimits(LocalProviderOptions options, MeterRegistry registry, EventSink events) {
    this.options = options;
    this.registry = registry;
    this.events = events;
  }

  LoadBalancerUsage forLoadBalancer(ServiceRef service) {
    return new LoadBalancerUsage(service, this);
  }

  /** Takes a connection slot; false when all {@code local.maxConnections} are taken. */
  boolean takeConnection() {
    if (connections.get() >= options.getMaxConnections()) {
      return false;
    }
    connections.incrementAndGet();
    return true;
  }

  void connectionClosed() {
    connections.decrementAndGet();
  }

  /** Open TCP connections and UDP sessions. */
  record Open(int connections, int udpSessions) {}

  Open open() {
    return new Open(connections.get(), udpSessions.size());
  }

  /** Ends least recently used sessions, of any load balancer, until a new one fits. */
  void makeRoomForUdpSession() {
    while (!udpSessions.isEmpty() && udpSessions.size() >= options.getMaxUdpSessions()) {
      Map.Entry<UdpSession, LoadBalancerUsage> eldest = udpSessions.entrySet().iterator().next();
      udpSessions.remove(eldest.getKey());
      eldest.getValue().evict(eldest.getKey(), LoadBalancerUsage.GLOBAL);
    }
  }

  void udpSessionAdded(UdpSession session, LoadBalancerUsage usage) {
    udpSessions.put(session, usage);
  }

  void udpSessionUsed(UdpSession session) {
    udpSessions.get(session);
  }

  void udpSessionEnded(UdpSession session) {
    udpSessions.remove(session);
  }

  /**
   * Logs a warning when the limits could need more file descriptors than the process may open: a
   * proxied TCP connection holds two (client and backend), a UDP session one.
   */
  void checkFileDescriptors() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (!(os instanceof com.sun.management.UnixOperatingSystemMXBean unix)) {
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
