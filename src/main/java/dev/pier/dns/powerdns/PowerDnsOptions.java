package dev.pier.dns.powerdns;

import dev.pier.util.AnswerLimit;
import java.time.Duration;

/** Where the PowerDNS Authoritative HTTP API is and how to call it; defaults as constants. */
public final class PowerDnsOptions {
  /**
   * Plain http to another machine is refused while a credential is configured, unless allowed: the
   * credential would cross the network in clear text.
   */
  public static final boolean DEFAULT_ALLOW_HTTP = false;

  public static final String DEFAULT_URL = "http://127.0.0.1:8081";
  public static final String DEFAULT_SERVER_ID = "localhost";
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final int DEFAULT_MAX_CONNECTIONS = 0;

  private String url = DEFAULT_URL;
  private String serverId = DEFAULT_SERVER_ID;
  private ApiKey apiKey;
  private Duration timeout = DEFAULT_TIMEOUT;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  private AnswerLimit answerLimit = AnswerLimit.ANSWER;
  private AnswerLimit inventoryLimit = AnswerLimit.INVENTORY;

  /** The webserver's base URL, without {@code /api/v1}. */
  public String getUrl() {
    return url;
  }

  public PowerDnsOptions setUrl(String url) {
    this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    return this;
  }

  public String getServerId() {
    return serverId;
  }

  public PowerDnsOptions setServerId(String serverId) {
    this.serverId = serverId;
    return this;
  }

  public ApiKey getApiKey() {
    return apiKey;
  }

  public PowerDnsOptions setApiKey(ApiKey apiKey) {
    this.apiKey = apiKey;
    return this;
  }

  public Duration getTimeout() {
    return timeout;
  }

  public PowerDnsOptions setTimeout(Duration timeout) {
    this.timeout = timeout;
    return this;
  }

  /**
   * Connections the client may hold open to the API, so many calls can be in flight at once; 0: a
   * fallback of {@link dev.pier.util.ClientPools#FALLBACK_MAX_CONNECTIONS}.
   */
  public int getMaxConnections() {
    return maxConnections;
  }

  public PowerDnsOptions setMaxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
    return this;
  }

  /** The most bytes read of one answer: {@code http.maxAnswerBytes}. */
  public AnswerLimit getAnswerLimit() {
    return answerLimit;
  }

  public PowerDnsOptions setAnswerLimit(AnswerLimit answerLimit) {
    this.answerLimit = answerLimit;
    return this;
  }

  /**
   * The most bytes read of the zone list, a zone's records, and a name's records (PowerDNS 4.7
   * lists every name's comments with them): {@code http.maxInventoryAnswerBytes}.
   */
  public AnswerLimit getInventoryLimit() {
    return inventoryLimit;
  }

  public PowerDnsOptions setInventoryLimit(AnswerLimit inventoryLimit) {
    this.inventoryLimit = inventoryLimit;
    return this;
  }
}
