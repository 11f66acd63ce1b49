package dev.pier.reconcile;

import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.config.Durations;
import dev.pier.dns.publish.DnsSync;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.leader.WorkGate;
import dev.pier.log.ServiceLog;
import dev.pier.model.Addresses;
import dev.pier.model.LbService;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.policy.NodeEligibility;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.Deferral;
import dev.pier.queue.FairShare;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkLane;
import dev.pier.queue.WorkQueue;
import dev.pier.queue.WorkResult;
import dev.pier.retry.ExponentialBackoff;
import dev.pier.retry.TokenBucket;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the per-key work queue: takes keys from {@link Addresses#RECONCILE}, and runs them through
 * the {@link ServiceReconciler} once told to start on {@link Addresses#RECONCILE_CONTROL} (after
 * the informers synced, and on the leader). Keys that arrive before that wait in the queue. A key
 * sent as a request is answered with the outcome of the run that covers it (node sync uses this to
 * time a whole round); a newer request for a key replaces the one still waiting for its run, which
 * is answered {@link Addresses#SUPERSEDED}, so that what waits behind a key stays one request
 * however often nodes flap. Runs that only repeat work (retries, and ensures not asked for by a
 * change of the spec) are rate-limited by a {@link ReconcileThrottle}.
 */
public final class ReconcileVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(ReconcileVerticle.class);
  private static final ServiceLog serviceLog = ServiceLog.of(ReconcileVerticle.class);
  private static final String NOT_LEADING = "not_leading";
  private static final Duration MEMBER_RETRY = Duration.ofSeconds(5);

  private final Clusters clusters;
  private final LoadBalancerProvider provider;
  private final ReconcileOptions options;
  private final ServiceFilter filter;
  private final NodeEligibility eligibility;
  private final PushedNodeSets pushed;
  private final DeletedServices deleted;
  private final WorkQueue.Listener<ServiceKey> listener;
  private final DnsSync dns;
  private final WorkGate gate;
  private ServiceReconciler reconciler;
  private WorkQueue<ServiceKey> queue;
  private DriftVerifier verifier;
  private boolean initialized;
  // Between "start" and "stop": this process reconciles.
  private boolean running;
  // Members that joined at runtime whose provider has not been initialized: their keys wait.
  private final Set<String> waitingForProvider = new HashSet<>();
  // Requests (rather than one-way sends) are answered when the run that covers them ends.
  private final Map<ServiceKey, Message<String>> waitingForRun = new HashMap<>();
  private final Map<ServiceKey, Message<String>> waitingForEnd = new HashMap<>();
  private ReconcileThrottle throttle;
  // A copy of the number of requests waiting for a run, for readers on other threads (metrics).
  private volatile int waitingRequestsSeen;

  /**
   * @param dns publishes DNS names in the same runs as the load balancer work, or null for none
   * @param gate open while this process may write: runs check it before each write
   */
  public ReconcileVerticle(
      Clusters clusters,
      LoadBalancerProvider provider,
      ReconcileOptions options,
      ServiceFilter filter,
      NodeEligibility eligibility,
      PushedNodeSets pushed,
      DeletedServices deleted,
      WorkQueue.Listener<ServiceKey> listener,
      DnsSync dns,
      WorkGate gate) {
    this.clusters = clusters;
    this.gate = gate;
    this.provider = provider;
    this.options = options;
    this.filter = filter;
    this.eligibility = eligibility;
    this.pushed = pushed;
    this.deleted = deleted;
    this.listener = listener;
    this.dns = dns;
  }

  @Override
  public Future<?> start() {
    reconciler =
        new ServiceReconciler(
            context, clusters::get, provider, filter, eligibility, pushed, deleted, dns, gate);
    throttle =
        new ReconcileThrottle(
            options.getRateLimit() > 0
                ? () ->
                    new TokenBucket(
                        options.getRateLimit(), options.getRateBurst(), System::nanoTime)
                : null,
            options.getMinEnsureInterval(),
            reconciler::hasEnsured,
            System::nanoTime);
    queue =
        new WorkQueue<>(
            vertx,
            // Node sync's host updates get their own slots: a node change across thousands of
            // load balancers neither waits behind full reconciles nor raises how many of those
            // load the API server at once.
            Map.of(
                WorkLane.FULL,
                options.getConcurrency(),
                WorkLane.HOST_UPDATE,
                options.getNodeSyncConcurrency()),
            new ExponentialBackoff<>(options.getMinRetryDelay(), options.getMaxRetryDelay()),
            options.getRunDeadline(),
            item -> {
              Message<String> waiter = waitingForRun.remove(item.key());
              waitingRequestsSeen = waitingForRun.size();
              if (waiter != null) {
                waitingForEnd.put(item.key(), waiter);
              }
              return reconciler.reconcile(item);
            },
            new WorkQueue.Listener<>() {
              @Override
              public void onDone(WorkItem<ServiceKey> item, WorkResult result, long nanos) {
                if (listener != null) {
                  listener.onDone(item, result, nanos);
                }
                Message<String> waiter = waitingForEnd.remove(item.key());
                if (waiter != null) {
                  waiter.reply(result.outcome().name());
                }
              }

              @Override
              public void onRetryScheduled(ServiceKey key, Duration delay) {
                if (listener != null) {
                  listener.onRetryScheduled(key, delay);
                }
              }

              @Override
              public void onStuck(ServiceKey key, Duration elapsed) {
                serviceLog.warn(
                    ServiceRef.of(key, null),
                    "run still not done after {} (reconcile.runDeadline); its slot is freed and"
                        + " the Service runs again once the run ends",
                    Durations.format(elapsed.truncatedTo(ChronoUnit.SECONDS)));
                if (listener != null) {
                  listener.onStuck(key, elapsed);
                }
              }

              @Override
              public void onDeferred(ServiceKey key, Deferral deferral) {
                if (listener != null && !NOT_LEADING.equals(deferral.reason())) {
                  listener.onDeferred(key, deferral);
                }
              }

              @Override
              public void onHeldForShare(String cluster, int keys) {
                if (listener != null) {
                  listener.onHeldForShare(cluster, keys);
                }
              }
            },
            // Between the gate closing and the loss being handled, no run starts: none would get
            // far, and a fenced one would use up a rate-limit token or a spec change's pass.
            item ->
                gate.isOpen(item.key())
                    ? throttle.check(item)
                    : Deferral.of(Outcomes.FENCED_RECHECK, NOT_LEADING),
            // Every cluster whose load balancers Pier runs has its floor of each lane, so that
            // one whose provider hangs cannot hold every slot.
            new WorkQueue.Shares<>(
                new FairShare(options.getClusterFloor()), ServiceKey::cluster, this::clusterNames));
    queue.pause();
    verifier =
        new DriftVerifier(
            vertx, options.getVerifyPeriod(), this::served, key -> queue.add(key, WorkKind.VERIFY));
    clusters.onAdded(c -> context.runOnContext(v -> added(c)));
    clusters.onRemoved(c -> context.runOnContext(v -> removed(c)));
    vertx.eventBus().<String>localConsumer(Addresses.RECONCILE, this::onKey);
    vertx.eventBus().<String>localConsumer(Addresses.RECONCILE_CONTROL, this::onControl);
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    if (verifier != null) {
      verifier.stop();
    }
    if (queue != null) {
      queue.close();
    }
    waitingForRun.values().forEach(m -> m.fail(503, "stopping"));
    waitingForRun.clear();
    waitingRequestsSeen = 0;
    return Future.succeededFuture();
  }

  /** The queue's sizes, safe to read from any thread. */
  public WorkQueue.Stats queueStats() {
    return queue == null ? new WorkQueue.Stats(0, 0, 0) : queue.stats();
  }

  /** The names of the clusters whose keys this queue runs, joined members included. */
  private Set<String> clusterNames() {
    Set<String> names = new HashSet<>();
    for (Cluster c : clusters.all()) {
      names.add(c.name());
    }
    return names;
  }

  /** Requests (node sync's) waiting for a run of their key to start; safe from any thread. */
  public int waitingRequestsSeen() {
    return waitingRequestsSeen;
  }

  private void onKey(Message<String> msg) {
    ServiceKey key;
    WorkKind kind;
    try {
      key = ServiceKey.parse(msg.body());
      String k = msg.headers().get(Addresses.KIND);
      kind = k == null ? WorkKind.RECONCILE : WorkKind.valueOf(k);
    } catch (IllegalArgumentException e) {
      log.warn("Ignoring malformed work message '{}': {}", msg.body(), e.getMessage());
      return;
    }
    if (!gate.owns(key) || waitingForProvider.contains(key.cluster())) {
      // Another replica owns the key's shard and runs it; or the key's cluster just joined, and
      // every key of it is queued once its provider is initialized.
      if (msg.replyAddress() != null) {
        msg.reply(Addresses.NOT_OWNED);
      }
      return;
    }
    if (msg.replyAddress() != null) {
      Message<String> older = waitingForRun.put(key, msg);
      if (older != null) {
        older.reply(Addresses.SUPERSEDED);
      }
      waitingRequestsSeen = waitingForRun.size();
    }
    if (kind == WorkKind.RECONCILE
        && !Addresses.CAUSE_METADATA.equals(msg.headers().get(Addresses.CAUSE))) {
      throttle.specChanged(key);
    }
    queue.add(key, kind);
  }

  private void onControl(Message<String> msg) {
    switch (msg.body()) {
      case "start" ->
          initialize()
              .onSuccess(
                  v -> {
                    running = true;
                    queue.resume();
                    verifier.start();
                    providerWaiting().forEach(this::initializeMember);
                    log.info(
                        "Reconciling with provider {} ({} keys in flight at most, and {}"
                            + " node-sync host updates)",
                        provider.name(),
                        options.getConcurrency(),
                        options.getNodeSyncConcurrency());
                    msg.reply("started");
                  })
              .onFailure(e -> msg.fail(500, "provider initialization failed: " + e.getMessage()));
      case "stop" -> {
        running = false;
        queue.pause();
        verifier.stop();
        msg.reply("stopped");
      }
      case Addresses.SHARDS_GAINED -> {
        // What the shard's last owner knew is not trusted: every key of it runs as at a start.
        int shard = Integer.parseInt(msg.headers().get(Addresses.SHARD));
        int queued = 0;
        for (Cluster c : providerReady()) {
          queued += queueKeys(c, key -> gate.inShard(key, shard));
        }
        msg.reply(queued);
      }
      case Addresses.SHARDS_LOST -> {
        drop(key -> !gate.owns(key));
        msg.reply("dropped");
      }
      default -> msg.fail(400, "unknown control command " + msg.body());
    }
  }

  /** Services holding DNS names get a DNS run: those deleted meanwhile lose their names. */
  private void dnsHolders(Set<String> objectKeys) {
    for (Cluster c : clusters.all()) {
      for (String k : objectKeys) {
        int slash = k.indexOf('/');
        ServiceKey key = new ServiceKey(c.name(), k.substring(0, slash), k.substring(slash + 1));
        if (gate.owns(key)) {
          queue.add(key, WorkKind.DNS);
        }
      }
    }
  }

  /** The keys of the load balancers Pier serves: what the periodic verification walks. */
  private List<ServiceKey> served() {
    List<ServiceKey> keys = new ArrayList<>();
    for (Cluster c : providerReady()) {
      for (Service s : c.services()) {
        if (filter.forCluster(c.name()).wantsLoadBalancer(s)
            && ServiceFilter.hasFinalizer(s)
            && s.getMetadata().getDeletionTimestamp() == null) {
          ServiceKey key = Views.key(c.name(), s);
          if (gate.owns(key)) {
            keys.add(key);
          }
        }
      }
    }
    return keys;
  }

  /** Gives the provider every Service of the cluster that has or wants a load balancer. */
  private Future<Void> initializeProvider(Cluster c) {
    List<LbService> services = new ArrayList<>();
    for (Service s : c.services()) {
      if (filter.forCluster(c.name()).wantsLoadBalancer(s) || ServiceFilter.hasFinalizer(s)) {
        services.add(Views.service(c.name(), s));
      }
    }
    try {
      return provider.initialize(c.identity(), services);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /** Members whose provider is not initialized yet. */
  private List<Cluster> providerWaiting() {
    return clusters.all().stream().filter(c -> waitingForProvider.contains(c.name())).toList();
  }

  /** The clusters whose keys may run: all but members whose provider is not initialized yet. */
  private List<Cluster> providerReady() {
    return clusters.all().stream().filter(c -> !waitingForProvider.contains(c.name())).toList();
  }

  /** A member joined at runtime: its keys wait until its provider is initialized. */
  private void added(Cluster c) {
    waitingForProvider.add(c.name());
    queue.clustersChanged();
    if (running) {
      initializeMember(c);
    }
  }

  /**
   * Initializes a joined member's provider once its informers have synced, then queues every key of
   * it; tries again while the member stays and this process reconciles.
   */
  private void initializeMember(Cluster c) {
    if (!running || clusters.get(c.name()) != c || !waitingForProvider.contains(c.name())) {
      return;
    }
    if (!c.synced()) {
      vertx.setTimer(MEMBER_RETRY.toMillis() / 10, id -> initializeMember(c));
      return;
    }
    initializeProvider(c)
        .onComplete(
            ar -> {
              if (clusters.get(c.name()) != c || !waitingForProvider.contains(c.name())) {
                return;
              }
              if (ar.failed()) {
                log.warn(
                    "Cluster {}: provider initialization failed, retrying in {}: {}",
                    c.name(),
                    MEMBER_RETRY,
                    ar.cause().getMessage());
                vertx.setTimer(MEMBER_RETRY.toMillis(), id -> initializeMember(c));
                return;
              }
              waitingForProvider.remove(c.name());
              int queued = queueKeys(c, key -> true);
              log.info("Cluster {}: reconciling its {} Services", c.name(), queued);
            });
  }

  /** A member left: its keys stop; what Pier made there stays as it is. */
  private void removed(Cluster c) {
    String name = c.name();
    waitingForProvider.remove(name);
    drop(key -> key.cluster().equals(name));
    throttle.forget(name);
    queue.clustersChanged();
  }

  /** Queues every key of the cluster this process owns that {@code which} takes; how many. */
  private int queueKeys(Cluster c, Predicate<ServiceKey> which) {
    int queued = 0;
    for (Service s : c.services()) {
      ServiceKey key = Views.key(c.name(), s);
      if (which.test(key) && gate.owns(key)) {
        queue.add(key, WorkKind.RECONCILE);
        queued++;
      }
    }
    return queued;
  }

  /**
   * Drops what this process holds of the keys {@code which} takes: queued work, what the reconciler
   * remembers, and requests waiting for a run (answered that another runs them).
   */
  private void drop(Predicate<ServiceKey> which) {
    queue.drop(which);
    reconciler.forget(which);
    waitingForRun
        .entrySet()
        .removeIf(
            e -> {
              if (which.test(e.getKey())) {
                e.getValue().reply(Addresses.NOT_OWNED);
                return true;
              }
              return false;
            });
    waitingRequestsSeen = waitingForRun.size();
  }

  /** Gives the provider every Service that has or wants a load balancer, once. */
  private Future<Void> initialize() {
    if (initialized) {
      return Future.succeededFuture();
    }
    List<Future<Void>> all = new ArrayList<>();
    for (Cluster c : clusters.configured()) {
      all.add(initializeProvider(c));
    }
    return Future.all(all)
        .compose(v -> dns == null ? Future.succeededFuture() : dns.start(this::dnsHolders))
        .onSuccess(v -> initialized = true)
        .mapEmpty();
  }
}
