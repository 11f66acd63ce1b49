package dev.pier.dns.publish;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What and how Pier publishes in DNS; defaults as constants. */
public final class DnsOptions {
  public static final String DEFAULT_FEDERATION = "pier";
  public static final int DEFAULT_TTL = 180;
  public static final String DEFAULT_OWNER_ID = "pier";
  public static final int DEFAULT_MIN_TTL = 5;
  public static final int DEFAULT_MAX_TTL = 3600;
  public static final int DEFAULT_WEIGHTED_TTL = 0;

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
  private long minTtl = DEFAULT_MIN_TTL;
  private long maxTtl = DEFAULT_MAX_TTL;
  private long weightedTtl = DEFAULT_WEIGHTED_TTL;
  private Map<String, List<String>> views = Map.of();

  /** The lowest TTL a Service's {@code pier.dev/dns-ttl} may ask for. */
  public long getMinTtl() {
    return minTtl;
  }

  public DnsOptions setMinTtl(long minTtl) {
    this.minTtl = minTtl;
    return this;
  }

  /** The highest TTL a Service's {@code pier.dev/dns-ttl} may ask for. */
  public long getMaxTtl() {
    return maxTtl;
  }

  public DnsOptions setMaxTtl(long maxTtl) {
    this.maxTtl = maxTtl;
    return this;
  }

  /** The TTL of a weighted global name: short, so that no resolver keeps one pick for long. */
  public long getWeightedTtl() {
    return weightedTtl;
  }

  public DnsOptions setWeightedTtl(long weightedTtl) {
    this.weightedTtl = weightedTtl;
    return this;
  }

  /** Client networks (CIDRs) by region, for the views strategy, in the order configured. */
  public Map<String, List<String>> getViews() {
    return views;
  }

  public DnsOptions setViews(Map<String, List<String>> views) {
    this.views = Collections.unmodifiableMap(new LinkedHashMap<>(views));
    return this;
  }

  /**
   * Views from {@code dns.views} items, each {@code <region>=<CIDR>}: the CIDRs of a region in the
   * order listed, the regions in the order of their first item.
   */
  public static Map<String, List<String>> parseViews(List<String> items) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String item : items) {
      int eq = item.indexOf('=');
      out.computeIfAbsent(item.substring(0, eq).trim(), r -> new ArrayList<>())
          .add(item.substring(eq + 1).trim());
    }
    return out;
  }

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
