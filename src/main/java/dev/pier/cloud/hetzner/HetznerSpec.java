package dev.pier.cloud.hetzner;

import dev.pier.cloud.ProviderException;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a Service asks of its Hetzner load balancer: the options' defaults overridden by the {@code
 * load-balancer.hetzner.cloud/*} annotations. Bad values fail with {@link
 * ProviderException.InvalidInput} naming the annotation (or port field) and the value.
 */
record HetznerSpec(
    String name,
    String type,
    String location,
    String networkZone,
    String algorithm,
    boolean proxyProtocol,
    boolean usePrivateIp,
    boolean ipv6Disabled,
    List<ServiceSpec> services) {

  static final String PREFIX = "load-balancer.hetzner.cloud/";
  static final String NAME = PREFIX + "name";
  static final String TYPE = PREFIX + "type";
  static final String LOCATION = PREFIX + "location";
  static final String NETWORK_ZONE = PREFIX + "network-zone";
  static final String ALGORITHM = PREFIX + "algorithm-type";
  static final String PROXY_PROTOCOL = PREFIX + "uses-proxyprotocol";
  static final String USE_PRIVATE_IP = PREFIX + "use-private-ip";
  static final String IPV6_DISABLED = PREFIX + "ipv6-disabled";
  static final String HC_PROTOCOL = PREFIX + "health-check-protocol";
  static final String HC_PORT = PREFIX + "health-check-port";
  static final String HC_INTERVAL = PREFIX + "health-check-interval";
  static final String HC_TIMEOUT = PREFIX + "health-check-timeout";
  static final String HC_RETRIES = PREFIX + "health-check-retries";
  static final String HC_HTTP_PATH = PREFIX + "health-check-http-path";
  static final String HC_HTTP_DOMAIN = PREFIX + "health-check-http-domain";

  private static final Set<String> ALGORITHMS = Set.of("round_robin", "least_connections");
  private static final Set<String> HC_PROTOCOLS = Set.of("tcp", "http", "https");

  /** One LB service: a listen port forwarded to the nodePort, over TCP. */
  record ServiceSpec(int listenPort, int destinationPort, boolean proxyProtocol, Check check) {
    HetznerJson.Service toApi() {
      return new HetznerJson.Service(
          "tcp", listenPort, destinationPort, proxyProtocol, check.toApi());
    }

    /** True when the API's service object already is this one. */
    boolean matches(HetznerJson.Service existing) {
      return "tcp".equals(existing.protocol())
          && existing.destinationPort() == destinationPort
          && existing.proxyprotocol() == proxyProtocol
          && check.matches(existing.healthCheck());
    }
  }

  /** A service's health check. {@code path}/{@code domain} only for http and https. */
  record Check(
      String protocol,
      int port,
      int interval,
      int timeout,
      int retries,
      String path,
      String domain) {
    HetznerJson.HealthCheck toApi() {
      HetznerJson.Http http =
          protocol.equals("tcp")
              ? null
              : new HetznerJson.Http(domain, path, List.of("2??", "3??"), false);
      return new HetznerJson.HealthCheck(protocol, port, interval, timeout, retries, http);
    }

    boolean matches(HetznerJson.HealthCheck hc) {
      boolean base =
          hc != null
              && protocol.equals(hc.protocol())
              && hc.port() == port
              && hc.interval() == interval
              && hc.timeout() == timeout
              && hc.retries() == retries;
      if (!base || protocol.equals("tcp")) {
        return base;
      }
      return hc.http() != null
          && path.equals(hc.http().path())
          && String.valueOf(domain).equals(String.valueOf(hc.http().domain()));
    }
  }

  /** The Service's spec; {@code defaultName} is the name used without the name annotation. */
  static HetznerSpec of(LbService svc, HetznerOptions options, String defaultName) {
    Map<String, String> a = svc.annotations();
    String name = a.getOrDefault(NAME, defaultName).trim();
    if (name.isEmpty() || name.length() > 63) {
      throw invalid(NAME, name, "must be 1 to 63 characters");
    }
    String type = a.getOrDefault(TYPE, options.getType()).trim();
    if (type.isEmpty()) {
      throw invalid(TYPE, type, "must name a load balancer type such as lb11");
    }
    String location = a.get(LOCATION);
    String zone = a.get(NETWORK_ZONE);
    if (location != null && zone != null) {
      throw invalid(NETWORK_ZONE, zone, "cannot be set together with " + LOCATION + "=" + location);
    }
    if (location == null && zone == null) {
      if (!options.getLocation().isEmpty()) {
        location = options.getLocation();
      } else {
        zone = options.getNetworkZone();
      }
    }
    String algorithm = a.getOrDefault(ALGORITHM, options.getAlgorithm()).trim();
    if (!ALGORITHMS.contains(algorithm)) {
      throw invalid(ALGORITHM, algorithm, "must be round_robin or least_connections");
    }
    boolean proxy = bool(a, PROXY_PROTOCOL, false);
    boolean privateIp = bool(a, USE_PRIVATE_IP, options.isUsePrivateIp());
    boolean ipv6Disabled = bool(a, IPV6_DISABLED, false);

    List<ServiceSpec> services = new ArrayList<>();
    List<LbPort> ports = svc.ports();
    for (int i = 0; i < ports.size(); i++) {
      LbPort p = ports.get(i);
      if (!"TCP".equalsIgnoreCase(p.protocol())) {
        throw new ProviderException.InvalidInput(
            "spec.ports[" + i + "].protocol",
            p.protocol(),
            "spec.ports["
                + i
                + "].protocol="
                + p.protocol()
                + ": Hetzner Cloud load balancers forward TCP only");
      }
      services.add(new ServiceSpec(p.port(), p.nodePort(), proxy, check(svc, p, options)));
    }
    return new HetznerSpec(
        name, type, location, zone, algorithm, proxy, privateIp, ipv6Disabled, services);
  }

  private static Check check(LbService svc, LbPort port, HetznerOptions options) {
    Map<String, String> a = svc.annotations();
    // externalTrafficPolicy Local: only nodes with endpoints answer /healthz on the health check
    // node port, so the load balancer sends traffic only there (upstream's provider contract).
    boolean local = svc.needsHealthCheck();
    String protocol =
        a.getOrDefault(HC_PROTOCOL, local ? "http" : "tcp").trim().toLowerCase(Locale.ROOT);
    if (!HC_PROTOCOLS.contains(protocol)) {
      throw invalid(HC_PROTOCOL, protocol, "must be tcp, http or https");
    }
    int hcPort = local ? svc.healthCheckNodePort() : port.nodePort();
    if (a.containsKey(HC_PORT)) {
      hcPort = integer(a, HC_PORT, 1, 65535);
    }
    int interval = seconds(a, HC_INTERVAL, options.getHealthCheckInterval());
    int timeout = seconds(a, HC_TIMEOUT, options.getHealthCheckTimeout());
    int retries =
        a.containsKey(HC_RETRIES)
            ? integer(a, HC_RETRIES, 0, 100)
            : options.getHealthCheckRetries();
    String path = a.getOrDefault(HC_HTTP_PATH, local ? "/healthz" : "/");
    if (!path.startsWith("/")) {
      throw invalid(HC_HTTP_PATH, path, "must start with /");
    }
    String domain = a.get(HC_HTTP_DOMAIN);
    return new Check(protocol, hcPort, interval, timeout, retries, path, domain);
  }

  private static boolean bool(Map<String, String> a, String key, boolean fallback) {
    String v = a.get(key);
    if (v == null) {
      return fallback;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw invalid(key, v, "must be true or false");
    };
  }

  private static int integer(Map<String, String> a, String key, int min, int max) {
    String v = a.get(key);
    try {
      int n = Integer.parseInt(v.trim());
      if (n < min || n > max) {
        throw invalid(key, v, "must be from " + min + " to " + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw invalid(key, v, "must be an integer");
    }
  }

  /** Whole seconds from "15s", "1m" or a bare number of seconds, as hcloud-ccm accepts them. */
  private static int seconds(Map<String, String> a, String key, Duration fallback) {
    String v = a.get(key);
    if (v == null) {
      return (int) Math.max(1, fallback.toSeconds());
    }
    String s = v.trim().toLowerCase(Locale.ROOT);
    try {
      long n;
      if (s.endsWith("ms")) {
        n = Long.parseLong(s.substring(0, s.length() - 2)) / 1000;
      } else if (s.endsWith("s")) {
        n = Long.parseLong(s.substring(0, s.length() - 1));
      } else if (s.endsWith("m")) {
        n = Long.parseLong(s.substring(0, s.length() - 1)) * 60;
      } else {
        n = Long.parseLong(s);
      }
      if (n < 1 || n > 3600) {
        throw invalid(key, v, "must be from 1s to 1h");
      }
      return (int) n;
    } catch (NumberFormatException e) {
      throw invalid(key, v, "must be a duration such as 15s");
    }
  }

  static ProviderException.InvalidInput invalid(String annotation, String value, String why) {
    String field = "metadata.annotations[" + annotation + "]";
    return new ProviderException.InvalidInput(field, value, field + "=" + value + ": " + why);
  }
}
