package dev.pier.dns.publish;

import java.util.List;

/** What and how Pier publishes in DNS; defaults as constants. */
public final class DnsOptions {
  public static final String DEFAULT_FEDERATION = "pier";
  public static final int DEFAULT_TTL = 180;
  public static final String DEFAULT_OWNER_ID = "pier";

  private String federation = DEFAULT_FEDERATION;
  private String suffix = "";
  private String zoneName = "";
  private String zoneId = "";
  private long ttl = DEFAULT_TTL;
  private String ownerId = DEFAULT_OWNER_ID;
  private boolean optIn;
  private List<String> domainFilter = List.of();
  private String region = "";
  private String publishFrom = "";
  private List<String> zones = List.of();

  public String getFederation() {
    return federation;
  }

  public DnsOptions setFederation(String federation) {
    this.federation = federation;
    return this;
  }

  /** The domain every name ends with; empty: the zone's name. */
  public String getSuffix() {
    return suffix;
  }

  public DnsOptions setSuffix(String suffix) {
    this.suffix = suffix;
    return this;
  }

  public String getZoneName() {
    return zoneName;
  }

  public DnsOptions setZoneName(String zoneName) {
    this.zoneName = zoneName;
    return this;
  }

  public String getZoneId() {
    return zoneId;
  }

  public DnsOptions setZoneId(String zoneId) {
    this.zoneId = zoneId;
    return this;
  }

  public long getTtl() {
    return ttl;
  }

  public DnsOptions setTtl(long ttl) {
    this.ttl = ttl;
    return this;
  }

  /** Marks Pier's rrsets; shared by all replicas so that a failover keeps ownership. */
  public String getOwnerId() {
    return ownerId;
  }

  public DnsOptions setOwnerId(String ownerId) {
    this.ownerId = ownerId;
    return this;
  }

  /** True: only Services annotated {@code pier.dev/dns: "true"} get names. */
  public boolean isOptIn() {
    return optIn;
  }

  public DnsOptions setOptIn(boolean optIn) {
    this.optIn = optIn;
    return this;
  }

  /** Domains names may be published in; empty: all of the zone. */
  public List<String> getDomainFilter() {
    return domainFilter;
  }

  public DnsOptions setDomainFilter(List<String> domainFilter) {
    this.domainFilter = List.copyOf(domainFilter);
    return this;
  }

  /**
   * The one cluster whose Services that are not federated get names; empty: every cluster (one
   * cluster alone). Two clusters with the same namespace/name never fight over one name.
   */
  public String getPublishFrom() {
    return publishFrom;
  }

  public DnsOptions setPublishFrom(String publishFrom) {
    this.publishFrom = publishFrom;
    return this;
  }

  /** The cluster's region instead of its nodes' labels; empty: the labels. */
  public String getRegion() {
    return region;
  }

  public DnsOptions setRegion(String region) {
    this.region = region;
    return this;
  }

  /** The cluster's zones instead of its nodes' labels; empty: the labels. */
  public List<String> getZones() {
    return zones;
  }

  public DnsOptions setZones(List<String> zones) {
    this.zones = List.copyOf(zones);
    return this;
  }
}
