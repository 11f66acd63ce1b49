package dev.pier.federation.sync;

import dev.pier.dns.publish.DnsPublisher;
import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.federation.CopyState;
import dev.pier.federation.Federated;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.members.HealthProber;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.MemberSecrets;
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
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The federation controller: watches the host's Services and every member's copies and endpoints,
 * probes the members' health, lets members join and leave through Secrets, and runs one key per
 * federated Service and cluster through its own work queue (the host's key aggregates, a member's
 * key propagates). Its queue runs only while this process reconciles (see {@link
 * Addresses#FEDERATION_CONTROL}). Under scale-out ({@link FederationShards}) it runs the host's
 * keys while this replica holds shard 0, and a member's keys, caches and the answers to reads of
 * its copies while it holds that member's shard; the host side reads other members' copies from
 * their owners ({@link CopyExchange}).
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
  private final int concurrency;
  private final Duration minRetryDelay;
  private final Duration maxRetryDelay;
  private final Duration runDeadline;
  private final DnsPublisher dns;
  private WorkQueue<ServiceKey> queue;
  private FederationReconciler reconciler;
  private HealthProber prober;
  private MemberSecrets secrets;
  private final OptedInNamespaces optedIn = new OptedInNamespaces();
  private final FederationShards shards;
  private CopyExchange exchange;
  // Members whose caches this replica runs: all of them, or under scale-out those it owned.
  // Read by the copies gauge on a scrape's thread too.
  private final Set<Member> attached =
      Collections.newSetFromMap(Collections.synchronizedMap(new IdentityHashMap<>()));
  private final CopyGauges copyGauges;
  private volatile boolean running;

  public FederationVerticle(
      Cluster host,
      Members members,
      FederationOptions options,
      PierMetrics metrics,
      int concurrency,
      Duration minRetryDelay,
      Duration maxRetryDelay,
      Duration runDeadline,
      DnsPublisher dns,
      DeletionGuard guard,
      FederationShards shards) {
    this.guard = guard;
    this.shards = shards;
    this.runDeadline = runDeadline;
    this.dns = dns;
    this.host = host;
    this.members = members;
    this.options = options;
    this.metrics = metrics;
    this.registry = metrics.registry();
    this.copyGauges = new CopyGauges(registry, this::ownedCopiesSeen);
    this.concurrency = concurrency;
    this.minRetryDelay = minRetryDelay;
    this.maxRetryDelay = maxRetryDelay;
  }

  @Override
  public Future<?> start() {
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
            shards.divided() ? this::readCopy : null);
    exchange = new CopyExchange(vertx, members, shards, reconciler::ownership);
    queue =
        new WorkQueue<>(
            vertx,
            concurrency,
            new ExponentialBackoff<>(minRetryDelay, maxRetryDelay),
            runDeadline,
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
                    dev.pier.config.Durations.format(
                        elapsed.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)));
              }
            });
    io.micrometer.core.instrument.Gauge.builder(
            "pier.federation.queue.depth", queue, WorkQueue::depth)
        .description("Keys of federated Services waiting to run")
        .register(registry);
    queue.pause();
    vertx.eventBus().<String>localConsumer(Addresses.FEDERATION, this::onKey);
    vertx.eventBus().<String>localConsumer(Addresses.FEDERATION_CONTROL, this::onControl);
    host.addServiceHandler(new HostHandler());
    prober = new HealthProber(vertx, context, members, options, registry);
    members.listen(
        new Members.Listener() {
          @Override
          public void joined(Member m) {
            copyGauges.track(m.name());
            if (!shards.divided()) {
              attach(m);
            } else if (running && shards.runsMember(m.name())) {
              own(m);
            }
            prober.track(m);
          }

          @Override
          public void left(Member m) {
            everyFederatedService(k -> add(k));
            ownedCopies(m);
            drain(m);
          }

          @Override
          public void replaced(Member m) {
            attached.remove(m);
            prober.untrack(m);
          }

          @Override
          public void respecified(Member m) {
            everyKeyOfEveryFederatedService();
          }

          @Override
          public void readinessChanged(Member m) {
            onReadiness(m);
          }
        });
    members.all().forEach(m -> copyGauges.track(m.name()));
    if (!shards.divided()) {
      members.all().forEach(this::attach);
    }
    secrets = new MemberSecrets(host, members, options, metrics);
    return host.startServices(context)
        .compose(
            v ->
                options.namespaceOptIn() && !options.namespacedMembers()
                    ? optedIn.start(host, options.name(), context, this::namespaceChanged)
                    : Future.<Void>succeededFuture())
        .compose(v -> secrets.start(context))
        .onSuccess(
            v -> {
              prober.start();
              log.info(
                  "Federation {}: host cluster {}, {} members configured, Secrets in namespace {}",
                  options.name(),
                  host.name(),
                  members.all().size(),
                  options.secretNamespace());
            });
  }

  @Override
  public Future<?> stop() {
    if (prober != null) {
      prober.stop();
    }
    optedIn.stop();
    if (secrets != null) {
      secrets.stop();
    }
    if (queue != null) {
      queue.close();
    }
    if (exchange != null) {
      exchange.close();
    }
    return Future.succeededFuture();
  }

  private void onKey(Message<String> msg) {
    try {
      add(ServiceKey.parse(msg.body()));
    } catch (IllegalArgumentException e) {
      log.warn("Ignoring malformed federation key '{}': {}", msg.body(), e.getMessage());
    }
  }

  private void onControl(Message<String> msg) {
    switch (msg.body()) {
      case "start" -> {
        running = true;
        queue.resume();
        everyKeyOfEveryFederatedService();
        members.all().forEach(this::ownedCopies);
        msg.reply("started");
      }
      case "stop" -> {
        running = false;
        queue.pause();
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
      exchange.listenForChanges(this::hostChanged);
      everyFederatedService(this::add);
    }
    for (Member m : members.all()) {
      if (shards.isMemberShard(m.name(), shard)) {
        own(m);
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
    }
    for (Member m : members.all()) {
      if (shards.isMemberShard(m.name(), shard)) {
        exchange.stopAnswering(m.name());
        queue.drop(k -> k.cluster().equals(m.name()));
      }
    }
  }

  /** This replica runs the member's side from now on: its caches, its keys, reads of its copies. */
  private void own(Member m) {
    attach(m);
    exchange.answer(m.name());
    if (!m.ready()) {
      // Its turning ready starts its endpoints and runs its keys.
      return;
    }
    // It turned ready before this replica owned it: that change started nothing here, and a key
    // run before the member's Services are read does nothing.
    readReady(
        m,
        () -> {
          if (members.get(m.name()) == m && shards.runsMember(m.name())) {
            for (Service s : host.services()) {
              if (isOurs(s)) {
                add(new ServiceKey(m.name(), ns(s), name(s)));
              }
            }
            ownedCopies(m);
          }
        });
  }

  private double ownedCopiesSeen(String name) {
    Member m = members.get(name);
    if (m == null || !running || !shards.runsMember(name) || !attached.contains(m)) {
      return 0;
    }
    return reconciler.ownedCopies(m);
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
      queue.addAfter(hostKey, java.util.EnumSet.of(WorkKind.RECONCILE), AGGREGATE_DELAY);
    } else if (running) {
      exchange.tellChanged(hostKey);
    }
  }

  /** Under scale-out: a member's copy, from this replica's caches where it owns the member. */
  private Future<CopyState> readCopy(Member m, String namespace, String name) {
    return shards.runsMember(m.name()) && attached.contains(m)
        ? exchange.readOwn(m, namespace, name)
        : exchange.read(m, namespace, name);
  }

  /** A namespace opted in or out: its federated Services run again. */
  private void namespaceChanged(String namespace) {
    for (Service s : host.services()) {
      if (namespace.equals(ns(s)) && isOurs(s)) {
        addAll(namespace, name(s));
      }
    }
  }

  /** The host's key and every member's key of one Service. */
  private void addAll(String namespace, String name) {
    add(new ServiceKey(host.name(), namespace, name));
    for (Member m : members.all()) {
      add(new ServiceKey(m.name(), namespace, name));
    }
  }

  /** Keys of every host Service that is federated or still carries the federation's finalizer. */
  private void everyFederatedService(java.util.function.Consumer<ServiceKey> to) {
    for (Service s : host.services()) {
      if (isOurs(s)) {
        to.accept(new ServiceKey(host.name(), ns(s), name(s)));
      }
    }
  }

  /** The host's and every member's key of every federated Service. */
  private void everyKeyOfEveryFederatedService() {
    for (Service s : host.services()) {
      if (isOurs(s)) {
        addAll(ns(s), name(s));
      }
    }
  }

  private boolean isOurs(Service s) {
    return reconciler.federated(s) || Federated.hasFinalizer(s);
  }

  /** Every copy Pier owns in a member gets a run: those whose host Service is gone are deleted. */
  private void ownedCopies(Member m) {
    for (Service s : m.cluster().services()) {
      Map<String, String> labels = s.getMetadata().getLabels();
      if (labels != null && options.name().equals(labels.get(FederationKeys.FEDERATION_LABEL))) {
        add(new ServiceKey(m.name(), ns(s), name(s)));
      }
    }
  }

  private void attach(Member m) {
    if (!attached.add(m)) {
      return;
    }
    m.cluster().addServiceHandler(new MemberHandler(m));
    m.cluster().startServices(context);
    if (m.cluster().scope().isEmpty()) {
      m.cluster().startNodes(context);
    } else if (m.spec().region() == null || m.spec().region().isBlank()) {
      // A Role per namespace reads no Nodes: the topology is what was configured, or nothing.
      log.warn(
          "Cluster {}: no region configured; with federation.memberScope namespaces Pier reads no"
              + " Nodes there, so its names carry no region or zones (set region and zones in its"
              + " cluster entry, or pier join --region --zones)",
          m.name());
    }
  }

  /**
   * A leaving member is forgotten once Pier owns no copy there any more, or after the delete
   * timeout (an unreachable member's copies stay; they are reported).
   */
  private void drain(Member m) {
    if (members.get(m.name()) != m) {
      return;
    }
    ownsCopies(m)
        .onComplete(
            owned -> {
              if (members.get(m.name()) == m) {
                // Unknown counts as owned: the member is not forgotten on a guess.
                drain(m, owned.failed() || owned.result());
              }
            });
  }

  /** Whether Pier owns copies in the leaving member, as its owner's caches see them. */
  private Future<Boolean> ownsCopies(Member m) {
    if (shards.divided() && !(shards.runsMember(m.name()) && attached.contains(m))) {
      return exchange.ownedCopies(m.name()).map(n -> n > 0);
    }
    // A member that joined just now to leave (a leave resumed after a restart) has an empty cache
    // until its first list: that is not proof of no copies.
    return Future.succeededFuture(!m.access().servicesSynced() || reconciler.ownedCopies(m) > 0);
  }

  private void drain(Member m, boolean owned) {
    long waited = System.currentTimeMillis() - m.leavingSince();
    if (!owned || waited >= options.deleteTimeout().toMillis()) {
      if (owned) {
        log.warn(
            "Cluster {}: left the federation with copies Pier may own still there (not ready for"
                + " {})",
            m.name(),
            options.deleteTimeout());
      }
      prober.untrack(m);
      attached.remove(m);
      members.forget(m);
      copyGauges.untrack(m.name());
      secrets.left(m.name());
      everyFederatedService(this::add);
      return;
    }
    vertx.setTimer(1000, id -> drain(m));
  }

  private void onReadiness(Member m) {
    if (!m.ready()) {
      everyFederatedService(this::add);
      if (running && (!shards.divided() || shards.runsHost())) {
        host.events()
            .warning(
                new ObjectRef(
                    "Namespace", "v1", options.secretNamespace(), options.secretNamespace(), null),
                EventReasons.CLUSTER_NOT_READY,
                "Member cluster " + m.name() + " is not ready: its copies are not kept in sync");
      }
      return;
    }
    if (!attached.contains(m)) {
      // Another replica owns it: its caches, endpoints and copies are read there.
      return;
    }
    readReady(
        m,
        () -> {
          everyKeyOfEveryFederatedService();
          ownedCopies(m);
        });
  }

  /**
   * Starts reading a ready member's endpoints and Services (each once; the member must be reachable
   * to find its endpoints API), then runs {@code whenRead} once its Services are read.
   */
  private void readReady(Member m, Runnable whenRead) {
    m.startEndpoints(context, (ns, name) -> context.runOnContext(v -> endpointsChanged(ns, name)))
        .onFailure(
            e -> log.warn("Cluster {}: cannot read endpoints: {}", m.name(), e.getMessage()));
    m.cluster()
        .startServices(context)
        .onSuccess(v -> whenRead.run())
        .onFailure(e -> log.warn("Cluster {}: cannot read Services: {}", m.name(), e.getMessage()));
  }

  private void endpointsChanged(String namespace, String name) {
    Service s = host.service(namespace, name);
    if (s != null && isOurs(s)) {
      hostChanged(new ServiceKey(host.name(), namespace, name));
    }
  }

  private static String ns(Service s) {
    return s.getMetadata().getNamespace();
  }

  private static String name(Service s) {
    return s.getMetadata().getName();
  }

  /** A change the federation acts on: not its own status or annotation writes. */
  static boolean relevant(Service o, Service n) {
    return !Objects.equals(o.getSpec(), n.getSpec())
        || !Objects.equals(o.getMetadata().getLabels(), n.getMetadata().getLabels())
        || !Objects.equals(withoutIngresses(o), withoutIngresses(n))
        || !Objects.equals(
            o.getMetadata().getDeletionTimestamp(), n.getMetadata().getDeletionTimestamp())
        || !Objects.equals(o.getMetadata().getFinalizers(), n.getMetadata().getFinalizers())
        || !Objects.equals(o.getMetadata().getUid(), n.getMetadata().getUid());
  }

  /** The annotations but the federation's own (the ingresses, the names held). */
  private static Map<String, String> withoutIngresses(Service s) {
    Map<String, String> a = s.getMetadata().getAnnotations();
    if (a == null
        || !(a.containsKey(FederationKeys.INGRESSES_ANNOTATION)
            || a.containsKey(FederationKeys.NAMES_HELD_ANNOTATION))) {
      return a == null ? Map.of() : a;
    }
    Map<String, String> copy = new java.util.HashMap<>(a);
    copy.remove(FederationKeys.INGRESSES_ANNOTATION);
    copy.remove(FederationKeys.NAMES_HELD_ANNOTATION);
    return copy;
  }

  private final class HostHandler implements ResourceEventHandler<Service> {
    @Override
    public void onAdd(Service s) {
      context.runOnContext(
          v -> {
            if (isOurs(s)) {
              addAll(ns(s), name(s));
            }
          });
    }

    @Override
    public void onUpdate(Service o, Service n) {
      context.runOnContext(
          v -> {
            if ((isOurs(n) || isOurs(o)) && relevant(o, n)) {
              addAll(ns(n), name(n));
            }
          });
    }

    @Override
    public void onDelete(Service s, boolean finalStateUnknown) {
      context.runOnContext(
          v -> {
            if (isOurs(s)) {
              addAll(ns(s), name(s));
            }
          });
    }
  }

  private final class MemberHandler implements ResourceEventHandler<Service> {
    private final Member member;

    MemberHandler(Member member) {
      this.member = member;
    }

    private void changed(Service s) {
      changed(s, true);
    }

    /**
     * @param aggregate whether the host's aggregate (status, annotation, DNS names) is to run too:
     *     not for a resync, which changed nothing the aggregate reads
     */
    private void changed(Service s, boolean aggregate) {
      context.runOnContext(
          v -> {
            if (members.get(member.name()) != member) {
              return;
            }
            Map<String, String> labels = s.getMetadata().getLabels();
            boolean labelled =
                labels != null
                    && options.name().equals(labels.get(FederationKeys.FEDERATION_LABEL));
            Service hostSvc = host.service(ns(s), name(s));
            if (labelled || (hostSvc != null && isOurs(hostSvc))) {
              add(new ServiceKey(member.name(), ns(s), name(s)));
              if (aggregate && shards.runsMember(member.name())) {
                hostChanged(new ServiceKey(host.name(), ns(s), name(s)));
              }
            }
          });
    }

    @Override
    public void onAdd(Service s) {
      changed(s);
    }

    @Override
    public void onUpdate(Service o, Service n) {
      // A resync hands the same version again: the copy is checked, the DNS backend not asked.
      changed(
          n,
          !Objects.equals(
              o.getMetadata().getResourceVersion(), n.getMetadata().getResourceVersion()));
    }

    @Override
    public void onDelete(Service s, boolean finalStateUnknown) {
      changed(s);
    }
  }
}
