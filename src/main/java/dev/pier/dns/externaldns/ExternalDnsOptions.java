package dev.pier.dns.externaldns;

import dev.pier.dns.DnsNames;
import dev.pier.util.AnswerLimit;
import java.time.Duration;

/** Where the external-dns webhook provider listens and how Pier's TXT registry is named. */
public final class ExternalDnsOptions {
  public static final String DEFAULT_URL = "http://localhost:8888";
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final int DEFAULT_MAX_CONNECTIONS = 0;
  public static final String DEFAULT_TXT_PREFIX = "pier-";

  private String url = DEFAULT_URL;
  private Duration timeout = DEFAULT_TIMEOUT;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  private AnswerLimit answerLimit = AnswerLimit.ANSWER;
  private AnswerLimit inventoryLimit = AnswerLimit.INVENTORY;
  private String txtPrefix = DEFAULT_TXT_PREFIX;
  private DnsNames names;

  /**
   * The webhook provider's base URL; {@code /records} and {@code /adjustendpoints} are under it.
   */
  public String getUrl() {
    return url;
  }

  public ExternalDnsOptions setUrl(String url) {
    this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    return this;
  }

  /** Total time of one request, from sending to the whole answer. */
  public Duration getTimeout() {
    return timeout;
  }

  public ExternalDnsOptions setTimeout(Duration timeout) {
    this.timeout = timeout;
    return this;
  }

  /**
   * Connections the client may hold open to the webhook provider, so many calls can be in flight at
   * once; 0: a fallback of {@link dev.pier.util.ClientPools#FALLBACK_MAX_CONNECTIONS}.
   */
  public int getMaxConnections() {
    return maxConnections;
  }

  public ExternalDnsOptions setMaxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
    return this;
  }

  /** The most bytes read of one answer: {@code http.maxAnswerBytes}. */
  public AnswerLimit getAnswerLimit() {
    return answerLimit;
  }

  public ExternalDnsOptions setAnswerLimit(AnswerLimit answerLimit) {
    this.answerLimit = answerLimit;
    return this;
  }

  /** The most bytes read of {@code GET /records}: {@code http.maxInventoryAnswerBytes}. */
  public AnswerLimit getInventoryLimit() {
    return inventoryLimit;
  }

  public ExternalDnsOptions setInventoryLimit(AnswerLimit inventoryLimit) {
    this.inventoryLimit = inventoryLimit;
    return this;
  }

  /** Put before {@code <type>-<name>} to name the registry TXT record of an rrset. */
  public String getTxtPrefix() {
    return txtPrefix;
  }

  public ExternalDnsOptions setTxtPrefix(String txtPrefix) {
    this.txtPrefix = txtPrefix;
    return this;
  }

  /**
   * Pier's name scheme, to tell the Service of a name in the registry's {@code pier/resource};
   * null: no resource part.
   */
  public DnsNames getNames() {
    return names;
  }

  public ExternalDnsOptions setNames(DnsNames names) {
    this.names = names;
    return this;
  }
}
