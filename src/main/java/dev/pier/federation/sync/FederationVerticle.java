package dev.pier.federation.sync;

import dev.pier.config.Durations;
import dev.pier.dns.publish.DataPathOptions;
import dev.pier.dns.publish.DataPathProber;
import dev.pier.dns.publish.DnsPublisher;
import dev.pier.federation.CopyRecord;
import dev.pier.federation.CopyState;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.Cluster;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.Addresses;
import dev.pier.model.FederationKeys;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.policy.DeletionGuard;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkQueue;
import dev.pier.queue.WorkResult;
import dev.pier.retry.ExponentialBackoff;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The federation controller: watches the host's Services and runs one key per federated Service and
 * cluster through its own work queue (the host's key aggregates, a member's key propagates); the
 * members' comings and goings, their probes and Secrets are {@link MemberLifecycle}'s. Its queue
 * runs only while this process reconciles (see {@link Addresses#FEDERATION_CONTROL}). Under
 * scale-out ({@link FederationShards}) it runs the host's keys while this replica holds shard 0,
 * and a member's keys, caches and the answers to reads of its copies while it holds that member's
 * shard; the host side reads other members' copies from their owners ({@link CopyExchange}).
 */
public final class FederationVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(FederationVerticle.class);
  private static final Duration AGGREGATE_DELAY = Duration.ofMillis(200);

  private final Cluster host;
  private final Members members;
  private final FederationOptions options;
  private final PierMetrics metrics;
  private final MeterRegistry registry;
  private final DeletionGuard guard;
  private final FederationQueueOptions queueOptions;
  private final DnsPublisher dns;
  private final OptedInNamespaces optedIn = new OptedInNamespaces();
  private final FederationShards shards;
  private final DataPathOptions probeOptions;
  private final Counter droppedChanges;
  private DataPathProber probes;
  private WorkQueue<ServiceKey> queue;
  private FederationReconciler reconciler;
  private CopyExchange exchange;
  private KeysToRun keys;
  private MemberLifecycle lifecycle;
  private volatile boolean running;

  /**
   * @param dns publishes the federated Services' names, or null without DNS
   * @param guard holds copy deletions no one asked for beyond its limit
   * @param probeOptions how the load balancers of Services that ask for it are probed ({@code
   *     dns.probe.*}), or null: never
   */
  public FederationVerticle(
      Cluster host,
      Members members,
      FederationOptions options,
      PierMetrics metrics,
      FederationQueueOptions queueOptions,
      DnsPublisher dns,
      DeletionGuard guard,
      FederationShards shards,
      DataPathOptions probeOptions) {
    this.host = host;
    this.members = members;
    this.options = options;
    this.metrics = metrics;
    this.registry = metrics.registry();
    this.queueOptions = queueOptions;
    this.dns = dns;
    this.guard = guard;
    this.shards = shards;
    this.probeOptions = probeOptions;
    this.droppedChanges =
        Counter.builder("pier.federation.changes.dropped")
            .description(
                "Changes told to this replica as the host's owner that named no host key it runs")
            .register(registry);
  }

  @Override
  public Future<?> start() {
    probes =
        dns == null || probeOptions == null
            ? null
            : new DataPathProber(
                vertx,
                probeOptions,
                () -> running && (!shards.divided() || shards.runsHost()),
                this::probesChanged,
                registry,
                System::currentTimeMillis);
    reconciler =
        new FederationReconciler(
            context,
            host,
            members,
            options,
            this::add,
            System::currentTimeMillis,
            PublishedNames.of(dns, host),
            new HeldNames(registry),
            guard,
            optedIn::contains,
            shards.divided() ? this::readCopy : null,
            probes);
    exchange = new CopyExchange(vertx, members, shards, reconciler.local());
    keys = new KeysToRun(host, members, options.name(), reconciler::federated, this::add);
    queue = queue();
    vertx.eventBus().<String>localConsumer(Addresses.FEDERATION_CONTROL, this::onControl);
    host.addServiceHandler(new HostHandler());
    lifecycle =
        new MemberLifecycle(
            context,
            host,
            members,
            options,
            metrics,
            shards,
            keys,
            exchange,
            reconciler::ownedCopies,
            this::hostChanged,
            () -> running);
    lifecycle.listen();
    return host.startServices(context)
        .compose(
            v ->
                options.namespaceOptIn() && !options.namespacedMembers()
                    ? optedIn.start(host, options.name(), context, keys::namespace)
                    : Future.<Void>succeededFuture())
        .compose(v -> lifecycle.startSecrets())
        .onSuccess(
            v -> {
              lifecycle.startProbes();
              if (probes != null) {
                probes.start();
              }
              log.info(
                  "Federation {}: host cluster {}, {} members configured, Secrets in namespace {}",
                  options.name(),
                  host.name(),
                  members.all().size(),
                  options.secretNamespace());
            });
  }

  /** The federation's own work queue, paused until this process reconciles. */
  private WorkQueue<ServiceKey> queue() {
    WorkQueue<ServiceKey> q =
        new WorkQueue<>(
            vertx,
            queueOptions.concurrency(),
            new ExponentialBackoff<>(queueOptions.minRetryDelay(), queueOptions.maxRetryDelay()),
            queueOptions.runDeadline(),
            item -> reconciler.run(item.key()),
            new WorkQueue.Listener<>() {
              @Override
              public void onDone(WorkItem<ServiceKey> item, WorkResult result, long nanos) {
                metrics.federationRun(isHostKey(item.key()) ? "host" : "member", result, nanos);
              }

              @Override
              public void onStuck(ServiceKey key, Duration elapsed) {
                log.warn(
                    "Federated Service {}: run still not done after {} (reconcile.runDeadline);"
                        + " it runs again once the run ends",
                    key,
                    Durations.format(elapsed.truncatedTo(ChronoUnit.SECONDS)));
              }
            });
    Gauge.builder("pier.federation.queue.depth", q, WorkQueue::depth)
        .description("Keys of federated Services waiting to run")
        .register(registry);
    q.pause();
    return q;
  }

  @Override
  public Future<?> stop() {
    if (lifecycle != null) {
      lifecycle.stop();
    }
    optedIn.stop();
    if (queue != null) {
      queue.close();
    }
    if (exchange != null) {
      exchange.close();
    }
    return probes == null ? Future.succeededFuture() : probes.stop();
  }

  private void onControl(Message<String> msg) {
    switch (msg.body()) {
      case "start" -> {
        running = true;
        queue.resume();
        keys.allKeys();
        members.all().forEach(keys::ownedCopies);
        msg.reply("started");
      }
      case "stop" -> {
        running = false;
        queue.pause();
        if (probes != null) {
          probes.reset();
        }
        msg.reply("stopped");
      }
      case Addresses.SHARDS_GAINED -> {
        gained(Integer.parseInt(msg.headers().get(Addresses.SHARD)));
        msg.reply("gained");
      }
      case Addresses.SHARDS_LOST -> {
        lost(Integer.parseInt(msg.headers().get(Addresses.SHARD)));
        msg.reply("lost");
      }
      default -> msg.fail(400, "unknown control command " + msg.body());
    }
  }

  /**
   * Under scale-out, this replica took a shard: the host side's keys when it is shard 0, and the
   * side of each member whose shard it is.
   */
  private void gained(int shard) {
    if (!running) {
      running = true;
      queue.resume();
    }
    if (shards.isHostShard(shard)) {
      exchange.listenForChanges(this::changeTold);
      keys.hostKeys();
    }
    for (Member m : members.all()) {
      if (shards.isMemberShard(m.name(), shard)) {
        lifecycle.own(m);
      }
    }
  }

  /**
   * Under scale-out, this replica lost a shard: its waiting work goes; runs in flight are fenced.
   */
  private void lost(int shard) {
    if (shards.isHostShard(shard)) {
      exchange.stopListening();
      queue.drop(this::isHostKey);
      if (probes != null) {
        probes.reset();
      }
    }
    for (Member m : members.all()) {
      if (shards.isMemberShard(m.name(), shard)) {
        exchange.stopAnswering(m.name());
        queue.drop(k -> k.cluster().equals(m.name()));
      }
    }
  }

  private boolean isHostKey(ServiceKey key) {
    return key.cluster().equals(host.name());
  }

  /** A key runs here unless, under scale-out, another replica owns its side. */
  private boolean runsHere(ServiceKey key) {
    return !shards.divided()
        || (isHostKey(key) ? shards.runsHost() : shards.runsMember(key.cluster()));
  }

  private void add(ServiceKey key) {
    if (runsHere(key)) {
      queue.add(key, WorkKind.RECONCILE);
    } else {
      // Answers "why does this replica not run it?" when debugging scale-out; a test reads it as
      // the proof that a replica without the shard saw the Service.
      log.debug(
          "{}: not run here: under scale-out it runs on the replica that holds the shard of {}",
          ServiceRef.of(key, null),
          isHostKey(key) ? "the host side" : "cluster " + key.cluster());
    }
  }

  /**
   * A member's copy of the host Service changed: its aggregate runs after a moment, which lets the
   * other members' changes land in the same write; under scale-out, the host's owner is told.
   */
  private void hostChanged(ServiceKey hostKey) {
    if (runsHere(hostKey)) {
      aggregateSoon(hostKey);
    } else if (running) {
      exchange.tellChanged(hostKey);
    }
  }

  /**
   * Under scale-out, another replica told this one, as the host's owner, that a copy changed. The
   * receive path never sends: a key of any cluster but the host, or one that arrives while this
   * replica does not run the host side, is dropped and counted, so no message can go round.
   */
  private void changeTold(ServiceKey hostKey) {
    if (isHostKey(hostKey) && runsHere(hostKey)) {
      aggregateSoon(hostKey);
    } else {
      droppedChanges.increment();
      log.debug("Dropped a change told for {}: not a host key this replica runs", hostKey);
    }
  }

  /** The host key's aggregate, after a moment that lets other members' changes join it. */
  private void aggregateSoon(ServiceKey hostKey) {
    queue.addAfter(hostKey, EnumSet.of(WorkKind.RECONCILE), AGGREGATE_DELAY);
  }

  /** A load-balancer address of the Service stopped or started answering its probes. */
  private void probesChanged(ServiceKey hostKey) {
    if (running && runsHere(hostKey)) {
      aggregateSoon(hostKey);
    }
  }

  /** Under scale-out: a member's copy, from this replica's caches where it owns the member. */
  private Future<CopyState> readCopy(Member m, String namespace, String name) {
    return lifecycle.ownsHere(m)
        ? exchange.readOwn(m, namespace, name)
        : exchange.read(m, namespace, name);
  }

  /**
   * A change the federation acts on: not its own status or annotation writes, but for a new intent
   * in the record of copies (a copy for the member keys to make).
   */
  static boolean relevant(Service o, Service n) {
    return !Objects.equals(o.getSpec(), n.getSpec())
        || CopyRecord.addsIntent(CopyRecord.of(o), CopyRecord.of(n))
        || !Objects.equals(o.getMetadata().getLabels(), n.getMetadata().getLabels())
        || !Objects.equals(withoutIngresses(o), withoutIngresses(n))
        || !Objects.equals(
            o.getMetadata().getDeletionTimestamp(), n.getMetadata().getDeletionTimestamp())
        || !Objects.equals(o.getMetadata().getFinalizers(), n.getMetadata().getFinalizers())
        || !Objects.equals(o.getMetadata().getUid(), n.getMetadata().getUid());
  }

  /**
   * Whether an update that changed nothing the federation acts on runs the host's aggregate again:
   * the informer's resync under scale-out, where a member's change reaches the host's owner over
   * the bus and a telling can be lost. The aggregate reads every copy afresh and writes only what
   * differs, so this bounds how long a lost telling leaves the status and names behind.
   */
  static boolean reaggregates(Service o, Service n, boolean divided) {
    return divided
        && Objects.equals(
            o.getMetadata().getResourceVersion(), n.getMetadata().getResourceVersion());
  }

  /**
   * The annotations but the federation's own (the ingresses, the names held, the entries of the
   * record of copies).
   */
  private static Map<String, String> withoutIngresses(Service s) {
    Map<String, String> a = s.getMetadata().getAnnotations();
    if (a == null
        || !(a.containsKey(FederationKeys.INGRESSES_ANNOTATION)
            || a.containsKey(FederationKeys.NAMES_HELD_ANNOTATION)
            || a.containsKey(FederationKeys.COPY_UIDS_ANNOTATION))) {
      return a == null ? Map.of() : a;
    }
    Map<String, String> copy = new HashMap<>(a);
    copy.remove(FederationKeys.INGRESSES_ANNOTATION);
    copy.remove(FederationKeys.NAMES_HELD_ANNOTATION);
    if (copy.containsKey(FederationKeys.COPY_UIDS_ANNOTATION)) {
      // The host side writes the entries and has what it wrote; whether there is a record at all
      // (a Service in adoption has none) changes what the runs decide, and so does a new intent.
      copy.put(FederationKeys.COPY_UIDS_ANNOTATION, "");
    }
    return copy;
  }

  private final class HostHandler implements ResourceEventHandler<Service> {
    @Override
    public void onAdd(Service s) {
      context.runOnContext(
          v -> {
            if (keys.isOurs(s)) {
              keys.allOf(s);
            }
          });
    }

    @Override
    public void onUpdate(Service o, Service n) {
      context.runOnContext(
          v -> {
            if (!keys.isOurs(n) && !keys.isOurs(o)) {
              return;
            }
            if (relevant(o, n)) {
              keys.allOf(n);
            } else if (reaggregates(o, n, shards.divided())) {
              keys.hostOf(n);
            }
          });
    }

    @Override
    public void onDelete(Service s, boolean finalStateUnknown) {
      context.runOnContext(
          v -> {
            if (keys.isOurs(s)) {
              keys.allOf(s);
            }
          });
    }
  }
}
