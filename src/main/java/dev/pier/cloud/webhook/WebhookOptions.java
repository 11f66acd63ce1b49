package dev.pier.cloud.webhook;

import dev.pier.util.AnswerLimit;
import dev.pier.util.Egress;
import java.time.Duration;

/** Options of the webhook provider, with defaults as constants. */
public final class WebhookOptions {
  /**
   * Plain http to another machine is refused while a credential is configured, unless allowed: the
   * credential would cross the network in clear text.
   */
  public static final boolean DEFAULT_ALLOW_HTTP = false;

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final int DEFAULT_RETRIES = 3;
  public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(500);
  public static final int DEFAULT_MAX_CONNECTIONS = 0;

  private String url = "";
  private Egress egress = Egress.OPEN;
  private Duration timeout = DEFAULT_TIMEOUT;
  private int retries = DEFAULT_RETRIES;
  private Duration retryDelay = DEFAULT_RETRY_DELAY;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  private AnswerLimit answerLimit = AnswerLimit.ANSWER;
  private AnswerLimit inventoryLimit = AnswerLimit.INVENTORY;
  private String token = "";
  private String caFile = "";
  private String caPem = "";
  private String certFile = "";
  private String keyFile = "";

  /**
   * Base URL; calls go to {@code <url>/get}, {@code /ensure}, {@code /update-hosts}, {@code
   * /delete}.
   */
  public String getUrl() {
    return url;
  }

  public WebhookOptions setUrl(String url) {
    this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    return this;
  }

  public Duration getTimeout() {
    return timeout;
  }

  public WebhookOptions setTimeout(Duration timeout) {
    this.timeout = timeout;
    return this;
  }

  /** Retries after a network error, a timeout or a 5xx answer (not after 429/503 Retry-After). */
  public int getRetries() {
    return retries;
  }

  public WebhookOptions setRetries(int retries) {
    this.retries = retries;
    return this;
  }

  /** First delay between retries; doubles per retry. */
  public Duration getRetryDelay() {
    return retryDelay;
  }

  public WebhookOptions setRetryDelay(Duration retryDelay) {
    this.retryDelay = retryDelay;
    return this;
  }

  /**
   * Connections the client may hold open to the webhook, so many calls can be in flight at once; 0:
   * a fallback of {@link dev.pier.util.ClientPools#FALLBACK_MAX_CONNECTIONS}.
   */
  public int getMaxConnections() {
    return maxConnections;
  }

  public WebhookOptions setMaxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
    return this;
  }

  /** The most bytes read of one answer: {@code http.maxAnswerBytes}. */
  public AnswerLimit getAnswerLimit() {
    return answerLimit;
  }

  public WebhookOptions setAnswerLimit(AnswerLimit answerLimit) {
    this.answerLimit = answerLimit;
    return this;
  }

  /** The most bytes read of webhook's {@code /list}: {@code http.maxInventoryAnswerBytes}. */
  public AnswerLimit getInventoryLimit() {
    return inventoryLimit;
  }

  public WebhookOptions setInventoryLimit(AnswerLimit inventoryLimit) {
    this.inventoryLimit = inventoryLimit;
    return this;
  }

  /** Bearer token sent with every call; empty: none. Never logged. */
  public String getToken() {
    return token;
  }

  public WebhookOptions setToken(String token) {
    this.token = token;
    return this;
  }

  /** PEM CA certificates given as text (a member Secret's); empty: none. */
  public String getCaPem() {
    return caPem;
  }

  public WebhookOptions setCaPem(String caPem) {
    this.caPem = caPem == null ? "" : caPem;
    return this;
  }

  public String getCaFile() {
    return caFile;
  }

  public WebhookOptions setCaFile(String caFile) {
    this.caFile = caFile;
    return this;
  }

  public String getCertFile() {
    return certFile;
  }

  public WebhookOptions setCertFile(String certFile) {
    this.certFile = certFile;
    return this;
  }

  public String getKeyFile() {
    return keyFile;
  }

  public WebhookOptions setKeyFile(String keyFile) {
    this.keyFile = keyFile;
    return this;
  }

  @Override
  public String toString() {
    return "WebhookOptions{url=" + url + "}";
  }

  /** Vets each request's address: {@link Egress#OPEN} but for a member Secret's provider. */
  public Egress getEgress() {
    return egress;
  }

  public WebhookOptions setEgress(Egress egress) {
    this.egress = egress;
    return this;
  }
}
