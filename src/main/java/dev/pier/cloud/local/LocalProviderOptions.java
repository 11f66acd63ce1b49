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

  private List<PoolSpec> pools = DEFAULT_POOLS;
  private Duration healthCheckInterval = DEFAULT_HEALTH_CHECK_INTERVAL;
  private Duration healthCheckTimeout = DEFAULT_HEALTH_CHECK_TIMEOUT;
  private int unhealthyThreshold = DEFAULT_UNHEALTHY_THRESHOLD;
  private int healthyThreshold = DEFAULT_HEALTHY_THRESHOLD;
  private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
  private Duration udpSessionTimeout = DEFAULT_UDP_SESSION_TIMEOUT;

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
}
