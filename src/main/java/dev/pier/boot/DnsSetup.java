package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.Secrets;
import dev.pier.dns.DeadlineDnsProvider;
import dev.pier.dns.DnsNames;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.HostnameResolver;
import dev.pier.dns.externaldns.ExternalDnsOptions;
import dev.pier.dns.externaldns.ExternalDnsWebhookProvider;
import dev.pier.dns.powerdns.ApiKey;
import dev.pier.dns.powerdns.PowerDnsOptions;
import dev.pier.dns.powerdns.PowerDnsProvider;
import dev.pier.dns.publish.DnsOptions;
import dev.pier.dns.publish.DnsPublisher;
import dev.pier.policy.ServiceFilter;
import dev.pier.util.RequestFence;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.function.Function;

/** Builds the DNS publisher from Pier's configuration; a bad combination names its option. */
public final class DnsSetup {
  private DnsSetup() {}

  /** {@code dns.cluster}, else the host, else the first of several clusters; empty for one. */
  static String publishFrom(ConfigValues config, List<String> clusters, String host) {
    String named = config.get(PierOptions.DNS_CLUSTER);
    if (!named.isEmpty()) {
      if (!clusters.isEmpty() && !clusters.contains(named)) {
        throw fail(
            config,
            PierOptions.DNS_CLUSTER.path(),
            "'" + named + "' is not a configured cluster (" + String.join(", ", clusters) + ")");
      }
      return named;
    }
    if (!host.isEmpty()) {
      return host;
    }
    return clusters.size() > 1 ? clusters.get(0) : "";
  }

  /** The publisher, or null when {@code dns.enabled} is false; one cluster publishes. */
  public static DnsPublisher create(
      Vertx vertx, ConfigValues config, ServiceFilter filter, Function<String, String> env) {
    return create(vertx, config, filter, env, List.of(), "");
  }

  /**
   * The publisher, or null when {@code dns.enabled} is false.
   *
   * @param clusters the names of the configured clusters (empty: one cluster alone)
   * @param host the federation's host, or empty
   */
  public static DnsPublisher create(
      Vertx vertx,
      ConfigValues config,
      ServiceFilter filter,
      Function<String, String> env,
      List<String> clusters,
      String host) {
    return create(vertx, config, filter, env, clusters, host, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each request to the DNS backend goes (the leadership gate)
   */
  public static DnsPublisher create(
      Vertx vertx,
      ConfigValues config,
      ServiceFilter filter,
      Function<String, String> env,
      List<String> clusters,
      String host,
      RequestFence fence) {
    if (!config.get(PierOptions.DNS_ENABLED)) {
      return null;
    }
    String federation = FederationSettings.dnsFederation(config);
    String zoneName = config.get(PierOptions.DNS_ZONE_NAME);
    String zoneId = config.get(PierOptions.DNS_ZONE_ID);
    String suffix = config.get(PierOptions.DNS_SUFFIX);
    if (zoneName.isEmpty() && zoneId.isEmpty()) {
      throw fail(config, PierOptions.DNS_ZONE_NAME.path(), "set dns.zone.name or dns.zone.id");
    }
    if (zoneName.isEmpty() && suffix.isEmpty()) {
      throw fail(config, PierOptions.DNS_SUFFIX.path(), "required when only dns.zone.id is set");
    }
    if (!zoneName.isEmpty() && !suffix.isEmpty() && !DnsNames.within(suffix, zoneName)) {
      throw fail(
          config,
          PierOptions.DNS_SUFFIX.path(),
          "'" + suffix + "' is not inside dns.zone.name '" + zoneName + "'");
    }
    DnsProvider provider =
        config.get(PierOptions.DNS_PROVIDER).equals("externaldns")
            ? new ExternalDnsWebhookProvider(
                vertx,
                new ExternalDnsOptions()
                    .setUrl(config.get(PierOptions.DNS_EXTERNAL_DNS_URL))
                    .setTimeout(config.get(PierOptions.DNS_EXTERNAL_DNS_TIMEOUT))
                    .setMaxConnections(
                        HttpPools.dns(config, PierOptions.DNS_EXTERNAL_DNS_MAX_CONNECTIONS))
                    .setAnswerLimit(AnswerLimits.answer(config))
                    .setInventoryLimit(AnswerLimits.inventory(config))
                    .setTxtPrefix(config.get(PierOptions.DNS_EXTERNAL_DNS_TXT_PREFIX))
                    .setNames(new DnsNames(federation, suffix.isEmpty() ? zoneName : suffix)),
                fence)
            : powerDns(vertx, config, env, fence);
    DnsOptions options =
        new DnsOptions()
            .setFederation(federation)
            .setSuffix(suffix)
            .setZoneName(zoneName)
            .setZoneId(zoneId)
            .setTtl(config.get(PierOptions.DNS_TTL))
            .setMinTtl(config.get(PierOptions.DNS_MIN_TTL))
            .setMaxTtl(config.get(PierOptions.DNS_MAX_TTL))
            .setWeightedTtl(config.get(PierOptions.DNS_WEIGHTED_TTL))
            .setViews(DnsOptions.parseViews(config.get(PierOptions.DNS_VIEWS)))
            .setOwnerId(config.get(PierOptions.DNS_OWNER_ID))
            .setOptIn(config.get(PierOptions.DNS_OPT_IN))
            .setDomainFilter(config.get(PierOptions.DNS_DOMAIN_FILTER))
            .setRegion(config.get(PierOptions.DNS_TOPOLOGY_REGION))
            .setZones(config.get(PierOptions.DNS_TOPOLOGY_ZONES))
            .setPublishFrom(publishFrom(config, clusters, host));
    return new DnsPublisher(
        new DeadlineDnsProvider(provider, vertx, config.get(PierOptions.DNS_CALL_DEADLINE)),
        options,
        filter,
        new HostnameResolver(vertx));
  }

  private static DnsProvider powerDns(
      Vertx vertx, ConfigValues config, Function<String, String> env, RequestFence fence) {
    ApiKey key;
    try {
      String var = config.get(PierOptions.DNS_POWERDNS_API_KEY_ENV);
      Secrets.Secret secret =
          Secrets.fromFileOrEnv(config.get(PierOptions.DNS_POWERDNS_API_KEY_FILE), var, env)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "no API key: set dns.powerdns.apiKeyFile, or the environment variable '"
                              + var
                              + "'"));
      key = ApiKey.of(secret.value(), secret.source());
    } catch (IllegalArgumentException e) {
      throw fail(config, PierOptions.DNS_POWERDNS_API_KEY_FILE.path(), e.getMessage());
    }
    ClearTextGuard.check(
        config, PierOptions.DNS_POWERDNS_URL, PierOptions.DNS_POWERDNS_ALLOW_HTTP, "the API key");
    return new PowerDnsProvider(
        vertx,
        new PowerDnsOptions()
            .setUrl(config.get(PierOptions.DNS_POWERDNS_URL))
            .setServerId(config.get(PierOptions.DNS_POWERDNS_SERVER_ID))
            .setTimeout(config.get(PierOptions.DNS_POWERDNS_TIMEOUT))
            .setMaxConnections(HttpPools.dns(config, PierOptions.DNS_POWERDNS_MAX_CONNECTIONS))
            .setAnswerLimit(AnswerLimits.answer(config))
            .setInventoryLimit(AnswerLimits.inventory(config))
            .setApiKey(key),
        fence);
  }

  private static ConfigException fail(ConfigValues config, String path, String message) {
    return new ConfigException(config.source() + ": " + path + ": " + message);
  }
}
