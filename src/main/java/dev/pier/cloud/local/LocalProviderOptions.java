package dev.pier.cloud.local;

import java.time.Duration;
import java.util.List;

/** Options of the in-process {@code local} load balancer provider, with defaults as constants. */
public final class LocalProviderOptions {

  public static final List<PoolSpec> DEFAULT_POOLS = List.of(PoolSpec.of("127.240.0.0/16"));
  public static final Duration DEFAULT_HEALTH_CHECK_INTERVAL = Duration.ofSeconds(2);
  public static final Duration DEFAULT_HEALTH_CHECK_TIMEOUT = Duration.ofSeconds(1);
  public static final int DEFAULT_UNHEALTHY_THRESHOLD = 2;
  public static final int DEFAULT_HEALTHY_THRESHOLD = 1;
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration DEFAULT_UDP_SESSION_TIMEOUT = Duration.ofSeconds(60);

  /** Open TCP connections one load balancer takes, over all its ports. */
  public static final int DEFAULT_MAX_CONNECTIONS_PER_LOAD_BALANCER = 10_000;

  /** Open TCP connections the provider takes over all its load balancers. */
  public static final int DEFAULT_MAX_CONNECTIONS = 50_000;

  /** A TCP connection without a byte either way for this long is closed; zero: never. */
  public static final Duration DEFAULT_TCP_IDLE_TIMEOUT = Duration.ofHours(1);

  /** UDP client sessions one load balancer keeps, over all its ports. */
  public static final int DEFAULT_MAX_UDP_SESSIONS_PER_LOAD_BALANCER = 10_000;

  /** UDP client sessions the provider keeps over all its load balancers. */
  public static final int DEFAULT_MAX_UDP_SESSIONS = 50_000;

  /** Open TCP connections the load balancers of one namespace take together; zero: no budget. */
  public static final int DEFAULT_MAX_CONNECTIONS_PER_NAMESPACE = 0;

  /** UDP client sessions the load balancers of one namespace keep together; zero: no budget. */
  public static final int DEFAULT_MAX_UDP_SESSIONS_PER_NAMESPACE = 0;

  /** At most one Warning Event per Service in this period when one of the limits bites. */
  public static final Duration DEFAULT_LIMIT_WARNING_INTERVAL = Duration.ofMinutes(5);

  private List<PoolSpec> pools = DEFAULT_POOLS;
  private Duration healthCheckInterval = DEFAULT_HEALTH_CHECK_INTERVAL;
  private Duration healthCheckTimeout = DEFAULT_HEALTH_CHECK_TIMEOUT;
  private int unhealthyThreshold = DEFAULT_UNHEALTHY_THRESHOLD;
  private int healthyThreshold = DEFAULT_HEALTHY_THRESHOLD;
  private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
  private Duration udpSessionTimeout = DEFAULT_UDP_SESSION_TIMEOUT;
  private int maxConnectionsPerLoadBalancer = DEFAULT_MAX_CONNECTIONS_PER_LOAD_BALANCER;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  private Duration tcpIdleTimeout = DEFAULT_TCP_IDLE_TIMEOUT;
  private int maxUdpSessionsPerLoadBalancer = DEFAULT_MAX_UDP_SESSIONS_PER_LOAD_BALANCER;
  private int maxUdpSessions = DEFAULT_MAX_UDP_SESSIONS;
  private int maxConnectionsPerNamespace = DEFAULT_MAX_CONNECTIONS_PER_NAMESPACE;
  private int maxUdpSessionsPerNamespace = DEFAULT_MAX_UDP_SESSIONS_PER_NAMESPACE;
  private Duration limitWarningInterval = DEFAULT_LIMIT_WARNING_INTERVAL;

  /**
   * Address pools, each CIDRs ({@code 127.240.0.0/16}) or ranges ({@code 10.0.0.10-10.0.0.20}),
   * optionally named and restricted to namespaces.
   */
  public List<PoolSpec> getPools() {
    return pools;
  }

  public LocalProviderOptions setPools(List<PoolSpec> pools) {
    this.pools = List.copyOf(pools);
    return this;
  }

  /** Pools written as CIDRs or ranges, each open to every namespace. */
  public LocalProviderOptions setPoolAddresses(List<String> addresses) {
    return setPools(PoolSpec.of(addresses));
  }

  public Duration getHealthCheckInterval() {
    return healthCheckInterval;
  }

  public LocalProviderOptions setHealthCheckInterval(Duration healthCheckInterval) {
    this.healthCheckInterval = healthCheckInterval;
    return this;
  }

  public Duration getHealthCheckTimeout() {
    return healthCheckTimeout;
  }

  public LocalProviderOptions setHealthCheckTimeout(Duration healthCheckTimeout) {
    this.healthCheckTimeout = healthCheckTimeout;
    return this;
  }

  /** Consecutive failed checks after which a backend stops receiving traffic. */
  public int getUnhealthyThreshold() {
    return unhealthyThreshold;
  }

  public LocalProviderOptions setUnhealthyThreshold(int unhealthyThreshold) {
    this.unhealthyThreshold = unhealthyThreshold;
    return this;
  }

  /** Consecutive passed checks after which an unhealthy backend receives traffic again. */
  public int getHealthyThreshold() {
    return healthyThreshold;
  }

  public LocalProviderOptions setHealthyThreshold(int healthyThreshold) {
    this.healthyThreshold = healthyThreshold;
    return this;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public LocalProviderOptions setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
    return this;
  }

  /** How long a UDP client's session to a backend lives without traffic. */
  public Duration getUdpSessionTimeout() {
    return udpSessionTimeout;
  }

  public LocalProviderOptions setUdpSessionTimeout(Duration udpSessionTimeout) {
    this.udpSessionTimeout = udpSessionTimeout;
    return this;
  }

  /** Open TCP connections one load balancer takes; one more is closed as soon as it arrives. */
  public int getMaxConnectionsPerLoadBalancer() {
    return maxConnectionsPerLoadBalancer;
  }

  public LocalProviderOptions setMaxConnectionsPerLoadBalancer(int max) {
    this.maxConnectionsPerLoadBalancer = max;
    return this;
  }

  /** Open TCP connections over all load balancers; one more is closed as soon as it arrives. */
  public int getMaxConnections() {
    return maxConnections;
  }

  public LocalProviderOptions setMaxConnections(int max) {
    this.maxConnections = max;
    return this;
  }

  /** How long a TCP connection may pass no byte either way before both sides close; zero: never. */
  public Duration getTcpIdleTimeout() {
    return tcpIdleTimeout;
  }

  public LocalProviderOptions setTcpIdleTimeout(Duration tcpIdleTimeout) {
    this.tcpIdleTimeout = tcpIdleTimeout;
    return this;
  }

  /** UDP sessions one load balancer keeps; a new client past it ends the least recently used. */
  public int getMaxUdpSessionsPerLoadBalancer() {
    return maxUdpSessionsPerLoadBalancer;
  }

  public LocalProviderOptions setMaxUdpSessionsPerLoadBalancer(int max) {
    this.maxUdpSessionsPerLoadBalancer = max;
    return this;
  }

  /**
   * UDP sessions over all load balancers; a new client past it ends the least recently used session
   * of its own load balancer, or is refused when that one holds none.
   */
  public int getMaxUdpSessions() {
    return maxUdpSessions;
  }

  public LocalProviderOptions setMaxUdpSessions(int max) {
    this.maxUdpSessions = max;
    return this;
  }

  /**
   * Open TCP connections of all load balancers of one namespace together; one more is closed as
   * soon as it arrives. Zero: no budget per namespace.
   */
  public int getMaxConnectionsPerNamespace() {
    return maxConnectionsPerNamespace;
  }

  public LocalProviderOptions setMaxConnectionsPerNamespace(int max) {
    this.maxConnectionsPerNamespace = max;
    return this;
  }

  /**
   * UDP sessions of all load balancers of one namespace together; a new client past it ends the
   * least recently used session of its own load balancer, or is refused. Zero: no budget.
   */
  public int getMaxUdpSessionsPerNamespace() {
    return maxUdpSessionsPerNamespace;
  }

  public LocalProviderOptions setMaxUdpSessionsPerNamespace(int max) {
    this.maxUdpSessionsPerNamespace = max;
    return this;
  }

  /** The shortest time between two Warning Events on one Service about a limit. */
  public Duration getLimitWarningInterval() {
    return limitWarningInterval;
  }

  public LocalProviderOptions setLimitWarningInterval(Duration limitWarningInterval) {
    this.limitWarningInterval = limitWarningInterval;
    return this;
  }
}
