package dev.pier.boot;

import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkLoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkProviderOptions;
import dev.pier.cloud.local.AddressPool;
import dev.pier.cloud.local.LocalLoadBalancerProvider;
import dev.pier.cloud.local.LocalProviderOptions;
import dev.pier.cloud.local.PoolSpec;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.InvalidItemException;
import dev.pier.events.EventSink;
import dev.pier.util.RequestFence;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Builds the configured load balancer provider; runs once at startup. */
public final class LoadBalancerProviders {

  /** What {@code local.pools} takes, completing "must be ...". */
  static final String POOLS_ALLOWED =
      "a non-empty list of CIDRs (10.0.0.0/24), ranges (10.0.0.10-10.0.0.20) or pools"
          + " {name, addresses: [CIDRs or ranges], namespaces: [namespaces that may use it]}";

  private static final String ITEM_ALLOWED =
      "a CIDR (10.0.0.0/24), a range (10.0.0.10-10.0.0.20) or a mapping {name, addresses,"
          + " namespaces}";
  private static final String ADDRESS_ALLOWED =
      "a CIDR (10.0.0.0/24) or a range (10.0.0.10-10.0.0.20)";
  private static final String ADDRESSES_ALLOWED =
      "a non-empty list of CIDRs (10.0.0.0/24) or ranges (10.0.0.10-10.0.0.20)";
  private static final String NAMESPACES_ALLOWED =
      "a list of namespace names (lowercase DNS labels such as team-a); empty or absent: any"
          + " namespace";
  private static final Set<String> POOL_KEYS = Set.of("name", "addresses", "namespaces");

  /** A namespace name: an RFC 1123 DNS label. */
  private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private LoadBalancerProviders() {}

  /**
   * @param registry where the local provider publishes what its load balancers hold open
   * @param events where the local provider warns a Service whose load balancer is at a limit
   */
  public static LoadBalancerProvider create(
      Vertx vertx, ConfigValues config, MeterRegistry registry, EventSink events) {
    return create(vertx, config, registry, events, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each request a provider sends out of the process (the
   *     leadership gate)
   */
  public static LoadBalancerProvider create(
      Vertx vertx,
      ConfigValues config,
      MeterRegistry registry,
      EventSink events,
      RequestFence fence) {
    String name = config.get(PierOptions.PROVIDER);
    return switch (name) {
      case "local" -> local(vertx, config, registry, events);
      case "hetzner" -> HetznerProviders.create(vertx, config, fence);
      case "webhook" -> WebhookProviders.create(vertx, config, fence);
      case "benchmark" ->
          new BenchmarkLoadBalancerProvider(
              vertx,
              new BenchmarkProviderOptions().setDelay(config.get(PierOptions.BENCHMARK_DELAY)));
      default ->
          throw new ConfigException(
              config.source() + ": provider: unknown provider '" + name + "'");
    };
  }

  static LoadBalancerProvider local(
      Vertx vertx, ConfigValues config, MeterRegistry registry, EventSink events) {
    LocalProviderOptions options =
        new LocalProviderOptions()
            .setPools(config.get(PierOptions.LOCAL_POOLS))
            .setHealthCheckInterval(config.get(PierOptions.LOCAL_HEALTH_CHECK_INTERVAL))
            .setHealthCheckTimeout(config.get(PierOptions.LOCAL_HEALTH_CHECK_TIMEOUT))
            .setUnhealthyThreshold(config.get(PierOptions.LOCAL_UNHEALTHY_THRESHOLD))
            .setHealthyThreshold(config.get(PierOptions.LOCAL_HEALTHY_THRESHOLD))
            .setConnectTimeout(config.get(PierOptions.LOCAL_CONNECT_TIMEOUT))
            .setUdpSessionTimeout(config.get(PierOptions.LOCAL_UDP_SESSION_TIMEOUT))
            .setMaxConnectionsPerLoadBalancer(
                config.get(PierOptions.LOCAL_MAX_CONNECTIONS_PER_LOAD_BALANCER))
            .setMaxConnections(config.get(PierOptions.LOCAL_MAX_CONNECTIONS))
            .setTcpIdleTimeout(config.get(PierOptions.LOCAL_TCP_IDLE_TIMEOUT))
            .setMaxUdpSessionsPerLoadBalancer(
                config.get(PierOptions.LOCAL_MAX_UDP_SESSIONS_PER_LOAD_BALANCER))
            .setMaxUdpSessions(config.get(PierOptions.LOCAL_MAX_UDP_SESSIONS))
            .setMaxConnectionsPerNamespace(
                config.get(PierOptions.LOCAL_MAX_CONNECTIONS_PER_NAMESPACE))
            .setMaxUdpSessionsPerNamespace(
                config.get(PierOptions.LOCAL_MAX_UDP_SESSIONS_PER_NAMESPACE))
            .setLimitWarningInterval(config.get(PierOptions.LOCAL_LIMIT_WARNING_INTERVAL));
    try {
      return new LocalLoadBalancerProvider(vertx, options, registry, events);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          config.describe(PierOptions.LOCAL_POOLS) + ": " + e.getMessage(), e);
    }
  }

  /**
   * Maps the raw value of {@code local.pools} onto pools: from the environment a comma-separated
   * string of CIDRs and ranges; from the file a list whose items are such strings (open to every
   * namespace) or mappings {@code {name, addresses, namespaces}}.
   *
   * @throws InvalidItemException naming the bad item or key ({@code [2].namespaces})
   */
  static List<PoolSpec> parsePools(Object raw) {
    if (raw instanceof String s) {
      List<String> parts =
          Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
      for (int i = 0; i < parts.size(); i++) {
        checkAddress("[" + i + "]", parts.get(i));
      }
      return checkTogether(s, PoolSpec.of(parts));
    }
    if (!(raw instanceof List<?> items)) {
      throw new InvalidItemException("", String.valueOf(raw), POOLS_ALLOWED);
    }
    List<PoolSpec> pools = new ArrayList<>(items.size());
    Set<String> names = new HashSet<>();
    for (int i = 0; i < items.size(); i++) {
      String at = "[" + i + "]";
      Object item = items.get(i);
      if (item instanceof String s) {
        if (s.isBlank()) {
          throw new InvalidItemException(at, s, ITEM_ALLOWED);
        }
        checkAddress(at, s.trim());
        pools.add(PoolSpec.of(s.trim()));
      } else if (item instanceof Map<?, ?> m) {
        pools.add(pool(at, m, names));
      } else {
        throw new InvalidItemException(at, String.valueOf(item), ITEM_ALLOWED);
      }
    }
    return checkTogether(items, pools);
  }

  /** The pools, once they are known not to overlap (each was checked on its own already). */
  private static List<PoolSpec> checkTogether(Object raw, List<PoolSpec> pools) {
    if (pools.isEmpty()) {
      return List.of(); // the option's check says what is allowed
    }
    try {
      AddressPool.of(pools);
    } catch (IllegalArgumentException e) {
      throw new InvalidItemException(
          "",
          raw instanceof List<?> l
              ? String.join(", ", l.stream().map(String::valueOf).toList())
              : String.valueOf(raw),
          "pools that do not overlap; " + e.getMessage());
    }
    return List.copyOf(pools);
  }

  private static PoolSpec pool(String at, Map<?, ?> m, Set<String> names) {
    for (Map.Entry<?, ?> e : m.entrySet()) {
      if (!POOL_KEYS.contains(String.valueOf(e.getKey()))) {
        throw new InvalidItemException(
            at + "." + e.getKey(),
            String.valueOf(e.getValue()),
            "absent: a pool has the keys name, addresses, namespaces");
      }
    }
    Object name = m.get("name");
    if (!(name instanceof String n) || n.isBlank() || !n.equals(n.trim()) || !names.add(n)) {
      throw new InvalidItemException(
          at + ".name", String.valueOf(name), "a pool name, unique among the pools");
    }
    Object addresses = m.get("addresses");
    if (!(addresses instanceof List<?> list) || list.isEmpty()) {
      throw new InvalidItemException(
          at + ".addresses", String.valueOf(addresses), ADDRESSES_ALLOWED);
    }
    List<String> parsedAddresses = new ArrayList<>(list.size());
    for (int j = 0; j < list.size(); j++) {
      String where = at + ".addresses[" + j + "]";
      if (!(list.get(j) instanceof String a) || a.isBlank()) {
        throw new InvalidItemException(where, String.valueOf(list.get(j)), ADDRESS_ALLOWED);
      }
      checkAddress(where, a.trim());
      parsedAddresses.add(a.trim());
    }
    Object namespaces = m.get("namespaces");
    List<String> parsedNamespaces = new ArrayList<>();
    if (namespaces != null) {
      if (!(namespaces instanceof List<?> nsList)) {
        throw new InvalidItemException(
            at + ".namespaces", String.valueOf(namespaces), NAMESPACES_ALLOWED);
      }
      for (int j = 0; j < nsList.size(); j++) {
        Object ns = nsList.get(j);
        if (!(ns instanceof String text) || !NAMESPACE.matcher(text.trim()).matches()) {
          throw new InvalidItemException(
              at + ".namespaces[" + j + "]", String.valueOf(ns), NAMESPACES_ALLOWED);
        }
        parsedNamespaces.add(text.trim());
      }
    }
    return new PoolSpec(n, parsedAddresses, parsedNamespaces);
  }

  private static void checkAddress(String at, String address) {
    try {
      AddressPool.validate(List.of(address));
    } catch (IllegalArgumentException e) {
      throw new InvalidItemException(at, address, ADDRESS_ALLOWED + "; " + e.getMessage());
    }
  }
}
