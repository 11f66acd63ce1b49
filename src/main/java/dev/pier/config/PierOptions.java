package dev.pier.config;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/** Every option Pier reads, with its default. {@code conf/pier.yaml} documents the same list. */
public final class PierOptions {
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Duration MS = Duration.ofMillis(1);
  private static final Duration DAY = Duration.ofDays(1);

  public static final Option<String> CLUSTER_NAME =
      Option.string(
          "cluster.name",
          "kubernetes",
          s -> s.length() <= 63 && DNS_LABEL.matcher(s).matches(),
          "a DNS label (lower case letters, digits, '-')",
          "Name of the cluster; passed to providers and part of every work-queue key.");
  public static final Option<String> CLUSTER_KUBECONFIG =
      Option.string(
          "cluster.kubeconfig",
          "",
          s -> true,
          "a file path",
          "Kubeconfig file; empty: KUBECONFIG, ~/.kube/config, else the in-cluster account.");
  public static final Option<String> CLUSTER_CONTEXT =
      Option.string(
          "cluster.context",
          "",
          s -> true,
          "a context name",
          "Kubeconfig context; empty: current.");
  public static final Option<String> PROVIDER =
      Option.choice(
          "provider",
          "local",
          List.of("local", "benchmark"),
          "Load balancer provider. local: an in-process TCP/UDP load balancer; benchmark: no load"
              + " balancer, every call completes after benchmark.delay (for measuring Pier).");
  public static final Option<List<String>> LOAD_BALANCER_CLASSES =
      Option.list(
          "loadBalancerClasses",
          List.of(),
          l -> true,
          "a list of class names",
          "spec.loadBalancerClass values Pier owns; Services without a class are always Pier's.");
  public static final Option<Integer> RECONCILE_CONCURRENCY =
      Option.integer("reconcile.concurrency", 200, 1, 100_000, "Keys reconciled at the same time.");
  public static final Option<Duration> RECONCILE_MIN_RETRY_DELAY =
      Option.duration(
          "reconcile.minRetryDelay",
          Duration.ofSeconds(5),
          MS,
          DAY,
          "First retry delay of a failed key; doubles per failure.");
  public static final Option<Duration> RECONCILE_MAX_RETRY_DELAY =
      Option.duration(
          "reconcile.maxRetryDelay",
          Duration.ofSeconds(300),
          MS,
          DAY,
          "Longest retry delay of a failed key.");
  public static final Option<Duration> WATCH_SERVICE_RESYNC =
      Option.duration(
          "watch.serviceResync",
          Duration.ofSeconds(30),
          Duration.ZERO,
          DAY,
          "Service informer resync period (0: none).");
  public static final Option<String> NODES_PREDICATES =
      Option.choice(
          "nodes.predicates",
          "stable",
          List.of("stable", "legacy"),
          "stable: every node not being deleted, excluded or autoscaler-tainted; legacy: also"
              + " Ready, schedulable and without the master role label.");
  public static final Option<Duration> NODE_SYNC_PERIOD =
      Option.duration(
          "nodeSync.period",
          Duration.ofSeconds(100),
          Duration.ZERO,
          DAY,
          "Full node sync period, the safety net behind node events (0: none).");
  public static final Option<List<String>> LOCAL_POOLS =
      Option.list(
          "local.pools",
          List.of("127.240.0.0/16"),
          l -> !l.isEmpty(),
          "a non-empty list of CIDRs (10.0.0.0/24) or ranges (10.0.0.10-10.0.0.20)",
          "Addresses the local provider gives to Services.");
  public static final Option<Duration> LOCAL_HEALTH_CHECK_INTERVAL =
      Option.duration(
          "local.healthCheck.interval", Duration.ofSeconds(2), MS, DAY, "Backend check period.");
  public static final Option<Duration> LOCAL_HEALTH_CHECK_TIMEOUT =
      Option.duration(
          "local.healthCheck.timeout", Duration.ofSeconds(1), MS, DAY, "Backend check timeout.");
  public static final Option<Integer> LOCAL_UNHEALTHY_THRESHOLD =
      Option.integer(
          "local.healthCheck.unhealthyThreshold",
          2,
          1,
          100,
          "Failed checks before a backend gets no traffic.");
  public static final Option<Integer> LOCAL_HEALTHY_THRESHOLD =
      Option.integer(
          "local.healthCheck.healthyThreshold",
          1,
          1,
          100,
          "Passed checks before a backend gets traffic again.");
  public static final Option<Duration> LOCAL_CONNECT_TIMEOUT =
      Option.duration(
          "local.connectTimeout", Duration.ofSeconds(2), MS, DAY, "TCP connect timeout to nodes.");
  public static final Option<Duration> LOCAL_UDP_SESSION_TIMEOUT =
      Option.duration(
          "local.udpSessionTimeout",
          Duration.ofSeconds(60),
          MS,
          DAY,
          "Idle time after which a UDP client's backend session closes.");
  public static final Option<Duration> BENCHMARK_DELAY =
      Option.duration(
          "benchmark.delay",
          Duration.ofMillis(100),
          Duration.ZERO,
          Duration.ofMinutes(10),
          "Time every call of the benchmark provider takes (0: at once).");
  public static final Option<String> ADMIN_HOST =
      Option.string(
          "admin.host",
          "0.0.0.0",
          s -> !s.isBlank(),
          "an address to listen on",
          "Address of the admin endpoints /healthz, /readyz and /metrics.");
  public static final Option<Integer> ADMIN_PORT =
      Option.integer(
          "admin.port",
          9080,
          -1,
          65535,
          "Port of the admin endpoints (0: any free port; -1: off).");
  public static final Option<String> LOG_FORMAT =
      Option.choice("log.format", "text", List.of("text", "json"), "Log line format.");

  public static final List<Option<?>> ALL =
      List.of(
          CLUSTER_NAME,
          CLUSTER_KUBECONFIG,
          CLUSTER_CONTEXT,
          PROVIDER,
          LOAD_BALANCER_CLASSES,
          RECONCILE_CONCURRENCY,
          RECONCILE_MIN_RETRY_DELAY,
          RECONCILE_MAX_RETRY_DELAY,
          WATCH_SERVICE_RESYNC,
          NODES_PREDICATES,
          NODE_SYNC_PERIOD,
          LOCAL_POOLS,
          LOCAL_HEALTH_CHECK_INTERVAL,
          LOCAL_HEALTH_CHECK_TIMEOUT,
          LOCAL_UNHEALTHY_THRESHOLD,
          LOCAL_HEALTHY_THRESHOLD,
          LOCAL_CONNECT_TIMEOUT,
          LOCAL_UDP_SESSION_TIMEOUT,
          BENCHMARK_DELAY,
          ADMIN_HOST,
          ADMIN_PORT,
          LOG_FORMAT);

  private PierOptions() {}
}
