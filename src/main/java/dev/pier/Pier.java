package dev.pier;

import dev.pier.admin.AdminServer;
import dev.pier.boot.DnsSetup;
import dev.pier.boot.HetznerProviders;
import dev.pier.boot.PierOptions;
import dev.pier.boot.WebhookProviders;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkLoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkProviderOptions;
import dev.pier.cloud.local.LocalLoadBalancerProvider;
import dev.pier.cloud.local.LocalProviderOptions;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.dns.publish.DnsPublisher;
import dev.pier.dns.publish.EndpointsWatchVerticle;
import dev.pier.dns.publish.TopologyWatchVerticle;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.kube.KubeClients;
import dev.pier.leader.LeaderElection;
import dev.pier.leader.LeaderElectionOptions;
import dev.pier.metrics.MeteredProvider;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.Addresses;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.nodesync.NodeSyncVerticle;
import dev.pier.orphans.OrphanSweeper;
import dev.pier.policy.NodeEligibility;
import dev.pier.policy.ServiceFilter;
import dev.pier.reconcile.ReconcileOptions;
import dev.pier.reconcile.ReconcileVerticle;
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
  private DnsPublisher dns;
  private volatile boolean reconciling;
  private volatile boolean electing;
  private volatile boolean leading;
  private volatile boolean stopping;
  private AdminServer admin;
  private LeaderElection election;
  private OrphanSweeper orphanSweeper;

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
    return start(config, wrap, Pier::exitAfterLosingLease);
  }

  /**
   * Starts Pier; {@code onLeaseLost} runs after a leader lost its Lease and stopped reconciling (in
   * production: exit, so that the pod restarts and campaigns again).
   */
  public static Future<Pier> start(
      ConfigValues config, UnaryOperator<LoadBalancerProvider> wrap, Runnable onLeaseLost) {
    LeaderElectionOptions electionOptions;
    try {
      electionOptions = leaderElectionOptions(config);
    } catch (ConfigException e) {
      return Future.failedFuture(e);
    }
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
    ServiceFilter filter =
        new ServiceFilter(new HashSet<>(config.get(PierOptions.LOAD_BALANCER_CLASSES)));
    Clusters clusters;
    LoadBalancerProvider provider;
    DnsPublisher dns;
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
      dns = DnsSetup.create(vertx, config, filter, System::getenv);
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
    pier.dns = dns;
    pier.orphanSweeper =
        OrphanSweeper.forProvider(
            clusters, provider, config.get(PierOptions.HETZNER_ORPHAN_CLEANUP_PERIOD), registry);
    if (electionOptions != null) {
      pier.electing = true;
      pier.election =
          new LeaderElection(
              clusters.all().iterator().next().client(),
              electionOptions,
              vertx.getOrCreateContext());
    }
    ReconcileVerticle reconciler =
        new ReconcileVerticle(clusters, provider, reconcile, pushed, metrics, dns);
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
        .compose(id -> vertx.deployVerticle(new WatchVerticle(clusters, filter)))
        .compose(
            id ->
                vertx.deployVerticle(
                    new NodeSyncVerticle(
                        clusters,
                        NodeEligibility.of(reconcile.getNodePredicates()),
                        pushed,
                        config.get(PierOptions.NODE_SYNC_PERIOD),
                        metrics)))
        .compose(
            id ->
                dns == null
                    ? Future.succeededFuture()
                    : vertx
                        .deployVerticle(new EndpointsWatchVerticle(clusters, dns::wantsDns))
                        .compose(
                            v -> vertx.deployVerticle(new TopologyWatchVerticle(clusters, dns))))
        .compose(
            id ->
                pier.election == null
                    ? pier.startReconciling()
                    : pier.election.start(pier.leaderListener(onLeaseLost)))
        .map(pier)
        .recover(e -> pier.stop().transform(ar -> Future.failedFuture(e)));
  }

  private Future<Void> startReconciling() {
    return vertx
        .eventBus()
        .request(Addresses.RECONCILE_CONTROL, "start")
        .compose(
            reply -> {
              // Only the process that reconciles sweeps orphans, and it deploys the sweeper once.
              OrphanSweeper sweeper = orphanSweeper;
              orphanSweeper = null;
              return sweeper == null
                  ? Future.succeededFuture(reply)
                  : vertx.deployVerticle(sweeper).map(reply);
            })
        .map(
            reply -> {
              // The Lease may have been lost while the workers started.
              reconciling = election == null || leading;
              metrics.setLeader(reconciling);
              return null;
            });
  }

  private LeaderElection.Listener leaderListener(Runnable onLeaseLost) {
    return new LeaderElection.Listener() {
      @Override
      public void onStartLeading() {
        if (stopping) {
          return;
        }
        leading = true;
        log.info("Became the leader ({}): starting to reconcile", election.identity());
        startReconciling()
            .onFailure(
                e -> {
                  log.error("Could not start reconciling as the leader: {}", e.getMessage());
                  loseLease(onLeaseLost);
                });
      }

      @Override
      public void onStopLeading() {
        log.error(
            "Lost the Lease {}/{} as {}: stopped reconciling; exiting so that the pod restarts",
            election.namespace(),
            election.leaseName(),
            election.identity());
        loseLease(onLeaseLost);
      }

      @Override
      public void onNewLeader(String identity) {
        if (identity != null && !identity.isEmpty() && !identity.equals(election.identity())) {
          log.info("The leader is {}; standing by", identity);
        }
      }
    };
  }

  private void loseLease(Runnable onLeaseLost) {
    reconciling = false;
    leading = false;
    metrics.setLeader(false);
    vertx.eventBus().request(Addresses.RECONCILE_CONTROL, "stop");
    onLeaseLost.run();
  }

  // Exits from a thread of its own: the shutdown hook needs the event loop this may be called on.
  private static void exitAfterLosingLease() {
    Thread exit = new Thread(() -> System.exit(1), "pier-exit");
    exit.start();
  }

  static LeaderElectionOptions leaderElectionOptions(ConfigValues config) {
    if (!config.get(PierOptions.LEADER_ELECTION_ENABLED)) {
      return null;
    }
    LeaderElectionOptions options =
        new LeaderElectionOptions()
            .setLeaseName(config.get(PierOptions.LEADER_ELECTION_LEASE_NAME))
            .setNamespace(config.get(PierOptions.LEADER_ELECTION_NAMESPACE))
            .setLeaseDuration(config.get(PierOptions.LEADER_ELECTION_LEASE_DURATION))
            .setRenewDeadline(config.get(PierOptions.LEADER_ELECTION_RENEW_DEADLINE))
            .setRetryPeriod(config.get(PierOptions.LEADER_ELECTION_RETRY_PERIOD));
    String problem = options.problem();
    if (problem != null) {
      throw new ConfigException(config.source() + ": leaderElection: " + problem);
    }
    return options;
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
            config.describe(PierOptions.LOCAL_POOLS) + ": " + e.getMessage(), e);
      }
    }
    if (name.equals("hetzner")) {
      return HetznerProviders.create(vertx, config);
    }
    if (name.equals("webhook")) {
      return WebhookProviders.create(vertx, config);
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

  /** Informers synced and, unless this process is a standby, workers running. */
  public boolean ready() {
    boolean standby = electing && !leading;
    return (standby || reconciling) && clusters.all().stream().allMatch(Cluster::synced);
  }

  /** True while this process reconciles (always, without leader election). */
  public boolean reconciling() {
    return reconciling;
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
    stopping = true;
    reconciling = false;
    Future<Void> released = election == null ? Future.succeededFuture() : election.stop();
    return released
        .otherwiseEmpty()
        .compose(v -> dns == null ? Future.<Void>succeededFuture() : dns.close().otherwiseEmpty())
        .compose(v -> provider.close())
        .otherwiseEmpty()
        .compose(
            v -> {
              clusters.close();
              return vertx.close();
            });
  }
}
