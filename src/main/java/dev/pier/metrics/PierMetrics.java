package dev.pier.metrics;

import com.sun.management.OperatingSystemMXBean;
import dev.pier.cloud.AddressPoolUsage;
import dev.pier.model.ServiceKey;
import dev.pier.queue.Deferral;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkQueue;
import dev.pier.queue.WorkResult;
import dev.pier.util.BuildInfo;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Pier's own metrics, named for what users graph: {@code pier_*}, plus upstream's four node-sync
 * metrics under their upstream names so that existing dashboards keep working.
 */
public final class PierMetrics implements WorkQueue.Listener<ServiceKey> {
  /**
   * Bucket boundaries of Pier's duration histograms, from a cache hit of a provider (5 ms) to the
   * longest run a provider call deadline allows (5 min): 15 buckets per series, where Micrometer's
   * percentile histogram has 78.
   */
  static final Duration[] DURATION_BUCKETS = {
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofMinutes(1),
    Duration.ofMinutes(2),
    Duration.ofMinutes(5)
  };

  private final MeterRegistry registry;
  private final AtomicInteger leader = new AtomicInteger();
  private final Map<String, AtomicLong> lastSync = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> heldForShare = new ConcurrentHashMap<>();
  // Each member's credential expiry (epoch millis) and its gauge, by member name.
  private final Map<String, AtomicLong> memberExpiry = new ConcurrentHashMap<>();
  private final Map<String, Gauge> memberExpiryGauges = new ConcurrentHashMap<>();
  private final Counter retries;
  private final Counter stuck;
  private final Timer nodeSyncLatency;
  private final Timer hostUpdateLatency;
  private final Counter nodeSyncErrors;
  private final Counter loadBalancerSyncs;

  public PierMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.retries =
        Counter.builder("pier.retries")
            .description("Failed reconciles scheduled for a retry")
            .register(registry);
    this.stuck =
        Counter.builder("pier.reconcile.stuck")
            .description(
                "Runs of a key past reconcile.runDeadline, whose slot was freed for other keys")
            .register(registry);
    BuildInfo build = BuildInfo.current();
    Gauge.builder("pier.build.info", () -> 1)
        .description("Always 1; the version and git revision of this build as labels")
        .tag("version", build.version())
        .tag("revision", build.revision())
        .register(registry);
    Gauge.builder("pier.leader", leader, AtomicInteger::get)
        .description("1 while this process holds the leader lease and reconciles")
        .register(registry);
    this.nodeSyncLatency =
        upstreamHistogram(
            "service_controller_nodesync_latency", "Time of one node sync over all services");
    this.hostUpdateLatency =
        upstreamHistogram(
            "service_controller_update_loadbalancer_host_latency",
            "Time of one load balancer's host update");
    this.nodeSyncErrors =
        Counter.builder("service_controller_nodesync_error")
            .description("Host updates of node sync that failed")
            .register(registry);
    this.loadBalancerSyncs =
        Counter.builder("service_controller_loadbalancer_sync")
            .description("Host updates of load balancers made by node sync")
            .register(registry);
  }

  /**
   * A new Prometheus registry for all of Pier's meters. The JVM's CPU time is published as {@code
   * process_cpu_seconds_total}, the name and unit every Prometheus client uses, instead of
   * Micrometer's {@code process_cpu_time_ns_total}.
   */
  public static PrometheusMeterRegistry newRegistry() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")));
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
      FunctionCounter.builder("process.cpu", os, o -> o.getProcessCpuTime() / 1e9)
          .description("CPU time used by the Pier process")
          .baseUnit("seconds")
          .register(registry);
    }
    return registry;
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Publishes the queue's depth, keys in flight and keys waiting for retry as gauges. */
  public void bindQueue(Supplier<WorkQueue.Stats> stats) {
    Gauge.builder("pier.queue.depth", () -> stats.get().depth())
        .description("Keys waiting to be reconciled")
        .register(registry);
    Gauge.builder("pier.queue.in.flight", () -> stats.get().inFlight())
        .description("Keys being reconciled now")
        .register(registry);
    Gauge.builder("pier.queue.waiting.retry", () -> stats.get().waitingForRetry())
        .description(
            "Keys waiting for a retry after a failure, or held back by the rate limit or the"
                + " minimum interval between ensures")
        .register(registry);
  }

  /** Publishes how many requests wait for a run of their key to start, as a gauge. */
  public void bindWaitingRequests(IntSupplier waiting) {
    Gauge.builder("pier.queue.waiting.requests", waiting::getAsInt)
        .description("Requests (node sync's host updates) waiting for a run of their key")
        .register(registry);
  }

  /**
   * Publishes the size and use of every address pool of the cluster's {@code source} as {@code
   * pier_address_pool_addresses{cluster,pool}} and {@code
   * pier_address_pool_addresses_in_use{cluster,pool}}.
   */
  public void bindAddressPools(String cluster, AddressPoolUsage.Source source) {
    for (AddressPoolUsage pool : source.addressPools()) {
      String name = pool.pool();
      Gauge.builder("pier.address.pool.addresses", source, s -> usage(s, name).addresses())
          .description("Addresses a pool of the local provider hands out")
          .tag("cluster", cluster)
          .tag("pool", name)
          .register(registry);
      Gauge.builder("pier.address.pool.addresses.in.use", source, s -> usage(s, name).inUse())
          .description("Addresses of a pool of the local provider that Services hold")
          .tag("cluster", cluster)
          .tag("pool", name)
          .register(registry);
    }
  }

  private static AddressPoolUsage usage(AddressPoolUsage.Source source, String pool) {
    return source.addressPools().stream()
        .filter(u -> u.pool().equals(pool))
        .findFirst()
        .orElse(new AddressPoolUsage(pool, Double.NaN, 0));
  }

  /**
   * Publishes how many load balancers of {@code provider} this process last saw in each state, as
   * {@code pier_load_balancers{provider,state}}.
   */
  public void bindLoadBalancers(String provider, LoadBalancerStates states) {
    for (LoadBalancerStates.State state : LoadBalancerStates.State.values()) {
      Gauge.builder("pier.load.balancers", states, s -> s.count(state))
          .description(
              "Load balancers by provider and state as last seen by this process: ready (the"
                  + " last ensure succeeded) or failing (it failed)")
          .tag("provider", provider)
          .tag("state", state.label())
          .register(registry);
    }
  }

  /** Publishes how many DNS names hold records Pier owns, as {@code pier_dns_names_owned}. */
  public void bindOwnedDnsNames(IntSupplier names) {
    Gauge.builder("pier.dns.names.owned", names::getAsInt)
        .description("DNS names holding records that this Pier owns and keeps current")
        .register(registry);
  }

  /**
   * Publishes when a member's credential expires as {@code
   * pier_member_credential_expiry_timestamp_seconds{cluster}} (Unix seconds), registering it the
   * first time; null removes it: the member left, or its credential carries no expiry Pier can
   * read.
   */
  public void setMemberCredentialExpiry(String cluster, Instant expiry) {
    if (expiry == null) {
      memberExpiry.remove(cluster);
      Gauge gauge = memberExpiryGauges.remove(cluster);
      if (gauge != null) {
        registry.remove(gauge);
      }
      return;
    }
    memberExpiry
        .computeIfAbsent(
            cluster,
            c -> {
              AtomicLong millis = new AtomicLong();
              memberExpiryGauges.put(
                  c,
                  Gauge.builder(
                          "pier.member.credential.expiry.timestamp", millis, m -> m.get() / 1000.0)
                      .description(
                          "Unix time at which the member's credential (its token's exp, or its"
                              + " client certificate's notAfter, the earlier of the two) expires")
                      .baseUnit("seconds")
                      .tag("cluster", c)
                      .register(registry));
              return millis;
            })
        .set(expiry.toEpochMilli());
  }

  public void setLeader(boolean isLeader) {
    leader.set(isLeader ? 1 : 0);
  }

  /**
   * One run of a federated Service's key: {@code side} {@code host} (the aggregate) or {@code
   * member} (a copy), counted by outcome and timed.
   */
  public void federationRun(String side, WorkResult result, long nanos) {
    Counter.builder("pier.federation.runs")
        .description(
            "Runs of federated Services: aggregations on the host, propagations to members, by"
                + " outcome")
        .tag("side", side)
        .tag("result", result.outcome().name().toLowerCase(Locale.ROOT))
        .register(registry)
        .increment();
    Timer.builder("pier.federation.run.duration")
        .description(
            "Time of one run of a federated Service: its aggregate on the host, or its copy in a"
                + " member")
        .tag("side", side)
        .serviceLevelObjectives(DURATION_BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void onDone(WorkItem<ServiceKey> item, WorkResult result, long nanos) {
    String kind = kindLabel(item);
    String outcome = result.outcome().name().toLowerCase(Locale.ROOT);
    Counter.builder("pier.reconciles")
        .description("Finished runs of a key, by kind and result")
        .tags("kind", kind, "result", outcome)
        .register(registry)
        .increment();
    Timer.builder("pier.reconcile.duration")
        .description("Time of one reconcile of one key")
        .tag("kind", kind)
        .serviceLevelObjectives(DURATION_BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
    if (result.outcome() == WorkResult.Outcome.SUCCESS) {
      lastSuccessfulSync(item.key().cluster()).set(System.currentTimeMillis());
    }
    if (kind.equals("update_hosts")) {
      hostUpdateLatency.record(nanos, TimeUnit.NANOSECONDS);
      if (result.outcome() == WorkResult.Outcome.SUCCESS) {
        loadBalancerSyncs.increment();
      } else if (result.outcome() != WorkResult.Outcome.FENCED) {
        nodeSyncErrors.increment();
      }
    }
  }

  @Override
  public void onRetryScheduled(ServiceKey key, Duration delay) {
    retries.increment();
  }

  @Override
  public void onStuck(ServiceKey key, Duration elapsed) {
    stuck.increment();
  }

  /** A run held back by the rate limit or the per-Service minimum interval. */
  @Override
  public void onDeferred(ServiceKey key, Deferral deferral) {
    Counter.builder("pier.reconcile.throttled")
        .description(
            "Retries and ensures not caused by a spec change held back, by reason: rate_limit"
                + " (reconcile.rateLimit) or min_interval (reconcile.minEnsureInterval)")
        .tag("reason", deferral.reason())
        .register(registry)
        .increment();
  }

  /** Keys of a cluster that wait only because the cluster holds all of its share of a lane. */
  @Override
  public void onHeldForShare(String cluster, int keys) {
    heldForShare
        .computeIfAbsent(
            cluster,
            c -> {
              AtomicInteger held = new AtomicInteger();
              Gauge.builder("pier.queue.held.for.share", held, AtomicInteger::get)
                  .description(
                      "Keys of a cluster waiting only for its share of the queue: their lane has"
                          + " free slots, kept for other clusters' floors (reconcile.clusterFloor)")
                  .tag("cluster", c)
                  .register(registry);
              return held;
            })
        .set(keys);
  }

  /** Records one node sync round: from the node change to the last host update submitted. */
  public void recordNodeSync(long nanos) {
    nodeSyncLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Times a provider call by operation and result. */
  public void recordProviderCall(String operation, String result, long nanos) {
    Timer.builder("pier.provider.call.duration")
        .description("Latency of load balancer provider calls")
        .tags("operation", operation, "result", result)
        .serviceLevelObjectives(DURATION_BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  private AtomicLong lastSuccessfulSync(String cluster) {
    return lastSync.computeIfAbsent(
        cluster,
        c -> {
          AtomicLong millis = new AtomicLong();
          Gauge.builder("pier.last.successful.sync.timestamp", millis, m -> m.get() / 1000.0)
              .description(
                  "Unix time of the last successful run of a key of the cluster (reconcile, host"
                      + " update, verification or DNS)")
              .baseUnit("seconds")
              .tag("cluster", c)
              .register(registry);
          return millis;
        });
  }

  private Timer upstreamHistogram(String name, String description) {
    // Upstream uses ExponentialBuckets(1, 2, 15): 1 s to 16384 s.
    double[] buckets = new double[15];
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = Math.pow(2, i);
    }
    Duration[] slos = new Duration[buckets.length];
    for (int i = 0; i < buckets.length; i++) {
      slos[i] = Duration.ofSeconds((long) buckets[i]);
    }
    return Timer.builder(name)
        .description(description)
        .serviceLevelObjectives(slos)
        .register(registry);
  }

  private static String kindLabel(WorkItem<ServiceKey> item) {
    if (item.kinds().contains(WorkKind.RECONCILE)) {
      return "reconcile";
    }
    if (item.kinds().contains(WorkKind.UPDATE_HOSTS)) {
      return "update_hosts";
    }
    if (item.kinds().contains(WorkKind.VERIFY)) {
      return "verify";
    }
    return "dns";
  }
}
