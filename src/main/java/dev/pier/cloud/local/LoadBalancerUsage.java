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

  /** The {@code limit} label of a refusal or eviction by the budget of the Service's namespace. */
  static final String NAMESPACE = "namespace";

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
    String full = limits.takeConnection(service.namespace());
    if (full != null) {
      refused(
          full,
          "refused a connection from "
              + client
              + " on "
              + on.describe()
              + ": "
              + (full.equals(GLOBAL)
                  ? "the local provider has its limit of "
                      + limits.options.getMaxConnections()
                      + " connections open over all load balancers (local.maxConnections)"
                  : "namespace "
                      + service.namespace()
                      + " has its budget of "
                      + limits.options.getMaxConnectionsPerNamespace()
                      + " connections open over its load balancers"
                      + " (local.maxConnectionsPerNamespace)"));
      return false;
    }
    connections.incrementAndGet();
    return true;
  }

  void connectionClosed() {
    connections.decrementAndGet();
    limits.connectionClosed(service.namespace());
  }

  String namespace() {
    return service.namespace();
  }

  /**
   * Takes in a new client's session, first ending the least recently used sessions of this load
   * balancer that a limit leaves no room for; never another load balancer's. False, counted and
   * reported, when the provider's limit or the namespace's budget is full and this load balancer
   * holds no session to end: the client is refused.
   */
  boolean addUdpSession(UdpSession session) {
    int max = limits.options.getMaxUdpSessionsPerLoadBalancer();
    while (udpSessions.size() >= max && !udpSessions.isEmpty()) {
      evict(udpSessions.keySet().iterator().next(), LOAD_BALANCER);
    }
    String full;
    while ((full = limits.udpFull(service.namespace())) != null && !udpSessions.isEmpty()) {
      evict(udpSessions.keySet().iterator().next(), full);
    }
    full = limits.udpFull(service.namespace());
    if (full != null) {
      refusedUdp(session, full);
      return false;
    }
    udpSessions.put(session, Boolean.TRUE);
    udpSessionCount.set(udpSessions.size());
    limits.udpSessionAdded(session, this);
    return true;
  }

  /** Marks a session as just used (a datagram either way). */
  void udpSessionUsed(UdpSession session) {
    udpSessions.get(session);
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
            + limitText(limit));
  }

  /** Removes this load balancer's meters; what is still open keeps being counted in the limits. */
  void close() {
    closed = true;
    for (Meter m : meters) {
      limits.registry.remove(m);
    }
    meters.clear();
  }

  private void refusedUdp(UdpSession session, String limit) {
    if (closed) {
      return;
    }
    counter(
            "pier.local.udp.sessions.refused",
            "New UDP clients refused at a limit where their load balancer held no session to end",
            limit)
        .increment();
    warning.bite(
        "refused a new UDP client, "
            + session.id()
            + ": "
            + limitText(limit)
            + ", held by other load balancers' sessions");
  }

  private String limitText(String limit) {
    return switch (limit) {
      case LOAD_BALANCER ->
          "the load balancer holds its limit of "
              + limits.options.getMaxUdpSessionsPerLoadBalancer()
              + " UDP sessions (local.maxUdpSessionsPerLoadBalancer)";
      case NAMESPACE ->
          "namespace "
              + service.namespace()
              + " holds its budget of "
              + limits.options.getMaxUdpSessionsPerNamespace()
              + " UDP sessions (local.maxUdpSessionsPerNamespace)";
      default ->
          "the local provider holds its limit of "
              + limits.options.getMaxUdpSessions()
              + " UDP sessions over all load balancers (local.maxUdpSessions)";
    };
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
