package dev.pier.boot;

import dev.pier.admin.MetricsAuth;
import dev.pier.cloud.AddressPoolUsage;
import dev.pier.cloud.ClusterRoutedProvider;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.dns.publish.DnsPublisher;
import dev.pier.dns.publish.EndpointSliceWatchVerticle;
import dev.pier.dns.publish.TopologyWatchVerticle;
import dev.pier.federation.Federated;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.members.Members;
import dev.pier.federation.sync.FederationQueueOptions;
import dev.pier.federation.sync.FederationShards;
import dev.pier.federation.sync.FederationVerticle;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.kube.KubeClients;
import dev.pier.kube.KubeEventRecorder;
import dev.pier.kube.ServiceWriter;
import dev.pier.leader.LeaderElection;
import dev.pier.leader.LeaderElectionOptions;
import dev.pier.leader.LeaderGate;
import dev.pier.leader.ShardGates;
import dev.pier.leader.WorkGate;
import dev.pier.metrics.MeteredProvider;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.nodesync.NodeSyncVerticle;
import dev.pier.orphans.OrphanSweeper;
import dev.pier.policy.DeletionGuard;
import dev.pier.policy.NodeEligibility;
import dev.pier.policy.ServiceFilter;
import dev.pier.reconcile.DeletedServices;
import dev.pier.reconcile.LoadBalancerMembers;
import dev.pier.reconcile.ReconcileOptions;
import dev.pier.reconcile.ReconcileVerticle;
import dev.pier.scaleout.ScaleOut;
import dev.pier.shards.ScaleOutOptions;
import dev.pier.shards.ShardMap;
import dev.pier.util.RequestFence;
import dev.pier.watch.WatchVerticle;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Deployable;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.spi.cluster.ClusterManager;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pier's parts, built once from its configuration: the one place where options become objects.
 * Policies, the provider, the clusters and DNS are built here and passed to the verticles that use
 * them; nothing below this package reads the option table.
 *
 * @param dns the DNS publisher, or null when DNS publishing is off
 * @param election the leader election, or null when it is off
 * @param scaleOut this replica's part in scale-out, or null when scaleOut.enabled is off
 * @param orphanSweeper the orphan sweeper (it deletes with orphans.cleanup, else only counts), or
 *     null when the provider cannot list what it owns
 * @param deletionGuard holds back mass deletions Pier starts on its own
 * @param watchers the verticles that turn informer events into keys, in deployment order
 * @param adminPort the admin server's port (0: any free port; -1: off)
 * @param metricsAuth who may read /metrics ({@code admin.metricsAuth: kubernetes}), or null: anyone
 * @param adminTls the admin server's certificate and key ({@code admin.tls.*}), or null: plain HTTP
 * @param clusters the clusters with Pier's load-balancer controller
 * @param connected every cluster Pier has a client for (closed on stop)
 * @param host the federation's host cluster, or null without federation
 * @param federation the federation controller, or null without federation
 */
public record Components(
    Vertx vertx,
    PrometheusMeterRegistry registry,
    PierMetrics metrics,
    Clusters clusters,
    List<Cluster> connected,
    Cluster host,
    Members members,
    FederationVerticle federation,
    LoadBalancerProvider provider,
    DnsPublisher dns,
    LeaderElection election,
    ScaleOut scaleOut,
    OrphanSweeper orphanSweeper,
    DeletionGuard deletionGuard,
    ReconcileVerticle reconciler,
    List<Deployable> watchers,
    String adminHost,
    int adminPort,
    MetricsAuth metricsAuth,
    PemKeyCertOptions adminTls) {
  private static final Logger log = LoggerFactory.getLogger(Components.class);

  /**
   * Builds every part on a new Vert.x instance; on a failure closes it and throws, a {@link
   * ConfigException} naming the option for bad configuration.
   *
   * @param wrap wraps the configured provider: the seam for test doubles that inject delays or
   *     faults into Pier's own provider
   */
  public static Components build(ConfigValues config, UnaryOperator<LoadBalancerProvider> wrap) {
    LeaderElectionOptions electionOptions = leaderElectionOptions(config);
    PrometheusMeterRegistry registry = PierMetrics.newRegistry();
    Vertx vertx = vertx(registry);
    try {
      return build(config, wrap, vertx, registry, electionOptions, null, null);
    } catch (RuntimeException e) {
      vertx.close();
      throw e;
    }
  }

  /**
   * Builds every part; with {@code scaleOut.enabled} on a clustered Vert.x instance, once this
   * replica joined the others. Fails as {@link #build(ConfigValues, UnaryOperator)} does, and when
   * the replica cannot join.
   */
  public static Future<Components> start(
      ConfigValues config, UnaryOperator<LoadBalancerProvider> wrap) {
    ScaleOutOptions scaleOut;
    ScaleOutTls tls;
    try {
      scaleOut = ScaleOutSetup.options(config);
      if (scaleOut == null) {
        return Future.succeededFuture(build(config, wrap));
      }
      tls = ScaleOutSetup.tls(config);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    ScaleOutSetup.filterSerialization();
    PrometheusMeterRegistry registry = PierMetrics.newRegistry();
    ClusterManager members;
    try {
      members =
          ScaleOutSetup.clusterManager(
              scaleOut, config.get(PierOptions.LEADER_ELECTION_NAMESPACE), tls);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return Vertx.builder()
        .with(ScaleOutSetup.eventBus(vertxOptions(), scaleOut, tls))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .withClusterManager(members)
        .buildClustered()
        .recover(
            e ->
                Future.failedFuture(
                    new IllegalStateException(
                        "could not join the replicas' cluster (scaleOut.members "
                            + scaleOut.members()
                            + ", scaleOut.kubernetesService '"
                            + scaleOut.kubernetesService()
                            + "', scaleOut.port "
                            + scaleOut.port()
                            + ", scaleOut.eventBusPort "
                            + scaleOut.eventBusPort()
                            + "): "
                            + e.getMessage(),
                        e)))
        .compose(
            vertx -> {
              try {
                return Future.succeededFuture(
                    build(config, wrap, vertx, registry, null, scaleOut, members));
              } catch (RuntimeException e) {
                return vertx.close().transform(ar -> Future.failedFuture(e));
              }
            });
  }

  private static Components build(
      ConfigValues config,
      UnaryOperator<LoadBalancerProvider> wrap,
      Vertx vertx,
      PrometheusMeterRegistry registry,
      LeaderElectionOptions electionOptions,
      ScaleOutOptions scaleOutOptions,
      ClusterManager replicas) {
    AdminTls adminTls = AdminTls.of(config);
    List<ClusterSetup> setups = ClusterConfigs.of(config, System::getenv);
    Wiring w =
        new Wiring(
            config,
            vertx,
            registry,
            new PierMetrics(registry),
            gate(electionOptions, scaleOutOptions, setups),
            FederationSettings.federationOptions(config),
            config.get(PierOptions.WATCH_SERVICE_RESYNC),
            new RelistCounters(registry));
    Connected c = connect(w, setups);
    ServiceFilter filter = serviceFilter(w, c);
    ClusterRoutedProvider routed = routed(c);
    LoadBalancerProvider provider = provider(w, c, routed, wrap);
    Clusters clusters = new Clusters(c.withLoadBalancers());
    Members members = members(w, c, clusters, routed);
    DnsPublisher dns = dns(w, c, setups, filter);
    DeletionGuard guard = deletionGuard(w);
    LoadBalancerController lb = loadBalancerController(w, clusters, provider, filter, dns);
    Leadership leadership = leadership(w, c, electionOptions, scaleOutOptions, replicas);
    FederationVerticle federation =
        federation(w, c.host(), members, dns, guard, leadership, setups);
    c.connected().forEach(w.relists()::track);
    OrphanSweeper sweeper =
        OrphanSweeper.forProvider(
            clusters,
            provider,
            orphanPeriod(config),
            guard,
            registry,
            w.gate(),
            orphanCleanup(config));
    return new Components(
        vertx,
        registry,
        w.metrics(),
        clusters,
        List.copyOf(c.connected()),
        c.host(),
        members,
        federation,
        provider,
        dns,
        leadership.election(),
        leadership.scaleOut(),
        sweeper,
        guard,
        lb.reconciler(),
        lb.watchers(),
        config.get(PierOptions.ADMIN_HOST),
        config.get(PierOptions.ADMIN_PORT),
        metricsAuth(config, c.connected(), registry),
        adminTls == null ? null : adminTls.keyCert());
  }

  /** What every subsystem's wiring needs. */
  private record Wiring(
      ConfigValues config,
      Vertx vertx,
      PrometheusMeterRegistry registry,
      PierMetrics metrics,
      WorkGate gate,
      FederationOptions federationOptions,
      Duration resync,
      RelistCounters relists) {}

  /**
   * The configured clusters, connected.
   *
   * @param providers the provider of each cluster with {@code loadBalancers: true}, by name
   * @param host the federation's host, or null
   * @param configuredMembers the federation members of the configuration file
   */
  private record Connected(
      List<Cluster> connected,
      Map<String, LoadBalancerProvider> providers,
      Cluster host,
      List<Cluster> withLoadBalancers,
      Map<ClusterSpec, Cluster> configuredMembers) {}

  /**
   * Who may write: the Lease's campaign, or with scale-out this replica's part; either may be null.
   */
  private record Leadership(LeaderElection election, ScaleOut scaleOut) {}

  private static Leadership leadership(
      Wiring w,
      Connected c,
      LeaderElectionOptions electionOptions,
      ScaleOutOptions scaleOutOptions,
      ClusterManager replicas) {
    // With a federation the Leases live in its host cluster.
    KubernetesClient leaseClient = (c.host() != null ? c.host() : c.connected().get(0)).client();
    if (scaleOutOptions != null) {
      return new Leadership(
          null,
          scaleOut(
              w.config(),
              w.vertx(),
              replicas,
              (ShardGates) w.gate(),
              scaleOutOptions,
              leaseClient,
              w.registry()));
    }
    return new Leadership(
        electionOptions == null
            ? null
            : new LeaderElection(
                leaseClient,
                electionOptions,
                w.vertx().getOrCreateContext(),
                (LeaderGate) w.gate()),
        null);
  }

  /** The verticles of the load-balancer controller. */
  private record LoadBalancerController(ReconcileVerticle reconciler, List<Deployable> watchers) {}

  /**
   * Runs check it before each write and provider call, and every API write checks it again right
   * before it is sent: open while this process holds the Lease (with scale-out: the Lease of the
   * key's shard).
   */
  private static WorkGate gate(
      LeaderElectionOptions electionOptions,
      ScaleOutOptions scaleOutOptions,
      List<ClusterSetup> setups) {
    if (scaleOutOptions != null) {
      return new ShardGates(shardMap(scaleOutOptions, setups), scaleOutOptions.renewDeadline());
    }
    return electionOptions == null
        ? LeaderGate.alwaysOpen()
        : LeaderGate.forLease(electionOptions.getRenewDeadline());
  }

  /** Connects every configured cluster, with its provider; on a failure closes what it opened. */
  private static Connected connect(Wiring w, List<ClusterSetup> setups) {
    Connected c =
        new Connected(
            new ArrayList<>(),
            new LinkedHashMap<>(),
            null,
            new ArrayList<>(),
            new LinkedHashMap<>());
    try {
      for (ClusterSetup setup : setups) {
        c = connect(w, setup, c);
      }
      return c;
    } catch (RuntimeException e) {
      c.connected().forEach(Cluster::close);
      c.providers().values().forEach(LoadBalancerProvider::close);
      throw e;
    }
  }

  private static Connected connect(Wiring w, ClusterSetup setup, Connected c) {
    ClusterSpec spec = setup.spec();
    boolean member = spec.federation() == FederationRole.MEMBER;
    Cluster cluster =
        cluster(
            w.vertx(),
            spec,
            setup.kubeconfigOrigin(),
            w.resync(),
            w.gate(),
            w.federationOptions().namespaces(),
            member,
            member ? memberScope(w.federationOptions(), spec) : Set.of());
    c.connected().add(cluster);
    if (spec.loadBalancers()) {
      c.withLoadBalancers().add(cluster);
      c.providers()
          .put(
              cluster.name(),
              LoadBalancerProviders.create(
                  w.vertx(), setup.config(), w.registry(), cluster.events(), w.gate()));
    }
    if (member) {
      // A member is never needed to start: it keeps retrying, even on a 403.
      if (!spec.loadBalancers()) {
        cluster.retryWhenForbidden();
      }
      c.configuredMembers().put(spec, cluster);
    }
    if (spec.federation() == FederationRole.HOST) {
      return new Connected(
          c.connected(), c.providers(), cluster, c.withLoadBalancers(), c.configuredMembers());
    }
    return c;
  }

  /** The Services Pier serves; a federation host's federated Services are the federation's. */
  private static ServiceFilter serviceFilter(Wiring w, Connected c) {
    ServiceFilter filter = serviceFilter(w.config());
    if (c.host() == null) {
      return filter;
    }
    Set<String> namespaces = w.federationOptions().namespaces();
    return filter.withFederationHost(
        c.host().name(), svc -> Federated.isFederated(svc, namespaces));
  }

  /** The provider every run calls: metered, routed by cluster when {@code routed} is not null. */
  private static LoadBalancerProvider provider(
      Wiring w,
      Connected c,
      ClusterRoutedProvider routed,
      UnaryOperator<LoadBalancerProvider> wrap) {
    LoadBalancerProvider provider =
        new MeteredProvider(
            wrap.apply(routed == null ? c.providers().values().iterator().next() : routed),
            w.metrics(),
            w.vertx(),
            w.config().get(PierOptions.RECONCILE_PROVIDER_CALL_DEADLINE),
            w.config().get(PierOptions.PROVIDER));
    c.providers()
        .forEach(
            (cluster, p) -> {
              if (p instanceof AddressPoolUsage.Source pools) {
                w.metrics().bindAddressPools(cluster, pools);
              }
            });
    return provider;
  }

  /**
   * The one router of provider calls by cluster, or null with a single cluster and no federation.
   * With a federation, members that join through a Secret may bring a provider of their own: the
   * provider every run calls and the members' attachments share this instance.
   */
  private static ClusterRoutedProvider routed(Connected c) {
    return c.providers().size() == 1 && c.host() == null
        ? null
        : new ClusterRoutedProvider(c.providers());
  }

  /** The federation's members: the configured ones, and those that join through a Secret. */
  private static Members members(
      Wiring w, Connected c, Clusters clusters, ClusterRoutedProvider routed) {
    LoadBalancerMembers loadBalancerMembers =
        routed == null ? null : new LoadBalancerMembers(w.vertx(), clusters, routed);
    Members members =
        new Members(
            w.federationOptions(),
            memberConnector(
                w.vertx(),
                w.config(),
                w.resync(),
                w.gate(),
                w.federationOptions(),
                w.relists(),
                loadBalancerMembers));
    c.configuredMembers().forEach(members::addConfigured);
    return members;
  }

  /** The DNS publisher, or null when DNS publishing is off. */
  private static DnsPublisher dns(
      Wiring w, Connected c, List<ClusterSetup> setups, ServiceFilter filter) {
    DnsPublisher dns =
        DnsSetup.create(
            w.vertx(),
            w.config(),
            filter,
            System::getenv,
            setups.size() > 1 ? setups.stream().map(s -> s.spec().name()).toList() : List.of(),
            c.host() == null ? "" : c.host().name(),
            w.gate());
    if (dns != null) {
      w.metrics().bindOwnedDnsNames(dns::ownedNames);
    }
    return dns;
  }

  private static DeletionGuard deletionGuard(Wiring w) {
    DeletionGuard guard = deletionGuard(w.config());
    Gauge.builder("pier.deletion.guard.held", guard, DeletionGuard::held)
        .description(
            "Deletions Pier started on its own that the deletion guard holds until confirmed")
        .register(w.registry());
    return guard;
  }

  /** The reconcile verticle and the watchers that feed it keys. */
  private static LoadBalancerController loadBalancerController(
      Wiring w,
      Clusters clusters,
      LoadBalancerProvider provider,
      ServiceFilter filter,
      DnsPublisher dns) {
    NodeEligibility eligibility = NodeEligibility.of(w.config().get(PierOptions.NODES_PREDICATES));
    PushedNodeSets pushed = new PushedNodeSets();
    DeletedServices deleted = new DeletedServices();
    ReconcileVerticle reconciler =
        new ReconcileVerticle(
            clusters,
            provider,
            reconcileOptions(w.config()),
            filter,
            eligibility,
            pushed,
            deleted,
            w.metrics(),
            dns,
            w.gate());
    w.metrics().bindQueue(reconciler::queueStats);
    w.metrics().bindWaitingRequests(reconciler::waitingRequestsSeen);
    List<Deployable> watchers = new ArrayList<>();
    watchers.add(new WatchVerticle(clusters, filter, deleted::record));
    watchers.add(
        new NodeSyncVerticle(
            clusters,
            eligibility,
            pushed,
            w.config().get(PierOptions.NODE_SYNC_PERIOD),
            w.config().get(PierOptions.NODE_SYNC_DEBOUNCE),
            w.metrics()));
    if (dns != null) {
      watchers.add(new EndpointSliceWatchVerticle(clusters, dns::wantsDns));
      watchers.add(new TopologyWatchVerticle(clusters, dns));
    }
    return new LoadBalancerController(reconciler, List.copyOf(watchers));
  }

  /** The federation controller, or null without a host cluster. */
  private static FederationVerticle federation(
      Wiring w,
      Cluster host,
      Members members,
      DnsPublisher dns,
      DeletionGuard guard,
      Leadership leadership,
      List<ClusterSetup> setups) {
    if (host == null) {
      return null;
    }
    ConfigValues config = w.config();
    return new FederationVerticle(
        host,
        members,
        w.federationOptions(),
        w.metrics(),
        new FederationQueueOptions(
            config.get(PierOptions.RECONCILE_CONCURRENCY),
            config.get(PierOptions.RECONCILE_MIN_RETRY_DELAY),
            config.get(PierOptions.RECONCILE_MAX_RETRY_DELAY),
            config.get(PierOptions.RECONCILE_RUN_DEADLINE)),
        dns,
        guard,
        w.gate() instanceof ShardGates shardGates
            ? FederationShards.divided(
                shardGates.shards(), shardGates::holds, leadership.scaleOut().holders())
            : FederationShards.whole(),
        DataPathProbes.options(
            config,
            setups,
            w.federationOptions().panicThreshold(),
            // The probes belong to the host side: shard 0's holder with scale-out.
            w.gate() instanceof ShardGates gates ? gates.clusterWide() : w.gate()));
  }

  /**
   * Connects a member that joins through a Secret: its client and caches, and when the Secret names
   * a provider, Pier's load balancers there with that provider.
   */
  private static Members.Connector memberConnector(
      Vertx vertx,
      ConfigValues config,
      Duration resync,
      WorkGate gate,
      FederationOptions federationOptions,
      RelistCounters relists,
      LoadBalancerMembers loadBalancerMembers) {
    return new Members.Connector() {
      @Override
      public void check(ClusterSpec spec) {
        if (spec.provider() != null) {
          MemberProviders.check(config, spec.provider());
        }
      }

      @Override
      public List<String> lowered(ClusterSpec spec) {
        return spec.provider() == null || loadBalancerMembers == null
            ? List.of()
            : MemberProviders.lowered(config, spec.provider());
      }

      @Override
      public Future<String> refusedAsResolved(ClusterSpec spec) {
        return spec.provider() == null || loadBalancerMembers == null
            ? Future.succeededFuture(null)
            : MemberEgress.refusedAsResolved(vertx, config, spec.provider());
      }

      @Override
      public Cluster connect(ClusterSpec spec) {
        Cluster c =
            relists.track(
                cluster(
                        vertx,
                        spec,
                        "the Secret of cluster " + spec.name(),
                        resync,
                        gate,
                        federationOptions.namespaces(),
                        true,
                        memberScope(federationOptions, spec))
                    .retryWhenForbidden());
        if (spec.provider() != null && loadBalancerMembers != null) {
          try {
            loadBalancerMembers.attach(
                c, MemberProviders.create(vertx, config, spec.provider(), gate));
          } catch (RuntimeException e) {
            c.close();
            throw e;
          }
        }
        return c;
      }

      @Override
      public void disconnect(Cluster cluster) {
        if (loadBalancerMembers != null) {
          loadBalancerMembers.detach(cluster);
        }
        cluster.close();
      }
    };
  }

  /**
   * The reviews of {@code admin.metricsAuth: kubernetes} go to the first configured cluster, the
   * one Pier runs in, without the leadership fence: a standby answers scrapes too.
   */
  static MetricsAuth metricsAuth(
      ConfigValues config, List<Cluster> connected, PrometheusMeterRegistry registry) {
    if (!MetricsAuth.KUBERNETES.equals(config.get(PierOptions.ADMIN_METRICS_AUTH))
        || connected.isEmpty()) {
      return null;
    }
    return new MetricsAuth(
        new AsyncKubeApi(connected.get(0).client()),
        config.get(PierOptions.ADMIN_METRICS_AUDIENCES),
        registry);
  }

  static Vertx vertx(PrometheusMeterRegistry registry) {
    return Vertx.builder()
        .with(vertxOptions())
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
  }

  private static VertxOptions vertxOptions() {
    return new VertxOptions()
        .setMetricsOptions(
            new MicrometerMetricsOptions()
                .setEnabled(true)
                .setJvmMetricsEnabled(true)
                .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true))
                .addLabels(Label.EB_ADDRESS, Label.EB_FAILURE));
  }

  /**
   * The shards; one when a cluster's load balancers are the embedded {@code local} provider's,
   * which binds addresses on its own machine: one replica at a time serves them.
   */
  static ShardMap shardMap(ScaleOutOptions options, List<ClusterSetup> setups) {
    boolean local =
        setups.stream()
            .anyMatch(
                s ->
                    s.spec().loadBalancers()
                        && "local".equals(s.config().get(PierOptions.PROVIDER)));
    if (local && options.shards() > 1) {
      log.warn(
          "scaleOut: the local provider binds load-balancer addresses on this machine, so one"
              + " replica at a time serves them: running with 1 shard instead of {}"
              + " (scaleOut.shards); the other replicas stand by",
          options.shards());
      return new ShardMap(1);
    }
    return new ShardMap(options.shards());
  }

  private static ScaleOut scaleOut(
      ConfigValues config,
      Vertx vertx,
      ClusterManager replicas,
      ShardGates gates,
      ScaleOutOptions options,
      KubernetesClient client,
      PrometheusMeterRegistry registry) {
    String namespace = config.get(PierOptions.LEADER_ELECTION_NAMESPACE);
    if (namespace.isEmpty()) {
      namespace = client.getNamespace() == null ? "default" : client.getNamespace();
    }
    return new ScaleOut(
        vertx,
        replicas,
        gates,
        options,
        // The Lease writes are the campaign itself: no gate stands before them.
        new AsyncKubeApi(client),
        namespace,
        config.get(PierOptions.LEADER_ELECTION_LEASE_NAME),
        LeaderElection.defaultIdentity() + "_" + replicas.getNodeId().substring(0, 8),
        registry);
  }

  static ServiceFilter serviceFilter(ConfigValues config) {
    return new ServiceFilter(
        new HashSet<>(config.get(PierOptions.LOAD_BALANCER_CLASSES)),
        config.get(PierOptions.SERVE_SERVICES_WITHOUT_CLASS));
  }

  /**
   * Whether the orphan sweep deletes: {@code orphans.cleanup}, or its alias {@code
   * hetzner.orphanCleanup}. Else it only counts. It runs only with a provider that can list what it
   * owns.
   */
  static boolean orphanCleanup(ConfigValues config) {
    return config.get(PierOptions.ORPHANS_CLEANUP)
        || config.get(PierOptions.HETZNER_ORPHAN_CLEANUP);
  }

  /**
   * How often orphans are looked for: {@code orphans.period}, except that users who turned the
   * sweep on only through {@code hetzner.orphanCleanup} keep {@code hetzner.orphanCleanupPeriod}.
   */
  static Duration orphanPeriod(ConfigValues config) {
    return !config.get(PierOptions.ORPHANS_CLEANUP)
            && config.get(PierOptions.HETZNER_ORPHAN_CLEANUP)
        ? config.get(PierOptions.HETZNER_ORPHAN_CLEANUP_PERIOD)
        : config.get(PierOptions.ORPHANS_PERIOD);
  }

  static DeletionGuard deletionGuard(ConfigValues config) {
    return new DeletionGuard(
        config.get(PierOptions.DELETION_GUARD_MIN_DELETIONS),
        config.get(PierOptions.DELETION_GUARD_MAX_PERCENT),
        config.get(PierOptions.DELETION_GUARD_WINDOW),
        config.get(PierOptions.DELETION_GUARD_CONFIRM),
        System::currentTimeMillis);
  }

  static ReconcileOptions reconcileOptions(ConfigValues config) {
    return new ReconcileOptions()
        .setConcurrency(config.get(PierOptions.RECONCILE_CONCURRENCY))
        .setClusterFloor(config.get(PierOptions.RECONCILE_CLUSTER_FLOOR))
        .setNodeSyncConcurrency(config.get(PierOptions.NODE_SYNC_CONCURRENCY))
        .setMinRetryDelay(config.get(PierOptions.RECONCILE_MIN_RETRY_DELAY))
        .setMaxRetryDelay(config.get(PierOptions.RECONCILE_MAX_RETRY_DELAY))
        .setVerifyPeriod(config.get(PierOptions.RECONCILE_VERIFY_PERIOD))
        .setRunDeadline(config.get(PierOptions.RECONCILE_RUN_DEADLINE))
        .setRateLimit(config.get(PierOptions.RECONCILE_RATE_LIMIT))
        .setRateBurst(config.get(PierOptions.RECONCILE_RATE_BURST))
        .setMinEnsureInterval(config.get(PierOptions.RECONCILE_MIN_ENSURE_INTERVAL));
  }

  /** The Lease settings, or null when leader election is off. */
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

  /**
   * The namespaces Pier may read and write in a member: those of federation.namespaces with
   * memberScope namespaces, unless the member runs Pier's load balancers (which read every
   * namespace under k8s/rbac.yaml); empty: every namespace.
   */
  static Set<String> memberScope(FederationOptions options, ClusterSpec spec) {
    return options.namespacedMembers() && !spec.loadBalancers() ? options.namespaces() : Set.of();
  }

  /** A cluster Pier runs against, with its writers and Event recorder. */
  static Cluster cluster(
      Vertx vertx,
      ClusterSpec spec,
      String kubeconfigOrigin,
      Duration serviceResync,
      RequestFence fence,
      Set<String> federatedNamespaces,
      boolean member,
      Set<String> scope) {
    String kubeconfig = spec.kubeconfig();
    if (!kubeconfig.isEmpty() && !spec.inCluster() && !new File(kubeconfig).canRead()) {
      throw new ConfigException(kubeconfigOrigin + ": cannot read '" + kubeconfig + "'");
    }
    KubernetesClient client = KubeClients.create(vertx, spec);
    AsyncKubeApi api = new AsyncKubeApi(client, fence);
    // With scale-out the host's federation writes go while shard 0 is held, a member's while its
    // member shard is.
    AsyncKubeApi federationApi =
        fence instanceof ShardGates shards
            ? new AsyncKubeApi(
                client,
                member ? shards.fence(shards.shards().ofMember(spec.name())) : shards.clusterWide())
            : api;
    return new Cluster(
        spec.name(),
        client,
        serviceResync,
        new ServiceWriter(api),
        new KubeEventRecorder(vertx, api, ManagementFactory.getRuntimeMXBean().getName()),
        api,
        federationApi,
        federatedNamespaces,
        scope);
  }
}
