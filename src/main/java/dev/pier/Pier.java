package dev.pier;

import dev.pier.admin.AdminServer;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkLoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkProviderOptions;
import dev.pier.cloud.local.LocalLoadBalancerProvider;
import dev.pier.cloud.local.LocalProviderOptions;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.PierOptions;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.kube.KubeClients;
import dev.pier.metrics.MeteredProvider;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.Addresses;
import dev.pier.nodes.NodeEligibility;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.nodesync.NodeSyncVerticle;
import dev.pier.reconcile.ReconcileOptions;
import dev.pier.reconcile.ReconcileVerticle;
import dev.pier.watch.ServiceFilter;
import dev.pier.watch.WatchVerticle;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.List;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires Pier's parts from its configuration and runs them on one Vert.x instance. */
public final class Pier {
  private static final Logger log = LoggerFactory.getLogger(Pier.class);

  private final Vertx vertx;
  private final Clusters clusters;
  private final LoadBalancerProvider provider;
  private final PierMetrics metrics;
  private volatile boolean reconciling;
  private AdminServer admin;

  private Pier(Vertx vertx, Clusters clusters, LoadBalancerProvider provider, PierMetrics metrics) {
    this.vertx = vertx;
    this.clusters = clusters;
    this.provider = provider;
    this.metrics = metrics;
  }

  /** Starts Pier: informers synced, reconcile workers running. Fails on bad config or access. */
  public static Future<Pier> start(ConfigValues config) {
    return start(config, UnaryOperator.identity());
  }

  /**
   * Starts Pier with the configured provider wrapped by {@code wrap}: the seam for test doubles
   * that inject delays or faults into Pier's own provider.
   */
  public static Future<Pier> start(ConfigValues config, UnaryOperator<LoadBalancerProvider> wrap) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Vertx vertx =
        Vertx.builder()
            .with(
                new VertxOptions()
                    .setMetricsOptions(
                        new MicrometerMetricsOptions()
                            .setEnabled(true)
                            .setJvmMetricsEnabled(true)
                            .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true))
                            .addLabels(Label.EB_ADDRESS, Label.EB_FAILURE)))
            .withMetrics(new MicrometerMetricsFactory(registry))
            .build();
    PierMetrics metrics = new PierMetrics(registry);
    Clusters clusters;
    LoadBalancerProvider provider;
    try {
      provider = new MeteredProvider(wrap.apply(createProvider(vertx, config)), metrics);
      KubernetesClient client =
          KubeClients.create(
              vertx,
              config.get(PierOptions.CLUSTER_KUBECONFIG),
              config.get(PierOptions.CLUSTER_CONTEXT));
      clusters =
          new Clusters(
              List.of(
                  new Cluster(
                      vertx,
                      config.get(PierOptions.CLUSTER_NAME),
                      client,
                      config.get(PierOptions.WATCH_SERVICE_RESYNC),
                      instanceId())));
    } catch (RuntimeException e) {
      vertx.close();
      return Future.failedFuture(e);
    }
    ReconcileOptions reconcile =
        new ReconcileOptions()
            .setConcurrency(config.get(PierOptions.RECONCILE_CONCURRENCY))
            .setMinRetryDelay(config.get(PierOptions.RECONCILE_MIN_RETRY_DELAY))
            .setMaxRetryDelay(config.get(PierOptions.RECONCILE_MAX_RETRY_DELAY))
            .setLoadBalancerClasses(new HashSet<>(config.get(PierOptions.LOAD_BALANCER_CLASSES)))
            .setNodePredicates(config.get(PierOptions.NODES_PREDICATES));
    PushedNodeSets pushed = new PushedNodeSets();
    Pier pier = new Pier(vertx, clusters, provider, metrics);
    ReconcileVerticle reconciler =
        new ReconcileVerticle(clusters, provider, reconcile, pushed, metrics);
    metrics.bindQueue(reconciler::queueStats);
    int adminPort = config.get(PierOptions.ADMIN_PORT);
    Future<?> adminStarted = Future.succeededFuture();
    if (adminPort >= 0) {
      pier.admin =
          new AdminServer(config.get(PierOptions.ADMIN_HOST), adminPort, registry, pier::ready);
      adminStarted = vertx.deployVerticle(pier.admin);
    }
    return adminStarted
        .compose(v -> vertx.deployVerticle(reconciler))
        .compose(
            id ->
                vertx.deployVerticle(
                    new WatchVerticle(
                        clusters, new ServiceFilter(reconcile.getLoadBalancerClasses()))))
        .compose(
            id ->
                vertx.deployVerticle(
                    new NodeSyncVerticle(
                        clusters,
                        NodeEligibility.of(reconcile.getNodePredicates()),
                        pushed,
                        config.get(PierOptions.NODE_SYNC_PERIOD),
                        metrics)))
        .compose(id -> vertx.eventBus().request(Addresses.RECONCILE_CONTROL, "start"))
        .map(
            reply -> {
              pier.reconciling = true;
              metrics.setLeader(true);
              return pier;
            })
        .recover(e -> pier.stop().transform(ar -> Future.failedFuture(e)));
  }

  static LoadBalancerProvider createProvider(Vertx vertx, ConfigValues config) {
    String name = config.get(PierOptions.PROVIDER);
    if (name.equals("local")) {
      LocalProviderOptions options =
          new LocalProviderOptions()
              .setPools(config.get(PierOptions.LOCAL_POOLS))
              .setHealthCheckInterval(config.get(PierOptions.LOCAL_HEALTH_CHECK_INTERVAL))
              .setHealthCheckTimeout(config.get(PierOptions.LOCAL_HEALTH_CHECK_TIMEOUT))
              .setUnhealthyThreshold(config.get(PierOptions.LOCAL_UNHEALTHY_THRESHOLD))
              .setHealthyThreshold(config.get(PierOptions.LOCAL_HEALTHY_THRESHOLD))
              .setConnectTimeout(config.get(PierOptions.LOCAL_CONNECT_TIMEOUT))
              .setUdpSessionTimeout(config.get(PierOptions.LOCAL_UDP_SESSION_TIMEOUT));
      try {
        return new LocalLoadBalancerProvider(vertx, options);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            config.source() + ": " + PierOptions.LOCAL_POOLS.path() + ": " + e.getMessage(), e);
      }
    }
    if (name.equals("benchmark")) {
      return new BenchmarkLoadBalancerProvider(
          vertx, new BenchmarkProviderOptions().setDelay(config.get(PierOptions.BENCHMARK_DELAY)));
    }
    throw new ConfigException(config.source() + ": provider: unknown provider '" + name + "'");
  }

  private static String instanceId() {
    return ManagementFactory.getRuntimeMXBean().getName();
  }

  /** Informers synced and workers running. */
  public boolean ready() {
    return reconciling && clusters.all().stream().allMatch(Cluster::synced);
  }

  public Vertx vertx() {
    return vertx;
  }

  public Clusters clusters() {
    return clusters;
  }

  public PierMetrics metrics() {
    return metrics;
  }

  /** The admin server's port, or -1 when it is off. */
  public int adminPort() {
    return admin == null ? -1 : admin.actualPort();
  }

  /** Stops reconciling, closes listeners and clients. Load balancers stay as they are. */
  public Future<Void> stop() {
    log.info("Stopping");
    reconciling = false;
    return provider
        .close()
        .otherwiseEmpty()
        .compose(
            v -> {
              clusters.close();
              return vertx.close();
            });
  }
}
