package dev.pier.cloud.local;

import dev.pier.model.ServiceRef;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one load balancer holds open over all its ports, against its own limits and the provider's
 * ({@link ProxyLimits}): TCP connections, refused over a limit, and UDP sessions, the least
 * recently used ended for a new client at a limit. Published as gauges and counters labelled with
 * the Service (counters appear when a limit first bites); a limit that bites also warns the Service
 * ({@link LimitWarning}). Confined to the provider's context.
 */
final class LoadBalancerUsage {

  /** The {@code limit} label of a refusal or eviction by the load balancer's own limit. */
  static final String LOAD_BALANCER = "load_balancer";

  /** The {@code limit} label of a refusal or eviction by the provider's limit over all. */
  static final String GLOBAL = "global";

  private final ServiceRef service;
  private final ProxyLimits limits;
  private final LimitWarning warning;
  private final Tags tags;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger udpSessionCount = new AtomicInteger();

  /** This load balancer's UDP sessions, least recently used first. */
  private final LinkedHashMap<UdpSession, Boolean> udpSessions =
      new LinkedHashMap<>(16, 0.75f, true);

  private final List<Meter> meters = new ArrayList<>(6);
  private boolean closed;

  LoadBalancerUsage(ServiceRef service, ProxyLimits limits) {
    this.service = service;
    this.limits = limits;
    this.warning =
        new LimitWarning(
            service, limits.events, limits.options.getLimitWarningInterval(), System::nanoTime);
    this.tags =
        Tags.of(
            "cluster",
            service.cluster(),
            "namespace",
            service.namespace(),
            "service",
            service.name());
    meters.add(
        Gauge.builder("pier.local.connections", connections, AtomicInteger::get)
            .description("Open TCP connections of a Service's local load balancer")
            .tags(tags)
            .register(limits.registry));
    meters.add(
        Gauge.builder("pier.local.udp.sessions", udpSessionCount, AtomicInteger::get)
            .description("UDP client sessions of a Service's local load balancer")
            .tags(tags)
            .register(limits.registry));
  }

  ProxyLimits.Open open() {
    return new ProxyLimits.Open(connections.get(), udpSessions.size());
  }

  /**
   * Takes a connection slot for a client that just connected; false, counted and reported, when
   * this load balancer or the provider is at its limit.
   */
  boolean admitConnection(String client, PortListener on) {
    int max = limits.options.getMaxConnectionsPerLoadBalancer();
    if (connections.get() >= max) {
      refused(
          LOAD_BALANCER,
          "refused a connection from "
              + client
              + " on "
              + on.describe()
              + ": the load balancer has its limit of "
              + max
              + " connections open (local.maxConnectionsPerLoadBalancer)");
      return false;
    }
    if (!limits.takeConnection()) {
      refused(
          GLOBAL,
          "refused a connection from "
              + client
              + " on "
              + on.describe()
              + ": the local provider has its limit of "
              + limits.options.getMaxConnections()
              + " connections open over all load balancers (local.maxConnections)");
      return false;
    }
    connections.incrementAndGet();
    return true;
  }

  void connectionClosed() {
    connections.decrementAndGet();
    limits.connectionClosed();
  }

  /**
   * Takes in a new client's session, first ending the least recently used sessions that the limits
   * leave no room for: this load balancer's own, then any load balancer's.
   */
  void addUdpSession(UdpSession session) {
    int max = limits.options.getMaxUdpSessionsPerLoadBalancer();
    while (udpSessions.size() >= max && !udpSessions.isEmpty()) {
      evict(udpSessions.keySet().iterator().next(), LOAD_BALANCER);
    }
    limits.makeRoomForUdpSession();
    udpSessions.put(session, Boolean.TRUE);
    udpSessionCount.set(udpSessions.size());
    limits.udpSessionAdded(session, this);
  }

  /** Marks a session as just used (a datagram either way). */
  void udpSessionUsed(UdpSession session) {
    if (udpSessions.get(session) != null) {
      limits.udpSessionUsed(session);
    }
  }

  /** Forgets a session that ended, for whatever reason; a session not held is ignored. */
  void udpSessionEnded(UdpSession session) {
    if (udpSessions.remove(session) != null) {
      udpSessionCount.set(udpSessions.size());
      limits.udpSessionEnded(session);
    }
  }

  /** Ends a session to make room for a new client, counted and reported. */
  void evict(UdpSession session, String limit) {
    session.close();
    // Closing reports the end through the session's listener; forget it here in any case.
    udpSessionEnded(session);
    if (closed) {
      return;
    }
    counter(
            "pier.local.udp.sessions.evicted",
            "UDP sessions ended for a new client at a limit",
            limit)
        .increment();
    warning.bite(
        "ended the least recently used UDP session, of client "
            + session.id()
            + ", for a new client: "
            + (limit.equals(LOAD_BALANCER)
                ? "the load balancer holds its limit of "
                    + limits.options.getMaxUdpSessionsPerLoadBalancer()
                    + " UDP sessions (local.maxUdpSessionsPerLoadBalancer)"
                : "the local provider holds its limit of "
                    + limits.options.getMaxUdpSessions()
                    + " UDP sessions over all load balancers (local.maxUdpSessions)"));
  }

  /** Removes this load balancer's meters; what is still open keeps being counted in the limits. */
  void close() {
    closed = true;
    for (Meter m : meters) {
      limits.registry.remove(m);
    }
    meters.clear();
  }

  private void refused(String limit, String message) {
    if (closed) {
      return;
    }
    counter("pier.local.connections.refused", "TCP connections refused at a limit", limit)
        .increment();
    warning.bite(message);
  }

  private Counter counter(String name, String description, String limit) {
    Counter c =
        Counter.builder(name)
            .description(description)
            .tags(tags)
            .tag("limit", limit)
            .register(limits.registry);
    if (!meters.contains(c)) {
      meters.add(c);
    }
    return c;
  }
}
