package dev.pier.boot;

import dev.pier.admin.MetricsAuth;
import dev.pier.cloud.benchmark.BenchmarkProviderOptions;
import dev.pier.cloud.hetzner.HetznerOptions;
import dev.pier.cloud.local.LocalProviderOptions;
import dev.pier.cloud.local.PoolSpec;
import dev.pier.cloud.webhook.WebhookOptions;
import dev.pier.config.Option;
import dev.pier.dns.DeadlineDnsProvider;
import dev.pier.dns.externaldns.ExternalDnsOptions;
import dev.pier.dns.powerdns.PowerDnsOptions;
import dev.pier.dns.publish.DataPathOptions;
import dev.pier.dns.publish.DnsOptions;
import dev.pier.federation.FederationOptions;
import dev.pier.leader.LeaderElectionOptions;
import dev.pier.metrics.MeteredProvider;
import dev.pier.nodesync.NodeSyncVerticle;
import dev.pier.policy.DeletionGuard;
import dev.pier.policy.NodeEligibility;
import dev.pier.reconcile.ReconcileOptions;
import dev.pier.retry.ExponentialBackoff;
import dev.pier.shards.ScaleOutOptions;
import dev.pier.util.AnswerLimit;
import dev.pier.util.Cidr;
import dev.pier.util.EgressPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Every option Pier reads: its path, environment variable, check and help text. Defaults that an
 * options class also has are taken from its {@code DEFAULT_*} constant, so each is written once;
 * {@code conf/pier.yaml} and {@code --help} are tested against this table.
 */
public final class PierOptions {
  /** The sections of the provider options, besides {@code provider} itself. */
  static final List<String> PROVIDER_SECTIONS = List.of("local", "hetzner", "webhook", "benchmark");

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Duration MS = Duration.ofMillis(1);
  private static final Duration DAY = Duration.ofDays(1);

  public static final Option<String> CLUSTER_NAME =
      Option.string(
          "cluster.name",
          "kubernetes",
          s -> s.length() <= 63 && DNS_LABEL.matcher(s).matches(),
          "a DNS label (lower case letters, digits, '-')",
          "Name of the cluster; passed to providers and part of every work-queue key. Not its"
              + " identity: every ownership mark carries the uid of its kube-system namespace.");
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
  public static final Option<List<ClusterConfigs.Item>> CLUSTERS =
      Option.itemList(
          "clusters",
          List.of(),
          ClusterConfigs::parseItems,
          l -> true,
          ClusterConfigs.ITEMS_ALLOWED,
          "Clusters Pier serves, instead of the single cluster section: items {name, kubeconfig,"
              + " context, inCluster, region, zones, loadBalancers, federation, labels} plus"
              + " provider sections of their own (see Clusters below).");
  public static final Option<String> FEDERATION_NAME =
      Option.string(
          "federation.name",
          FederationOptions.DEFAULT_NAME,
          s -> s.length() <= 63 && DNS_LABEL.matcher(s).matches(),
          "a DNS label (lower case letters, digits, '-')",
          "Name of the federation; dns.federation defaults to it.");
  public static final Option<String> FEDERATION_SECRET_NAMESPACE =
      Option.string(
          "federation.secretNamespace",
          FederationOptions.DEFAULT_SECRET_NAMESPACE,
          s -> s.length() <= 63 && DNS_LABEL.matcher(s).matches(),
          "a namespace name (a DNS label)",
          "Namespace on the host cluster of the Secrets through which member clusters join.");
  public static final Option<List<String>> FEDERATION_NAMESPACES =
      Option.list(
          "federation.namespaces",
          FederationOptions.DEFAULT_NAMESPACES,
          l -> l.stream().allMatch(s -> s.length() <= 63 && DNS_LABEL.matcher(s).matches()),
          "a list of namespace names (DNS labels)",
          "Namespaces whose every Service is federated, with or without the annotation.");
  public static final Option<Boolean> FEDERATION_NAMESPACE_OPT_IN =
      Option.bool(
          "federation.namespaceOptIn",
          FederationOptions.DEFAULT_NAMESPACE_OPT_IN,
          "Federate Services only from host namespaces listed in federation.namespaces or labelled"
              + " pier.dev/federation=<federation.name>; false: from any namespace.");
  public static final Option<String> FEDERATION_MEMBER_SCOPE =
      Option.choice(
          "federation.memberScope",
          FederationOptions.DEFAULT_MEMBER_SCOPE.name().toLowerCase(Locale.ROOT),
          Arrays.stream(FederationOptions.MemberScope.values())
              .map(u -> u.name().toLowerCase(Locale.ROOT))
              .toList(),
          "What Pier reads and writes in a member without load balancers. cluster: every"
              + " namespace (k8s/rbac-federation-member.yaml); namespaces: only those of"
              + " federation.namespaces, which must exist there, and no Nodes"
              + " (k8s/rbac-federation-member-namespaced.yaml; needs federation.namespaces and"
              + " namespaceOptIn).");
  public static final Option<String> FEDERATION_UNREADY_CLUSTERS =
      Option.choice(
          "federation.unreadyClusters",
          FederationOptions.DEFAULT_UNREADY_CLUSTERS.name().toLowerCase(Locale.ROOT),
          Arrays.stream(FederationOptions.UnreadyClusters.values())
              .map(u -> u.name().toLowerCase(Locale.ROOT))
              .toList(),
          "What a federated Service's status keeps of a member that is not ready. keep: its last"
              + " known ingress; drop: nothing.");
  public static final Option<Duration> FEDERATION_HEALTH_PERIOD =
      Option.duration(
          "federation.health.period",
          FederationOptions.DEFAULT_HEALTH_PERIOD,
          Duration.ofMillis(100),
          DAY,
          "How often each member cluster's health is checked.");
  public static final Option<Duration> FEDERATION_HEALTH_TIMEOUT =
      Option.duration(
          "federation.health.timeout",
          FederationOptions.DEFAULT_HEALTH_TIMEOUT,
          MS,
          DAY,
          "Timeout of one health check.");
  public static final Option<Integer> FEDERATION_HEALTH_FAILURE_THRESHOLD =
      Option.integer(
          "federation.health.failureThreshold",
          FederationOptions.DEFAULT_FAILURE_THRESHOLD,
          1,
          100,
          "Failed checks in a row after which a member is not ready.");
  public static final Option<Integer> FEDERATION_HEALTH_SUCCESS_THRESHOLD =
      Option.integer(
          "federation.health.successThreshold",
          FederationOptions.DEFAULT_SUCCESS_THRESHOLD,
          1,
          100,
          "Passed checks in a row after which a member is ready again.");
  public static final Option<Duration> FEDERATION_DELETE_TIMEOUT =
      Option.duration(
          "federation.deleteTimeout",
          FederationOptions.DEFAULT_DELETE_TIMEOUT,
          Duration.ofSeconds(1),
          Duration.ofDays(7),
          "How long a deleted host Service waits for an unreachable member before its finalizer"
              + " goes.");
  public static final Option<Integer> FEDERATION_PANIC_THRESHOLD =
      Option.integer(
          "federation.panicThreshold",
          FederationOptions.DEFAULT_PANIC_THRESHOLD,
          0,
          100,
          "Below this percentage of reachable member clusters, a federated Service keeps the"
              + " unreachable ones as last seen in its status and DNS names (losing contact is no"
              + " proof of failure); 0: never.");
  public static final Option<Duration> FEDERATION_MAX_HOLD =
      Option.duration(
          "federation.maxHold",
          FederationOptions.DEFAULT_MAX_HOLD,
          Duration.ofSeconds(1),
          Duration.ofDays(7),
          "How long an unreachable member is kept as last seen at most (see panicThreshold).");
  public static final Option<Duration> FEDERATION_AGGREGATE_WAIT =
      Option.duration(
          "federation.aggregateWait",
          FederationOptions.DEFAULT_AGGREGATE_WAIT,
          Duration.ZERO,
          Duration.ofMinutes(5),
          "How long a federated Service's new addresses wait, at most, for the placed members whose"
              + " load balancers are still on their way, so that they reach the host in one write"
              + " (a cold start); 0: never wait.");
  public static final Option<Duration> FEDERATION_LEAVE_GRACE =
      Option.duration(
          "federation.leaveGrace",
          FederationOptions.DEFAULT_LEAVE_GRACE,
          Duration.ZERO,
          Duration.ofDays(7),
          "How long a member whose Secret was deleted or unlabelled stays in the federation; a"
              + " Secret for it that returns within the grace changes nothing.");
  public static final Option<Duration> FEDERATION_CREDENTIAL_EXPIRY_WARNING =
      Option.duration(
          "federation.credentialExpiryWarning",
          FederationOptions.DEFAULT_CREDENTIAL_EXPIRY_WARNING,
          MS,
          Duration.ofDays(365),
          "A member whose token or client certificate expires within this (or has expired) gets a"
              + " MemberCredentialExpiring Warning on its Secret, at most hourly.");
  public static final Option<Duration> FEDERATION_MEMBER_CEILINGS_TIMEOUT =
      Option.duration(
          "federation.memberCeilings.timeout",
          MemberCeilings.DEFAULT_TIMEOUT,
          MS,
          DAY,
          "Most a member Secret's provider may set webhook.timeout and hetzner.requestTimeout to;"
              + " more is lowered to this, with a MemberSettingLowered Warning on the Secret.");
  public static final Option<Duration> FEDERATION_MEMBER_CEILINGS_WAIT =
      Option.duration(
          "federation.memberCeilings.wait",
          MemberCeilings.DEFAULT_WAIT,
          MS,
          DAY,
          "Most a member Secret's provider may set hetzner.actionTimeout and"
              + " hetzner.rateLimitMaxWait to.");
  public static final Option<Integer> FEDERATION_MEMBER_CEILINGS_RETRIES =
      Option.integer(
          "federation.memberCeilings.retries",
          MemberCeilings.DEFAULT_RETRIES,
          0,
          100,
          "Most a member Secret's provider may set webhook.retries to.");
  public static final Option<Duration> FEDERATION_MEMBER_CEILINGS_RETRY_DELAY =
      Option.duration(
          "federation.memberCeilings.retryDelay",
          MemberCeilings.DEFAULT_RETRY_DELAY,
          MS,
          DAY,
          "Most a member Secret's provider may set webhook.retryDelay and"
              + " hetzner.actionPollInterval to.");
  public static final Option<Integer> FEDERATION_MEMBER_CEILINGS_MAX_CONNECTIONS =
      Option.integer(
          "federation.memberCeilings.maxConnections",
          MemberCeilings.DEFAULT_MAX_CONNECTIONS,
          1,
          10_000,
          "Most connections a member Secret's provider may hold (webhook.maxConnections,"
              + " hetzner.maxConnections; their auto 0 included).");
  public static final Option<List<String>> FEDERATION_MEMBER_EGRESS_ALLOW =
      Option.list(
          "federation.memberEgress.allow",
          MemberEgress.DEFAULT_ALLOW,
          EgressPolicy::valid,
          "a list of CIDRs (10.0.0.0/8, fd00::/8)",
          "Addresses a member Secret's provider (webhook.url, hetzner.endpoint) may reach though"
              + " they are loopback, link-local, private or denied; also where it may use http.");
  public static final Option<List<String>> FEDERATION_MEMBER_EGRESS_DENY =
      Option.list(
          "federation.memberEgress.deny",
          MemberEgress.DEFAULT_DENY,
          EgressPolicy::valid,
          "a list of CIDRs (10.0.0.0/8, fd00::/8)",
          "Addresses a member Secret's provider may not reach beyond the loopback, link-local,"
              + " multicast and private ones always refused: the host's Service and Pod ranges"
              + " when they are public.");
  public static final Option<String> PROVIDER =
      Option.choice(
          "provider",
          "local",
          List.of("local", "hetzner", "webhook", "benchmark"),
          "Load balancer provider. local: an in-process TCP/UDP load balancer; hetzner: Hetzner"
              + " Cloud load balancers; webhook: any load balancer behind the webhook contract;"
              + " benchmark: no load balancer, every call completes after benchmark.delay (for"
              + " measuring Pier).");
  public static final Option<List<String>> LOAD_BALANCER_CLASSES =
      Option.list(
          "loadBalancerClasses",
          List.of(),
          l -> true,
          "a list of class names",
          "spec.loadBalancerClass values Pier owns. A Service of any other class is never changed,"
              + " even when it carries the cleanup finalizer.");
  public static final Option<Boolean> SERVE_SERVICES_WITHOUT_CLASS =
      Option.bool(
          "serveServicesWithoutClass",
          true,
          "Serve Services without spec.loadBalancerClass; false where another controller is the"
              + " cluster's default.");
  public static final Option<Integer> RECONCILE_CONCURRENCY =
      Option.integer(
          "reconcile.concurrency",
          ReconcileOptions.DEFAULT_CONCURRENCY,
          1,
          100_000,
          "Keys reconciled at the same time; node-sync-only host updates have"
              + " nodeSync.concurrency of their own.");
  public static final Option<Integer> RECONCILE_CLUSTER_FLOOR =
      Option.integer(
          "reconcile.clusterFloor",
          ReconcileOptions.DEFAULT_CLUSTER_FLOOR,
          1,
          100_000,
          "Runs each cluster (the configured ones and joined members) can always have in flight"
              + " in reconcile.concurrency and in nodeSync.concurrency, whatever the others' runs"
              + " do; lowered to slots / clusters, at least 1, where the floors do not fit.");
  public static final Option<Duration> RECONCILE_MIN_RETRY_DELAY =
      Option.duration(
          "reconcile.minRetryDelay",
          ExponentialBackoff.DEFAULT_MIN,
          MS,
          DAY,
          "First retry delay of a failed key; doubles per failure.");
  public static final Option<Duration> RECONCILE_MAX_RETRY_DELAY =
      Option.duration(
          "reconcile.maxRetryDelay",
          ExponentialBackoff.DEFAULT_MAX,
          MS,
          DAY,
          "Longest retry delay of a failed key.");
  public static final Option<Duration> RECONCILE_VERIFY_PERIOD =
      Option.duration(
          "reconcile.verifyPeriod",
          ReconcileOptions.DEFAULT_VERIFY_PERIOD,
          Duration.ZERO,
          Duration.ofDays(7),
          "One round of verifying every served load balancer, spread evenly, repairing drift"
              + " (0: none).");
  public static final Option<Duration> RECONCILE_RUN_DEADLINE =
      Option.duration(
          "reconcile.runDeadline",
          ReconcileOptions.DEFAULT_RUN_DEADLINE,
          Duration.ofSeconds(1),
          DAY,
          "Longest run of one key; a run past it frees its slot and the key is retried once it"
              + " ends.");
  public static final Option<Duration> RECONCILE_PROVIDER_CALL_DEADLINE =
      Option.duration(
          "reconcile.providerCallDeadline",
          MeteredProvider.DEFAULT_CALL_DEADLINE,
          Duration.ofSeconds(1),
          DAY,
          "Total deadline of one load-balancer provider call; past it the call fails and is"
              + " retried.");
  public static final Option<Double> RECONCILE_RATE_LIMIT =
      Option.decimal(
          "reconcile.rateLimit",
          ReconcileOptions.DEFAULT_RATE_LIMIT,
          0,
          100_000,
          "Retries and ensures not caused by a spec change, a second, per cluster over its"
              + " Services; a first ensure or a spec change is never held back (0: no limit).");
  public static final Option<Integer> RECONCILE_RATE_BURST =
      Option.integer(
          "reconcile.rateBurst",
          ReconcileOptions.DEFAULT_RATE_BURST,
          1,
          1_000_000,
          "How many of the rate-limited runs may go at once before reconcile.rateLimit bites.");
  public static final Option<Duration> RECONCILE_MIN_ENSURE_INTERVAL =
      Option.duration(
          "reconcile.minEnsureInterval",
          ReconcileOptions.DEFAULT_MIN_ENSURE_INTERVAL,
          Duration.ZERO,
          DAY,
          "Shortest time between two full ensures of one Service not caused by a spec change"
              + " (annotations only); a later one is deferred to the interval's end (0: none).");
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
          NodeEligibility.DEFAULT_NAME,
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
  public static final Option<Duration> NODE_SYNC_DEBOUNCE =
      Option.duration(
          "nodeSync.debounce",
          NodeSyncVerticle.DEFAULT_DEBOUNCE,
          Duration.ZERO,
          Duration.ofMinutes(10),
          "Node changes within this window after the first one make one node sync (0: each"
              + " change syncs at once).");
  public static final Option<Integer> NODE_SYNC_CONCURRENCY =
      Option.integer(
          "nodeSync.concurrency",
          ReconcileOptions.DEFAULT_NODE_SYNC_CONCURRENCY,
          1,
          100_000,
          "Node-sync-only host updates in flight at the same time, separately from"
              + " reconcile.concurrency.");
  public static final Option<List<PoolSpec>> LOCAL_POOLS =
      Option.itemList(
          "local.pools",
          LocalProviderOptions.DEFAULT_POOLS,
          LoadBalancerProviders::parsePools,
          l -> !l.isEmpty(),
          LoadBalancerProviders.POOLS_ALLOWED,
          "Addresses the local provider gives to Services: CIDRs or ranges for any namespace, or"
              + " pools {name, addresses, namespaces} that only the listed namespaces may use.");
  public static final Option<Duration> LOCAL_HEALTH_CHECK_INTERVAL =
      Option.duration(
          "local.healthCheck.interval",
          LocalProviderOptions.DEFAULT_HEALTH_CHECK_INTERVAL,
          MS,
          DAY,
          "Backend check period.");
  public static final Option<Duration> LOCAL_HEALTH_CHECK_TIMEOUT =
      Option.duration(
          "local.healthCheck.timeout",
          LocalProviderOptions.DEFAULT_HEALTH_CHECK_TIMEOUT,
          MS,
          DAY,
          "Backend check timeout.");
  public static final Option<Integer> LOCAL_UNHEALTHY_THRESHOLD =
      Option.integer(
          "local.healthCheck.unhealthyThreshold",
          LocalProviderOptions.DEFAULT_UNHEALTHY_THRESHOLD,
          1,
          100,
          "Failed checks before a backend gets no traffic.");
  public static final Option<Integer> LOCAL_HEALTHY_THRESHOLD =
      Option.integer(
          "local.healthCheck.healthyThreshold",
          LocalProviderOptions.DEFAULT_HEALTHY_THRESHOLD,
          1,
          100,
          "Passed checks before a backend gets traffic again.");
  public static final Option<Duration> LOCAL_CONNECT_TIMEOUT =
      Option.duration(
          "local.connectTimeout",
          LocalProviderOptions.DEFAULT_CONNECT_TIMEOUT,
          MS,
          DAY,
          "TCP connect timeout to nodes.");
  public static final Option<Duration> LOCAL_UDP_SESSION_TIMEOUT =
      Option.duration(
          "local.udpSessionTimeout",
          LocalProviderOptions.DEFAULT_UDP_SESSION_TIMEOUT,
          MS,
          DAY,
          "Idle time after which a UDP client's backend session closes.");
  public static final Option<Integer> LOCAL_MAX_CONNECTIONS_PER_LOAD_BALANCER =
      Option.integer(
          "local.maxConnectionsPerLoadBalancer",
          LocalProviderOptions.DEFAULT_MAX_CONNECTIONS_PER_LOAD_BALANCER,
          1,
          10_000_000,
          "Open TCP connections one load balancer takes over all its ports; one more is closed"
              + " on arrival.");
  public static final Option<Integer> LOCAL_MAX_CONNECTIONS =
      Option.integer(
          "local.maxConnections",
          LocalProviderOptions.DEFAULT_MAX_CONNECTIONS,
          1,
          10_000_000,
          "Open TCP connections over all load balancers; one more is closed on arrival.");
  public static final Option<Duration> LOCAL_TCP_IDLE_TIMEOUT =
      Option.duration(
          "local.tcpIdleTimeout",
          LocalProviderOptions.DEFAULT_TCP_IDLE_TIMEOUT,
          Duration.ZERO,
          Duration.ofDays(7),
          "A TCP connection with no byte either way for this long is closed (0: never).");
  public static final Option<Integer> LOCAL_MAX_UDP_SESSIONS_PER_LOAD_BALANCER =
      Option.integer(
          "local.maxUdpSessionsPerLoadBalancer",
          LocalProviderOptions.DEFAULT_MAX_UDP_SESSIONS_PER_LOAD_BALANCER,
          1,
          10_000_000,
          "UDP client sessions one load balancer keeps; a new client at the limit ends the least"
              + " recently used.");
  public static final Option<Integer> LOCAL_MAX_UDP_SESSIONS =
      Option.integer(
          "local.maxUdpSessions",
          LocalProviderOptions.DEFAULT_MAX_UDP_SESSIONS,
          1,
          10_000_000,
          "UDP client sessions over all load balancers; a new client at the limit ends the least"
              + " recently used of its own load balancer, or is refused.");
  public static final Option<Integer> LOCAL_MAX_CONNECTIONS_PER_NAMESPACE =
      Option.integer(
          "local.maxConnectionsPerNamespace",
          LocalProviderOptions.DEFAULT_MAX_CONNECTIONS_PER_NAMESPACE,
          0,
          10_000_000,
          "Open TCP connections of one namespace's load balancers together; one more is closed"
              + " on arrival (0: no budget).");
  public static final Option<Integer> LOCAL_MAX_UDP_SESSIONS_PER_NAMESPACE =
      Option.integer(
          "local.maxUdpSessionsPerNamespace",
          LocalProviderOptions.DEFAULT_MAX_UDP_SESSIONS_PER_NAMESPACE,
          0,
          10_000_000,
          "UDP client sessions of one namespace's load balancers together; a new client at the"
              + " limit ends the least recently used of its own load balancer, or is refused (0:"
              + " no budget).");
  public static final Option<Duration> LOCAL_LIMIT_WARNING_INTERVAL =
      Option.duration(
          "local.limitWarningInterval",
          LocalProviderOptions.DEFAULT_LIMIT_WARNING_INTERVAL,
          MS,
          DAY,
          "At most one LoadBalancerLimitReached Warning event per Service in this period.");
  public static final Option<String> HETZNER_ENDPOINT =
      Option.string(
          "hetzner.endpoint",
          HetznerOptions.DEFAULT_ENDPOINT,
          s -> s.startsWith("http://") || s.startsWith("https://"),
          "an http:// or https:// URL",
          "Hetzner Cloud API base URL.");
  public static final Option<Boolean> HETZNER_ALLOW_HTTP =
      Option.bool(
          "hetzner.allowHttp",
          HetznerOptions.DEFAULT_ALLOW_HTTP,
          "Allow an http:// endpoint on another machine, which sends the API token in clear text.");
  public static final Option<String> HETZNER_TOKEN_FILE =
      Option.string(
          "hetzner.tokenFile",
          "",
          s -> true,
          "a file path",
          "File holding the API token; empty: the variable named by hetzner.tokenEnv.");
  public static final Option<String> HETZNER_TOKEN_ENV =
      Option.string(
          "hetzner.tokenEnv",
          "HCLOUD_TOKEN",
          s -> !s.isBlank(),
          "an environment variable name",
          "Environment variable holding the API token when hetzner.tokenFile is empty.");
  public static final Option<String> HETZNER_LOCATION =
      Option.string(
          "hetzner.location",
          HetznerOptions.DEFAULT_LOCATION,
          s -> true,
          "a location name (fsn1, nbg1, hel1, ...)",
          "Default location of new load balancers; empty: hetzner.networkZone.");
  public static final Option<String> HETZNER_NETWORK_ZONE =
      Option.string(
          "hetzner.networkZone",
          HetznerOptions.DEFAULT_NETWORK_ZONE,
          s -> true,
          "a network zone (eu-central, us-east, ...)",
          "Default network zone of new load balancers when no location is given.");
  public static final Option<String> HETZNER_TYPE =
      Option.string(
          "hetzner.type",
          HetznerOptions.DEFAULT_TYPE,
          s -> !s.isBlank(),
          "a load balancer type name",
          "Default load balancer type.");
  public static final Option<String> HETZNER_ALGORITHM =
      Option.choice(
          "hetzner.algorithm",
          HetznerOptions.DEFAULT_ALGORITHM,
          List.of("round_robin", "least_connections"),
          "Default balancing algorithm.");
  public static final Option<Duration> HETZNER_HEALTH_CHECK_INTERVAL =
      Option.duration(
          "hetzner.healthCheck.interval",
          HetznerOptions.DEFAULT_HEALTH_CHECK_INTERVAL,
          Duration.ofSeconds(1),
          DAY,
          "Default health check interval (whole seconds).");
  public static final Option<Duration> HETZNER_HEALTH_CHECK_TIMEOUT =
      Option.duration(
          "hetzner.healthCheck.timeout",
          HetznerOptions.DEFAULT_HEALTH_CHECK_TIMEOUT,
          Duration.ofSeconds(1),
          DAY,
          "Default health check timeout (whole seconds).");
  public static final Option<Integer> HETZNER_HEALTH_CHECK_RETRIES =
      Option.integer(
          "hetzner.healthCheck.retries",
          HetznerOptions.DEFAULT_HEALTH_CHECK_RETRIES,
          0,
          100,
          "Default health check retries.");
  public static final Option<Boolean> HETZNER_USE_PRIVATE_IP =
      Option.bool(
          "hetzner.usePrivateIp",
          HetznerOptions.DEFAULT_USE_PRIVATE_IP,
          "Send traffic to the servers' private network addresses by default.");
  public static final Option<Duration> HETZNER_REQUEST_TIMEOUT =
      Option.duration(
          "hetzner.requestTimeout",
          HetznerOptions.DEFAULT_REQUEST_TIMEOUT,
          MS,
          DAY,
          "Timeout of one API call.");
  public static final Option<Integer> HETZNER_MAX_CONNECTIONS =
      Option.integer(
          "hetzner.maxConnections",
          HetznerOptions.DEFAULT_MAX_CONNECTIONS,
          0,
          10_000,
          "Most connections to the API, so most calls in flight at once (0: auto,"
              + " reconcile.concurrency + nodeSync.concurrency).");
  public static final Option<Duration> HETZNER_ACTION_POLL_INTERVAL =
      Option.duration(
          "hetzner.actionPollInterval",
          HetznerOptions.DEFAULT_ACTION_POLL_INTERVAL,
          MS,
          DAY,
          "How often a running Action is polled.");
  public static final Option<Duration> HETZNER_ACTION_TIMEOUT =
      Option.duration(
          "hetzner.actionTimeout",
          HetznerOptions.DEFAULT_ACTION_TIMEOUT,
          MS,
          DAY,
          "How long an Action may run before the step is retried.");
  public static final Option<Duration> HETZNER_RATE_LIMIT_MAX_WAIT =
      Option.duration(
          "hetzner.rateLimitMaxWait",
          HetznerOptions.DEFAULT_RATE_LIMIT_MAX_WAIT,
          Duration.ZERO,
          DAY,
          "Longest wait for the rate limit inside one call; longer waits reschedule the Service.");
  public static final Option<Boolean> HETZNER_ORPHAN_CLEANUP =
      Option.bool(
          "hetzner.orphanCleanup",
          HetznerOptions.DEFAULT_ORPHAN_CLEANUP,
          "Alias of orphans.cleanup: true here turns the orphan sweep on as well (load balancers"
              + " labelled as this cluster's, pier.dev/cluster-uid, whose Service no longer exists).");
  public static final Option<Duration> HETZNER_ORPHAN_CLEANUP_PERIOD =
      Option.duration(
          "hetzner.orphanCleanupPeriod",
          Duration.ofMinutes(10),
          Duration.ofSeconds(1),
          DAY,
          "Alias of orphans.period, used only when hetzner.orphanCleanup is true and"
              + " orphans.cleanup is false.");
  public static final Option<Boolean> HETZNER_ADOPT_BY_NAME =
      Option.bool(
          "hetzner.adoptByName",
          HetznerOptions.DEFAULT_ADOPT_BY_NAME,
          "Let a Service take over an existing load balancer without a hcloud-ccm/service-uid"
              + " label by naming it (load-balancer.hetzner.cloud/name).");
  public static final Option<String> WEBHOOK_URL =
      Option.string(
          "webhook.url",
          "",
          s -> s.isEmpty() || s.startsWith("http://") || s.startsWith("https://"),
          "an http:// or https:// URL",
          "Base URL of the webhook provider (required with provider: webhook).");
  public static final Option<Duration> WEBHOOK_TIMEOUT =
      Option.duration(
          "webhook.timeout",
          WebhookOptions.DEFAULT_TIMEOUT,
          MS,
          DAY,
          "Timeout of one webhook call, from waiting for a connection to the last byte of the answer.");
  public static final Option<Integer> WEBHOOK_RETRIES =
      Option.integer(
          "webhook.retries",
          WebhookOptions.DEFAULT_RETRIES,
          0,
          100,
          "Retries of a call that failed with a network error, a timeout or a 5xx answer.");
  public static final Option<Duration> WEBHOOK_RETRY_DELAY =
      Option.duration(
          "webhook.retryDelay",
          WebhookOptions.DEFAULT_RETRY_DELAY,
          MS,
          DAY,
          "First delay between retries; doubles per retry.");
  public static final Option<Integer> WEBHOOK_MAX_CONNECTIONS =
      Option.integer(
          "webhook.maxConnections",
          WebhookOptions.DEFAULT_MAX_CONNECTIONS,
          0,
          10_000,
          "Most connections to the webhook, so most calls in flight at once (0: auto,"
              + " reconcile.concurrency + nodeSync.concurrency).");
  public static final Option<String> WEBHOOK_TOKEN_FILE =
      Option.string(
          "webhook.tokenFile",
          "",
          s -> true,
          "a file path",
          "File holding a bearer token sent with every call; empty: none.");
  public static final Option<Boolean> WEBHOOK_ALLOW_HTTP =
      Option.bool(
          "webhook.allowHttp",
          WebhookOptions.DEFAULT_ALLOW_HTTP,
          "Allow an http:// URL on another machine while webhook.tokenFile is set, which sends the"
              + " token in clear text.");
  public static final Option<String> WEBHOOK_TLS_CA_FILE =
      Option.string(
          "webhook.tls.caFile",
          "",
          s -> true,
          "a PEM file path",
          "CA certificates trusted for an https:// webhook; empty: the JVM's.");
  public static final Option<String> WEBHOOK_TLS_CERT_FILE =
      Option.string(
          "webhook.tls.certFile",
          "",
          s -> true,
          "a PEM file path",
          "Client certificate for mutual TLS; empty: none.");
  public static final Option<String> WEBHOOK_TLS_KEY_FILE =
      Option.string(
          "webhook.tls.keyFile",
          "",
          s -> true,
          "a PEM file path",
          "Private key of webhook.tls.certFile.");
  public static final Option<Boolean> ORPHANS_CLEANUP =
      Option.bool(
          "orphans.cleanup",
          false,
          "Delete load balancers the provider owns for this cluster (local, hetzner, webhook with"
              + " list) whose Service no longer exists; at start, then every orphans.period.");
  public static final Option<Duration> ORPHANS_PERIOD =
      Option.duration(
          "orphans.period",
          Duration.ofMinutes(10),
          Duration.ofSeconds(1),
          DAY,
          "How often orphans are looked for (the first time right after start).");
  public static final Option<Integer> DELETION_GUARD_MIN_DELETIONS =
      Option.integer(
          "deletionGuard.minDeletions",
          DeletionGuard.DEFAULT_MIN_DELETIONS,
          0,
          1_000_000,
          "Deletions Pier starts on its own (orphan sweeps) that always go through per window.");
  public static final Option<Integer> DELETION_GUARD_MAX_PERCENT =
      Option.integer(
          "deletionGuard.maxPercent",
          DeletionGuard.DEFAULT_MAX_PERCENT,
          0,
          100,
          "Beyond minDeletions, the percentage of the load balancers known at the window's start"
              + " that may be deleted per window; more are held.");
  public static final Option<Duration> DELETION_GUARD_WINDOW =
      Option.duration(
          "deletionGuard.window",
          DeletionGuard.DEFAULT_WINDOW,
          Duration.ofSeconds(1),
          DAY,
          "The sliding window of the deletion guard.");
  public static final Option<Boolean> DELETION_GUARD_CONFIRM =
      Option.bool(
          "deletionGuard.confirm",
          false,
          "Let held deletions go: the operator checked them. Deletions users ask for (a deleted"
              + " Service, a type change) are never held.");
  public static final Option<Boolean> LEADER_ELECTION_ENABLED =
      Option.bool(
          "leaderElection.enabled",
          false,
          "Campaign for a Lease and reconcile only while holding it (run several replicas).");
  public static final Option<String> LEADER_ELECTION_LEASE_NAME =
      Option.string(
          "leaderElection.leaseName",
          LeaderElectionOptions.DEFAULT_LEASE_NAME,
          s -> s.length() <= 253 && DNS_LABEL.matcher(s).matches(),
          "a DNS label (lower case letters, digits, '-')",
          "Name of the coordination.k8s.io Lease.");
  public static final Option<String> LEADER_ELECTION_NAMESPACE =
      Option.string(
          "leaderElection.namespace",
          "",
          s -> s.isEmpty() || (s.length() <= 63 && DNS_LABEL.matcher(s).matches()),
          "empty or a namespace name",
          "Namespace of the Lease; empty: the client's namespace (in a pod, its own).");
  public static final Option<Duration> LEADER_ELECTION_LEASE_DURATION =
      Option.duration(
          "leaderElection.leaseDuration",
          LeaderElectionOptions.DEFAULT_LEASE_DURATION,
          MS,
          DAY,
          "How long a standby waits after the leader's last renewal before taking over.");
  public static final Option<Duration> LEADER_ELECTION_RENEW_DEADLINE =
      Option.duration(
          "leaderElection.renewDeadline",
          LeaderElectionOptions.DEFAULT_RENEW_DEADLINE,
          MS,
          DAY,
          "How long the leader tries to renew before it stops reconciling (and campaigns again).");
  public static final Option<Duration> LEADER_ELECTION_RETRY_PERIOD =
      Option.duration(
          "leaderElection.retryPeriod",
          LeaderElectionOptions.DEFAULT_RETRY_PERIOD,
          MS,
          DAY,
          "Time between attempts to acquire or renew the Lease.");
  public static final Option<Boolean> SCALE_OUT_ENABLED =
      Option.bool(
          "scaleOut.enabled",
          false,
          "Share the work among replicas over a clustered event bus (Infinispan on JGroups): each owns the"
              + " shards whose Leases it holds. Replaces leaderElection (docs/scale-out.md).");
  public static final Option<Integer> SCALE_OUT_SHARDS =
      Option.integer(
          "scaleOut.shards",
          ScaleOutOptions.DEFAULT_SHARDS,
          1,
          1024,
          "Shards the Services' keys hash into; one Lease each. Every replica must agree.");
  public static final Option<String> SCALE_OUT_CLUSTER_NAME =
      Option.string(
          "scaleOut.clusterName",
          ScaleOutOptions.DEFAULT_CLUSTER_NAME,
          s -> !s.isBlank(),
          "a name",
          "Name of the replicas' cluster: replicas join only a cluster of this name.");
  public static final Option<String> SCALE_OUT_HOST =
      Option.string(
          "scaleOut.host",
          "",
          s -> true,
          "an address or empty",
          "Address the replica binds for membership and the event bus; empty: the first"
              + " non-loopback address (in a pod, its IP).");
  public static final Option<Integer> SCALE_OUT_PORT =
      Option.integer(
          "scaleOut.port",
          ScaleOutOptions.DEFAULT_PORT,
          1,
          65535,
          "Membership port (JGroups over mutual TLS).");
  public static final Option<List<String>> SCALE_OUT_MEMBERS =
      Option.list(
          "scaleOut.members",
          List.of(),
          l -> l.stream().allMatch(m -> m.matches("[^\\s:,]+(:\\d{1,5})?")),
          "host or host:port items",
          "host:port of replicas to join (a static member list, e.g. on one machine);"
              + " empty: scaleOut.kubernetesService.");
  public static final Option<String> SCALE_OUT_KUBERNETES_SERVICE =
      Option.string(
          "scaleOut.kubernetesService",
          "",
          s -> s.isEmpty() || (s.length() <= 63 && DNS_LABEL.matcher(s).matches()),
          "empty or a Service name",
          "Headless Service (in leaderElection.namespace) whose DNS name lists the replicas:"
              + " discovery through the cluster's DNS.");
  public static final Option<String> SCALE_OUT_CLUSTER_DOMAIN =
      Option.string(
          "scaleOut.clusterDomain",
          ScaleOutOptions.DEFAULT_CLUSTER_DOMAIN,
          s ->
              s.length() <= 253
                  && s.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"),
          "a DNS domain",
          "The cluster's DNS domain: scaleOut.kubernetesService is looked up as"
              + " <service>.<namespace>.svc.<domain>.");
  public static final Option<Duration> SCALE_OUT_HEARTBEAT_TIMEOUT =
      Option.duration(
          "scaleOut.heartbeatTimeout",
          ScaleOutOptions.DEFAULT_HEARTBEAT_TIMEOUT,
          Duration.ofSeconds(2),
          Duration.ofMinutes(10),
          "A replica silent this long leaves the member list and its shards move.");
  public static final Option<Duration> SCALE_OUT_LEASE_DURATION =
      Option.duration(
          "scaleOut.leaseDuration",
          ScaleOutOptions.DEFAULT_LEASE_DURATION,
          Duration.ofSeconds(1),
          DAY,
          "A shard's Lease unchanged this long (as the new owner saw it) may be taken.");
  public static final Option<Duration> SCALE_OUT_RENEW_DEADLINE =
      Option.duration(
          "scaleOut.renewDeadline",
          ScaleOutOptions.DEFAULT_RENEW_DEADLINE,
          MS,
          DAY,
          "A replica stops a shard's work when it could not renew its Lease for this long.");
  public static final Option<Duration> SCALE_OUT_RETRY_PERIOD =
      Option.duration(
          "scaleOut.retryPeriod",
          ScaleOutOptions.DEFAULT_RETRY_PERIOD,
          MS,
          DAY,
          "Time between renewals of held shard Leases and attempts to take wanted ones.");
  public static final Option<Integer> SCALE_OUT_EVENT_BUS_PORT =
      Option.integer(
          "scaleOut.eventBusPort",
          ScaleOutOptions.DEFAULT_EVENT_BUS_PORT,
          0,
          65535,
          "Port of the clustered event bus (mutual TLS), fixed so a NetworkPolicy can name it;"
              + " 0: the system's choice.");
  public static final Option<String> SCALE_OUT_TLS_CERT_FILE =
      Option.string(
          "scaleOut.tls.certFile",
          "",
          s -> true,
          "a PEM file path",
          "The replicas' certificate for the event bus's mutual TLS (pier scale-out-certs writes"
              + " one); required with scaleOut.enabled unless scaleOut.tls.insecure.");
  public static final Option<String> SCALE_OUT_TLS_KEY_FILE =
      Option.string(
          "scaleOut.tls.keyFile",
          "",
          s -> true,
          "a PEM file path",
          "The private key of scaleOut.tls.certFile (PKCS#8, PKCS#1 or SEC 1 PEM).");
  public static final Option<String> SCALE_OUT_TLS_CA_FILE =
      Option.string(
          "scaleOut.tls.caFile",
          "",
          s -> true,
          "a PEM file path",
          "The CA that signed the replicas' certificate: only a peer with a certificate it"
              + " signed speaks on the event bus.");
  public static final Option<Boolean> SCALE_OUT_TLS_INSECURE =
      Option.bool(
          "scaleOut.tls.insecure",
          false,
          "Run the event bus without TLS (development only: anyone who reaches the replicas"
              + " can read and send on it).");
  public static final Option<Duration> BENCHMARK_DELAY =
      Option.duration(
          "benchmark.delay",
          BenchmarkProviderOptions.DEFAULT_DELAY,
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
  public static final Option<String> ADMIN_METRICS_AUTH =
      Option.choice(
          "admin.metricsAuth",
          MetricsAuth.DEFAULT_MODE,
          List.of(MetricsAuth.NONE, MetricsAuth.KUBERNETES),
          "Who may read /metrics. none: anyone who reaches it; kubernetes: a bearer token the API"
              + " server accepts (TokenReview) whose user may get the non-resource URL /metrics"
              + " (SubjectAccessReview; k8s/rbac-metrics-auth.yaml), answers cached 10s."
              + " /healthz and /readyz stay open. Needs admin.tls (or admin.tls.insecure).");
  public static final Option<List<String>> ADMIN_METRICS_AUDIENCES =
      Option.list(
          "admin.metricsAudiences",
          MetricsAuth.DEFAULT_AUDIENCES,
          l -> l.stream().noneMatch(String::isBlank),
          "a list of audiences",
          "Audiences the TokenReview of admin.metricsAuth: kubernetes asks for; a token must be"
              + " meant for one of them (e.g. a projected ServiceAccount token with audience"
              + " pier). Empty: the API server's own audiences.");
  public static final Option<String> ADMIN_TLS_CERT_FILE =
      Option.string(
          "admin.tls.certFile",
          "",
          s -> true,
          "a PEM file path",
          "Certificate (chain) the admin endpoints are served with over HTTPS; set with"
              + " admin.tls.keyFile, both read again every minute. Empty: plain HTTP.");
  public static final Option<String> ADMIN_TLS_KEY_FILE =
      Option.string(
          "admin.tls.keyFile",
          "",
          s -> true,
          "a PEM file path",
          "The private key of admin.tls.certFile (PKCS#8, PKCS#1 or SEC 1 PEM).");
  public static final Option<Boolean> ADMIN_TLS_INSECURE =
      Option.bool(
          "admin.tls.insecure",
          false,
          "Serve admin.metricsAuth: kubernetes over plain HTTP anyway (the scrapers' bearer"
              + " tokens cross the network in clear; a private network only).");
  public static final Option<Duration> STARTUP_TIMEOUT =
      Option.duration(
          "startup.timeout",
          Duration.ofMinutes(5),
          Duration.ofSeconds(1),
          DAY,
          "How long Pier may take to start (identities read, informers synced, workers running);"
              + " after it, Pier logs what it was still waiting for and exits non-zero.");
  public static final Option<String> LOG_FORMAT =
      Option.choice("log.format", "text", List.of("text", "json"), "Log line format.");
  public static final Option<Boolean> CONFIG_STRICT_ENVIRONMENT =
      Option.bool(
          "config.strictEnvironment",
          false,
          "A PIER_* environment variable that matches no option (nor a configured cluster's field,"
              + " nor a variable Pier reads, nor a Kubernetes service link) stops Pier at startup;"
              + " false: a warning.");

  public static final Option<Boolean> DNS_ENABLED =
      Option.bool("dns.enabled", false, "Publish DNS names for load-balanced Services.");
  public static final Option<String> DNS_PROVIDER =
      Option.choice(
          "dns.provider",
          "powerdns",
          List.of("powerdns", "externaldns"),
          "DNS provider. powerdns: the PowerDNS Authoritative HTTP API; externaldns: an"
              + " external-dns webhook provider.");
  public static final Option<Boolean> DNS_OPT_IN =
      Option.bool(
          "dns.optIn",
          false,
          "true: only Services annotated pier.dev/dns: \"true\" get names; false: all but those"
              + " annotated \"false\".");
  public static final Option<String> DNS_FEDERATION =
      Option.string(
          "dns.federation",
          DnsOptions.DEFAULT_FEDERATION,
          s -> s.length() <= 63 && DNS_LABEL.matcher(s).matches(),
          "a DNS label (lower case letters, digits, '-')",
          "Federation name in <svc>.<ns>.<federation>.svc.<suffix>; unset: federation.name.");
  public static final Option<String> DNS_SUFFIX =
      Option.string(
          "dns.suffix",
          "",
          PierOptions::emptyOrDomain,
          "a domain name",
          "Name suffix; empty: the zone name.");
  public static final Option<String> DNS_ZONE_NAME =
      Option.string(
          "dns.zone.name", "", PierOptions::emptyOrDomain, "a domain name", "Zone to publish in.");
  public static final Option<String> DNS_ZONE_ID =
      Option.string(
          "dns.zone.id", "", s -> true, "a zone id", "Zone id, when the name is not unique.");
  public static final Option<Integer> DNS_TTL =
      Option.integer(
          "dns.ttl", DnsOptions.DEFAULT_TTL, 1, 604_800, "TTL of every record, in seconds.");
  public static final Option<Integer> DNS_MIN_TTL =
      Option.integer(
          "dns.minTtl",
          DnsOptions.DEFAULT_MIN_TTL,
          0,
          604_800,
          "Lowest TTL a Service's pier.dev/dns-ttl annotation may ask for, in seconds.");
  public static final Option<Integer> DNS_MAX_TTL =
      Option.integer(
          "dns.maxTtl",
          DnsOptions.DEFAULT_MAX_TTL,
          0,
          604_800,
          "Highest TTL a Service's pier.dev/dns-ttl annotation may ask for, in seconds.");
  public static final Option<Integer> DNS_WEIGHTED_TTL =
      Option.integer(
          "dns.weightedTtl",
          DnsOptions.DEFAULT_WEIGHTED_TTL,
          0,
          3600,
          "TTL of a weighted global name (pier.dev/dns-strategy: weighted), in seconds: short, so"
              + " that resolvers cannot undo the weights.");
  public static final Option<List<String>> DNS_VIEWS =
      Option.list(
          "dns.views",
          List.of(),
          l -> l.stream().allMatch(PierOptions::dnsView),
          "a list of <region>=<CIDR> (eu=10.1.0.0/16)",
          "Client networks by region for pier.dev/dns-strategy: views; one item per network.");
  public static final Option<Duration> DNS_PROBE_PERIOD =
      Option.duration(
          "dns.probe.period",
          DataPathOptions.DEFAULT_PERIOD,
          Duration.ofMillis(100),
          Duration.ofHours(1),
          "How often Pier probes each load-balancer address of a federated Service annotated"
              + " pier.dev/dns-probe itself.");
  public static final Option<Duration> DNS_PROBE_TIMEOUT =
      Option.duration(
          "dns.probe.timeout",
          DataPathOptions.DEFAULT_TIMEOUT,
          Duration.ofMillis(10),
          Duration.ofMinutes(1),
          "The most one such probe takes (connecting, and for http the status line and headers).");
  public static final Option<Integer> DNS_PROBE_FAILURE_THRESHOLD =
      Option.integer(
          "dns.probe.failureThreshold",
          DataPathOptions.DEFAULT_FAILURE_THRESHOLD,
          1,
          100,
          "Failed probes in a row after which an address leaves the Service's DNS names (unless"
              + " fewer than federation.panicThreshold of its addresses answer).");
  public static final Option<Integer> DNS_PROBE_SUCCESS_THRESHOLD =
      Option.integer(
          "dns.probe.successThreshold",
          DataPathOptions.DEFAULT_SUCCESS_THRESHOLD,
          1,
          100,
          "Passed probes in a row after which an address that left returns to the DNS names.");
  public static final Option<String> DNS_OWNER_ID =
      Option.string(
          "dns.ownerId",
          DnsOptions.DEFAULT_OWNER_ID,
          s ->
              !s.isBlank()
                  && s.length() <= 100
                  && s.chars().allMatch(c -> c > 32 && c < 127 && c != ';'),
          "a non-empty printable ASCII word without spaces or ';'",
          "Owner id marked on Pier's records with the cluster's uid; the same for all replicas.");
  public static final Option<List<String>> DNS_DOMAIN_FILTER =
      Option.list(
          "dns.domainFilter",
          List.of(),
          l -> l.stream().allMatch(PierOptions::emptyOrDomain),
          "a list of domain names",
          "Domains names are published in; empty: the whole zone.");
  public static final Option<String> DNS_TOPOLOGY_REGION =
      Option.string(
          "dns.topology.region",
          "",
          s -> s.isEmpty() || DNS_LABEL.matcher(s).matches(),
          "a DNS label",
          "Region of the cluster; empty: from node labels.");
  public static final Option<List<String>> DNS_TOPOLOGY_ZONES =
      Option.list(
          "dns.topology.zones",
          List.of(),
          l -> l.stream().allMatch(s -> DNS_LABEL.matcher(s).matches()),
          "a list of DNS labels",
          "Zones of the cluster; empty: from node labels.");
  public static final Option<String> DNS_CLUSTER =
      Option.string(
          "dns.cluster",
          "",
          s -> s.isEmpty() || (s.length() <= 63 && DNS_LABEL.matcher(s).matches()),
          "empty or the name of a configured cluster",
          "The one cluster whose Services that are not federated get names (federated Services get"
              + " theirs from every member); empty: the federation's host, else the first cluster.");
  public static final Option<Duration> DNS_CALL_DEADLINE =
      Option.duration(
          "dns.callDeadline",
          DeadlineDnsProvider.DEFAULT_CALL_DEADLINE,
          Duration.ofSeconds(1),
          DAY,
          "Total deadline of one DNS provider call; past it the call fails and is retried.");
  public static final Option<String> DNS_POWERDNS_URL =
      Option.string(
          "dns.powerdns.url",
          PowerDnsOptions.DEFAULT_URL,
          s -> s.matches("https?://[^/\\s]+/?"),
          "an http:// or https:// URL without a path",
          "PowerDNS webserver URL.");
  public static final Option<Boolean> DNS_POWERDNS_ALLOW_HTTP =
      Option.bool(
          "dns.powerdns.allowHttp",
          PowerDnsOptions.DEFAULT_ALLOW_HTTP,
          "Allow an http:// URL on another machine, which sends the API key in clear text.");
  public static final Option<String> DNS_POWERDNS_SERVER_ID =
      Option.string(
          "dns.powerdns.serverId",
          PowerDnsOptions.DEFAULT_SERVER_ID,
          s -> !s.isBlank(),
          "a server id",
          "PowerDNS server id.");
  public static final Option<String> DNS_POWERDNS_API_KEY_FILE =
      Option.string(
          "dns.powerdns.apiKeyFile",
          "",
          s -> true,
          "a file path",
          "File holding the API key; empty: the variable named by apiKeyEnv.");
  public static final Option<String> DNS_POWERDNS_API_KEY_ENV =
      Option.string(
          "dns.powerdns.apiKeyEnv",
          "PDNS_API_KEY",
          s -> s.matches("[A-Za-z_][A-Za-z0-9_]*"),
          "an environment variable name",
          "Environment variable holding the API key.");
  public static final Option<Duration> DNS_POWERDNS_TIMEOUT =
      Option.duration(
          "dns.powerdns.timeout",
          PowerDnsOptions.DEFAULT_TIMEOUT,
          MS,
          Duration.ofMinutes(10),
          "API call timeout.");
  public static final Option<Integer> DNS_POWERDNS_MAX_CONNECTIONS =
      Option.integer(
          "dns.powerdns.maxConnections",
          PowerDnsOptions.DEFAULT_MAX_CONNECTIONS,
          0,
          10_000,
          "Most connections to the API, so most calls in flight at once (0: auto, 2 x"
              + " reconcile.concurrency).");
  public static final Option<String> DNS_EXTERNAL_DNS_URL =
      Option.string(
          "dns.externalDns.url",
          ExternalDnsOptions.DEFAULT_URL,
          s -> s.matches("https?://[^/\\s]+(/[^\\s]*)?"),
          "an http:// or https:// URL",
          "external-dns webhook provider URL.");
  public static final Option<Duration> DNS_EXTERNAL_DNS_TIMEOUT =
      Option.duration(
          "dns.externalDns.timeout",
          ExternalDnsOptions.DEFAULT_TIMEOUT,
          MS,
          Duration.ofMinutes(10),
          "Total timeout of one webhook request.");
  public static final Option<Integer> DNS_EXTERNAL_DNS_MAX_CONNECTIONS =
      Option.integer(
          "dns.externalDns.maxConnections",
          ExternalDnsOptions.DEFAULT_MAX_CONNECTIONS,
          0,
          10_000,
          "Most connections to the webhook provider, so most calls in flight at once (0: auto,"
              + " 2 x reconcile.concurrency).");
  public static final Option<String> DNS_EXTERNAL_DNS_TXT_PREFIX =
      Option.string(
          "dns.externalDns.txtPrefix",
          ExternalDnsOptions.DEFAULT_TXT_PREFIX,
          s -> s.matches("[a-z0-9][-a-z0-9]{0,30}"),
          "lower case letters, digits and '-', starting with a letter or digit, at most 31",
          "Prefix of the TXT registry records: <prefix><type>-<name>.");
  public static final Option<Integer> HTTP_MAX_ANSWER_BYTES =
      Option.integer(
          "http.maxAnswerBytes",
          AnswerLimit.DEFAULT_BYTES,
          1024,
          1 << 30,
          "Most bytes Pier reads of one answer of a load-balancer provider or DNS service (a call"
              + " of the webhook or Hetzner API, a DNS write, a zone's settings); a longer answer"
              + " fails its call and its connection is closed.");
  public static final Option<Integer> HTTP_MAX_INVENTORY_ANSWER_BYTES =
      Option.integer(
          "http.maxInventoryAnswerBytes",
          AnswerLimit.DEFAULT_INVENTORY_BYTES,
          1024,
          1 << 30,
          "Most bytes Pier reads of a listing: a DNS zone's records (PowerDNS, external-dns GET"
              + " /records), the webhook's /list, a page of Hetzner's load balancers. The default"
              + " holds a zone of 10,000 Services (about 8 MB in PowerDNS) with room to spare.");

  public static final List<Option<?>> ALL =
      List.of(
          CLUSTER_NAME,
          CLUSTER_KUBECONFIG,
          CLUSTER_CONTEXT,
          CLUSTERS,
          FEDERATION_NAME,
          FEDERATION_SECRET_NAMESPACE,
          FEDERATION_NAMESPACES,
          FEDERATION_NAMESPACE_OPT_IN,
          FEDERATION_MEMBER_SCOPE,
          FEDERATION_UNREADY_CLUSTERS,
          FEDERATION_HEALTH_PERIOD,
          FEDERATION_HEALTH_TIMEOUT,
          FEDERATION_HEALTH_FAILURE_THRESHOLD,
          FEDERATION_HEALTH_SUCCESS_THRESHOLD,
          FEDERATION_DELETE_TIMEOUT,
          FEDERATION_PANIC_THRESHOLD,
          FEDERATION_MAX_HOLD,
          FEDERATION_AGGREGATE_WAIT,
          FEDERATION_LEAVE_GRACE,
          FEDERATION_CREDENTIAL_EXPIRY_WARNING,
          FEDERATION_MEMBER_CEILINGS_TIMEOUT,
          FEDERATION_MEMBER_CEILINGS_WAIT,
          FEDERATION_MEMBER_CEILINGS_RETRIES,
          FEDERATION_MEMBER_CEILINGS_RETRY_DELAY,
          FEDERATION_MEMBER_CEILINGS_MAX_CONNECTIONS,
          FEDERATION_MEMBER_EGRESS_ALLOW,
          FEDERATION_MEMBER_EGRESS_DENY,
          PROVIDER,
          LOAD_BALANCER_CLASSES,
          SERVE_SERVICES_WITHOUT_CLASS,
          RECONCILE_CONCURRENCY,
          RECONCILE_CLUSTER_FLOOR,
          RECONCILE_MIN_RETRY_DELAY,
          RECONCILE_MAX_RETRY_DELAY,
          RECONCILE_VERIFY_PERIOD,
          RECONCILE_RUN_DEADLINE,
          RECONCILE_PROVIDER_CALL_DEADLINE,
          RECONCILE_RATE_LIMIT,
          RECONCILE_RATE_BURST,
          RECONCILE_MIN_ENSURE_INTERVAL,
          WATCH_SERVICE_RESYNC,
          NODES_PREDICATES,
          NODE_SYNC_PERIOD,
          NODE_SYNC_DEBOUNCE,
          NODE_SYNC_CONCURRENCY,
          LOCAL_POOLS,
          LOCAL_HEALTH_CHECK_INTERVAL,
          LOCAL_HEALTH_CHECK_TIMEOUT,
          LOCAL_UNHEALTHY_THRESHOLD,
          LOCAL_HEALTHY_THRESHOLD,
          LOCAL_CONNECT_TIMEOUT,
          LOCAL_UDP_SESSION_TIMEOUT,
          LOCAL_MAX_CONNECTIONS_PER_LOAD_BALANCER,
          LOCAL_MAX_CONNECTIONS,
          LOCAL_TCP_IDLE_TIMEOUT,
          LOCAL_MAX_UDP_SESSIONS_PER_LOAD_BALANCER,
          LOCAL_MAX_UDP_SESSIONS,
          LOCAL_MAX_CONNECTIONS_PER_NAMESPACE,
          LOCAL_MAX_UDP_SESSIONS_PER_NAMESPACE,
          LOCAL_LIMIT_WARNING_INTERVAL,
          HETZNER_ENDPOINT,
          HETZNER_ALLOW_HTTP,
          HETZNER_TOKEN_FILE,
          HETZNER_TOKEN_ENV,
          HETZNER_LOCATION,
          HETZNER_NETWORK_ZONE,
          HETZNER_TYPE,
          HETZNER_ALGORITHM,
          HETZNER_HEALTH_CHECK_INTERVAL,
          HETZNER_HEALTH_CHECK_TIMEOUT,
          HETZNER_HEALTH_CHECK_RETRIES,
          HETZNER_USE_PRIVATE_IP,
          HETZNER_REQUEST_TIMEOUT,
          HETZNER_MAX_CONNECTIONS,
          HETZNER_ACTION_POLL_INTERVAL,
          HETZNER_ACTION_TIMEOUT,
          HETZNER_RATE_LIMIT_MAX_WAIT,
          HETZNER_ORPHAN_CLEANUP,
          HETZNER_ORPHAN_CLEANUP_PERIOD,
          HETZNER_ADOPT_BY_NAME,
          WEBHOOK_URL,
          WEBHOOK_TIMEOUT,
          WEBHOOK_RETRIES,
          WEBHOOK_RETRY_DELAY,
          WEBHOOK_MAX_CONNECTIONS,
          WEBHOOK_TOKEN_FILE,
          WEBHOOK_ALLOW_HTTP,
          WEBHOOK_TLS_CA_FILE,
          WEBHOOK_TLS_CERT_FILE,
          WEBHOOK_TLS_KEY_FILE,
          ORPHANS_CLEANUP,
          ORPHANS_PERIOD,
          DELETION_GUARD_MIN_DELETIONS,
          DELETION_GUARD_MAX_PERCENT,
          DELETION_GUARD_WINDOW,
          DELETION_GUARD_CONFIRM,
          LEADER_ELECTION_ENABLED,
          LEADER_ELECTION_LEASE_NAME,
          LEADER_ELECTION_NAMESPACE,
          LEADER_ELECTION_LEASE_DURATION,
          LEADER_ELECTION_RENEW_DEADLINE,
          LEADER_ELECTION_RETRY_PERIOD,
          SCALE_OUT_ENABLED,
          SCALE_OUT_SHARDS,
          SCALE_OUT_CLUSTER_NAME,
          SCALE_OUT_HOST,
          SCALE_OUT_PORT,
          SCALE_OUT_MEMBERS,
          SCALE_OUT_KUBERNETES_SERVICE,
          SCALE_OUT_CLUSTER_DOMAIN,
          SCALE_OUT_HEARTBEAT_TIMEOUT,
          SCALE_OUT_LEASE_DURATION,
          SCALE_OUT_RENEW_DEADLINE,
          SCALE_OUT_RETRY_PERIOD,
          SCALE_OUT_EVENT_BUS_PORT,
          SCALE_OUT_TLS_CERT_FILE,
          SCALE_OUT_TLS_KEY_FILE,
          SCALE_OUT_TLS_CA_FILE,
          SCALE_OUT_TLS_INSECURE,
          BENCHMARK_DELAY,
          ADMIN_HOST,
          ADMIN_PORT,
          ADMIN_METRICS_AUTH,
          ADMIN_METRICS_AUDIENCES,
          ADMIN_TLS_CERT_FILE,
          ADMIN_TLS_KEY_FILE,
          ADMIN_TLS_INSECURE,
          STARTUP_TIMEOUT,
          LOG_FORMAT,
          CONFIG_STRICT_ENVIRONMENT,
          DNS_ENABLED,
          DNS_PROVIDER,
          DNS_OPT_IN,
          DNS_FEDERATION,
          DNS_SUFFIX,
          DNS_ZONE_NAME,
          DNS_ZONE_ID,
          DNS_TTL,
          DNS_MIN_TTL,
          DNS_MAX_TTL,
          DNS_WEIGHTED_TTL,
          DNS_VIEWS,
          DNS_PROBE_PERIOD,
          DNS_PROBE_TIMEOUT,
          DNS_PROBE_FAILURE_THRESHOLD,
          DNS_PROBE_SUCCESS_THRESHOLD,
          DNS_OWNER_ID,
          DNS_DOMAIN_FILTER,
          DNS_TOPOLOGY_REGION,
          DNS_TOPOLOGY_ZONES,
          DNS_CLUSTER,
          DNS_CALL_DEADLINE,
          DNS_POWERDNS_URL,
          DNS_POWERDNS_ALLOW_HTTP,
          DNS_POWERDNS_SERVER_ID,
          DNS_POWERDNS_API_KEY_FILE,
          DNS_POWERDNS_API_KEY_ENV,
          DNS_POWERDNS_TIMEOUT,
          DNS_POWERDNS_MAX_CONNECTIONS,
          DNS_EXTERNAL_DNS_URL,
          DNS_EXTERNAL_DNS_TIMEOUT,
          DNS_EXTERNAL_DNS_MAX_CONNECTIONS,
          DNS_EXTERNAL_DNS_TXT_PREFIX,
          HTTP_MAX_ANSWER_BYTES,
          HTTP_MAX_INVENTORY_ANSWER_BYTES);

  /**
   * The provider options, which a cluster of {@code clusters} may set for itself: {@code provider}
   * and every option under local, hetzner, webhook and benchmark.
   */
  public static final List<Option<?>> PROVIDER_OPTIONS =
      ALL.stream().filter(o -> isProviderPath(o.path())).toList();

  /** Whether a path is {@code provider} or lies under a provider's section. */
  static boolean isProviderPath(String path) {
    return path.equals("provider")
        || PROVIDER_SECTIONS.stream().anyMatch(p -> path.startsWith(p + "."));
  }

  private static final Pattern DOMAIN =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\\.)*[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\\.?");

  /** {@code <region>=<CIDR>}: a DNS label and a network. */
  private static boolean dnsView(String s) {
    int eq = s.indexOf('=');
    if (eq < 0 || !DNS_LABEL.matcher(s.substring(0, eq).trim()).matches()) {
      return false;
    }
    Cidr cidr = Cidr.parse(s.substring(eq + 1).trim());
    return cidr != null && cidr.prefix() <= cidr.address().bits();
  }

  private static boolean emptyOrDomain(String s) {
    return s.isEmpty() || DOMAIN.matcher(s).matches();
  }

  private PierOptions() {}
}
