package dev.pier.cloud.hetzner;

import dev.pier.util.AnswerLimit;
import dev.pier.util.Egress;
import java.time.Duration;

/** Options of the Hetzner Cloud provider, with defaults as constants. */
public final class HetznerOptions {

  /**
   * Plain http to another machine is refused while a credential is configured, unless allowed: the
   * credential would cross the network in clear text.
   */
  public static final boolean DEFAULT_ALLOW_HTTP = false;

  public static final String DEFAULT_ENDPOINT = "https://api.hetzner.cloud/v1";
  public static final String DEFAULT_LOCATION = "";
  public static final String DEFAULT_NETWORK_ZONE = "eu-central";
  public static final String DEFAULT_TYPE = "lb11";
  public static final String DEFAULT_ALGORITHM = "round_robin";
  public static final Duration DEFAULT_HEALTH_CHECK_INTERVAL = Duration.ofSeconds(10);
  public static final Duration DEFAULT_HEALTH_CHECK_TIMEOUT = Duration.ofSeconds(15);
  public static final int DEFAULT_HEALTH_CHECK_RETRIES = 3;
  public static final boolean DEFAULT_USE_PRIVATE_IP = false;
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_CONNECTIONS = 0;
  public static final Duration DEFAULT_ACTION_POLL_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_ACTION_TIMEOUT = Duration.ofMinutes(5);
  public static final Duration DEFAULT_RATE_LIMIT_MAX_WAIT = Duration.ofSeconds(60);
  public static final boolean DEFAULT_ORPHAN_CLEANUP = false;
  public static final boolean DEFAULT_ADOPT_BY_NAME = false;

  private String endpoint = DEFAULT_ENDPOINT;
  private Egress egress = Egress.OPEN;
  private String token = "";
  private String location = DEFAULT_LOCATION;
  private String networkZone = DEFAULT_NETWORK_ZONE;
  private String type = DEFAULT_TYPE;
  private String algorithm = DEFAULT_ALGORITHM;
  private Duration healthCheckInterval = DEFAULT_HEALTH_CHECK_INTERVAL;
  private Duration healthCheckTimeout = DEFAULT_HEALTH_CHECK_TIMEOUT;
  private int healthCheckRetries = DEFAULT_HEALTH_CHECK_RETRIES;
  private boolean usePrivateIp = DEFAULT_USE_PRIVATE_IP;
  private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  private AnswerLimit answerLimit = AnswerLimit.ANSWER;
  private AnswerLimit inventoryLimit = AnswerLimit.INVENTORY;
  private Duration actionPollInterval = DEFAULT_ACTION_POLL_INTERVAL;
  private Duration actionTimeout = DEFAULT_ACTION_TIMEOUT;
  private Duration rateLimitMaxWait = DEFAULT_RATE_LIMIT_MAX_WAIT;
  private boolean orphanCleanup = DEFAULT_ORPHAN_CLEANUP;
  private boolean adoptByName = DEFAULT_ADOPT_BY_NAME;

  /** The API base URL, without a trailing slash. */
  public String getEndpoint() {
    return endpoint;
  }

  public HetznerOptions setEndpoint(String endpoint) {
    this.endpoint =
        endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
    return this;
  }

  /** The API token. Never logged; {@link #toString()} leaves it out. */
  public String getToken() {
    return token;
  }

  public HetznerOptions setToken(String token) {
    this.token = token;
    return this;
  }

  public String getLocation() {
    return location;
  }

  public HetznerOptions setLocation(String location) {
    this.location = location;
    return this;
  }

  public String getNetworkZone() {
    return networkZone;
  }

  public HetznerOptions setNetworkZone(String networkZone) {
    this.networkZone = networkZone;
    return this;
  }

  public String getType() {
    return type;
  }

  public HetznerOptions setType(String type) {
    this.type = type;
    return this;
  }

  public String getAlgorithm() {
    return algorithm;
  }

  public HetznerOptions setAlgorithm(String algorithm) {
    this.algorithm = algorithm;
    return this;
  }

  public Duration getHealthCheckInterval() {
    return healthCheckInterval;
  }

  public HetznerOptions setHealthCheckInterval(Duration healthCheckInterval) {
    this.healthCheckInterval = healthCheckInterval;
    return this;
  }

  public Duration getHealthCheckTimeout() {
    return healthCheckTimeout;
  }

  public HetznerOptions setHealthCheckTimeout(Duration healthCheckTimeout) {
    this.healthCheckTimeout = healthCheckTimeout;
    return this;
  }

  public int getHealthCheckRetries() {
    return healthCheckRetries;
  }

  public HetznerOptions setHealthCheckRetries(int healthCheckRetries) {
    this.healthCheckRetries = healthCheckRetries;
    return this;
  }

  public boolean isUsePrivateIp() {
    return usePrivateIp;
  }

  public HetznerOptions setUsePrivateIp(boolean usePrivateIp) {
    this.usePrivateIp = usePrivateIp;
    return this;
  }

  public Duration getRequestTimeout() {
    return requestTimeout;
  }

  public HetznerOptions setRequestTimeout(Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
    return this;
  }

  /**
   * Connections the client may hold open to the API, so many calls can be in flight at once; 0: a
   * fallback of {@link dev.pier.util.ClientPools#FALLBACK_MAX_CONNECTIONS}.
   */
  public int getMaxConnections() {
    return maxConnections;
  }

  public HetznerOptions setMaxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
    return this;
  }

  /** The most bytes read of one answer: {@code http.maxAnswerBytes}. */
  public AnswerLimit getAnswerLimit() {
    return answerLimit;
  }

  public HetznerOptions setAnswerLimit(AnswerLimit answerLimit) {
    this.answerLimit = answerLimit;
    return this;
  }

  /**
   * The most bytes read of a page of {@code GET /load_balancers}: {@code
   * http.maxInventoryAnswerBytes}.
   */
  public AnswerLimit getInventoryLimit() {
    return inventoryLimit;
  }

  public HetznerOptions setInventoryLimit(AnswerLimit inventoryLimit) {
    this.inventoryLimit = inventoryLimit;
    return this;
  }

  public Duration getActionPollInterval() {
    return actionPollInterval;
  }

  public HetznerOptions setActionPollInterval(Duration actionPollInterval) {
    this.actionPollInterval = actionPollInterval;
    return this;
  }

  public Duration getActionTimeout() {
    return actionTimeout;
  }

  public HetznerOptions setActionTimeout(Duration actionTimeout) {
    this.actionTimeout = actionTimeout;
    return this;
  }

  /** Longest wait for the rate limit inside one call before the Service is rescheduled. */
  public Duration getRateLimitMaxWait() {
    return rateLimitMaxWait;
  }

  public HetznerOptions setRateLimitMaxWait(Duration rateLimitMaxWait) {
    this.rateLimitMaxWait = rateLimitMaxWait;
    return this;
  }

  /** Whether the provider offers its load balancers for orphan cleanup. */
  public boolean isOrphanCleanup() {
    return orphanCleanup;
  }

  public HetznerOptions setOrphanCleanup(boolean orphanCleanup) {
    this.orphanCleanup = orphanCleanup;
    return this;
  }

  /**
   * Whether a Service may adopt an existing load balancer that carries no {@code
   * hcloud-ccm/service-uid} label by naming it ({@code load-balancer.hetzner.cloud/name}). Off by
   * default: without it a Service only ever gets a load balancer labelled with its own uid. A load
   * balancer labelled for another Service is never adopted.
   */
  public boolean isAdoptByName() {
    return adoptByName;
  }

  public HetznerOptions setAdoptByName(boolean adoptByName) {
    this.adoptByName = adoptByName;
    return this;
  }

  @Override
  public String toString() {
    return "HetznerOptions{endpoint=" + endpoint + ", type=" + type + "}";
  }

  /** Vets each request's address: {@link Egress#OPEN} but for a member Secret's provider. */
  public Egress getEgress() {
    return egress;
  }

  public HetznerOptions setEgress(Egress egress) {
    this.egress = egress;
    return this;
  }
}
