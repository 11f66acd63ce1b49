package dev.pier.federation.sync;

import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.members.HealthProber;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.MemberSecrets;
import dev.pier.federation.members.Members;
import dev.pier.kube.Cluster;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.ServiceKey;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members' comings and goings as the federation's controller sees them: a member joining (its
 * caches attached, its probes and copies gauge started), turning ready or not, being respecified or
 * replaced, and leaving (forgotten once Pier owns no copy there, or after the delete timeout); the
 * member Secrets through which members join and leave ({@link MemberSecrets}) and the health probes
 * ({@link HealthProber}). Each change asks for the keys it affects through {@link KeysToRun}. Runs
 * on the federation's context.
 */
final class MemberLifecycle implements Members.Listener {
  private static final Logger log = LoggerFactory.getLogger(MemberLifecycle.class);
  // How often a leaving member is looked at until it is forgotten.
  private static final long DRAIN_CHECK_MILLIS = 1000;

  private final Context context;
  private final Cluster host;
  private final Members members;
  private final FederationOptions options;
  private final PierMetrics metrics;
  private final FederationShards shards;
  private final KeysToRun keys;
  private final CopyExchange exchange;
  private final ToIntFunction<Member> ownedCopies;
  private final Consumer<ServiceKey> hostChanged;
  private final BooleanSupplier running;
  private final HealthProber prober;
  private final CopyGauges copyGauges;
  private MemberSecrets secrets;
  // Members whose caches this replica runs: all of them, or under scale-out those it owned.
  // Read by the copies gauge on a scrape's thread too.
  private final Set<Member> attached =
      Collections.newSetFromMap(Collections.synchronizedMap(new IdentityHashMap<>()));

  /**
   * @param ownedCopies how many copies Pier owns in a member, as this replica's caches show them
   * @param hostChanged a member's copy of a host Service, or its endpoints, changed: the host's
   *     aggregate is to run
   * @param running whether the federation's queue runs (this process reconciles)
   */
  MemberLifecycle(
      Context context,
      Cluster host,
      Members members,
      FederationOptions options,
      PierMetrics metrics,
      FederationShards shards,
      KeysToRun keys,
      CopyExchange exchange,
      ToIntFunction<Member> ownedCopies,
      Consumer<ServiceKey> hostChanged,
      BooleanSupplier running) {
    this.context = context;
    this.host = host;
    this.members = members;
    this.options = options;
    this.metrics = metrics;
    this.shards = shards;
    this.keys = keys;
    this.exchange = exchange;
    this.ownedCopies = ownedCopies;
    this.hostChanged = hostChanged;
    this.running = running;
    this.prober = new HealthProber(context.owner(), context, members, options, metrics.registry());
    this.copyGauges = new CopyGauges(metrics.registry(), this::ownedCopiesSeen);
  }

  /** Follows the members: those configured now, and each that joins, changes or leaves later. */
  void listen() {
    members.listen(this);
    members.all().forEach(m -> copyGauges.track(m.name()));
    if (!shards.divided()) {
      members.all().forEach(this::attach);
    }
  }

  /** Starts watching the member Secrets; completes after their first list. */
  Future<Void> startSecrets() {
    secrets = new MemberSecrets(host, members, options, metrics);
    return secrets.start(context);
  }

  void startProbes() {
    prober.start();
  }

  void stop() {
    prober.stop();
    if (secrets != null) {
      secrets.stop();
    }
  }

  @Override
  public void joined(Member m) {
    copyGauges.track(m.name());
    if (!shards.divided()) {
      attach(m);
    } else if (running.getAsBoolean() && shards.runsMember(m.name())) {
      own(m);
    }
    prober.track(m);
  }

  @Override
  public void left(Member m) {
    keys.hostKeys();
    keys.ownedCopies(m);
    drain(m);
  }

  @Override
  public void replaced(Member m) {
    attached.remove(m);
    prober.untrack(m);
  }

  @Override
  public void respecified(Member m) {
    keys.allKeys();
  }

  @Override
  public void readinessChanged(Member m) {
    if (!m.ready()) {
      keys.hostKeys();
      if (running.getAsBoolean() && (!shards.divided() || shards.runsHost())) {
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
          keys.allKeys();
          keys.ownedCopies(m);
        });
  }

  /** Whether this replica runs the member's side and holds its caches. */
  boolean ownsHere(Member m) {
    return shards.runsMember(m.name()) && attached.contains(m);
  }

  /** This replica runs the member's side from now on: its caches, its keys, reads of its copies. */
  void own(Member m) {
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
            keys.memberKeys(m);
            keys.ownedCopies(m);
          }
        });
  }

  private double ownedCopiesSeen(String name) {
    Member m = members.get(name);
    if (m == null || !running.getAsBoolean() || !shards.runsMember(name) || !attached.contains(m)) {
      return 0;
    }
    return ownedCopies.applyAsInt(m);
  }

  private void attach(Member m) {
    if (!attached.add(m)) {
      return;
    }
    m.cluster().addServiceHandler(new CopyHandler(m));
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
    if (shards.divided() && !ownsHere(m)) {
      return exchange.ownedCopies(m.name()).map(n -> n > 0);
    }
    // A member that joined just now to leave (a leave resumed after a restart) has an empty cache
    // until its first list: that is not proof of no copies.
    return Future.succeededFuture(!m.access().servicesSynced() || ownedCopies.applyAsInt(m) > 0);
  }

  private void drain(Member m, boolean owned) {
    long waited = System.currentTimeMillis() - m.leavingSince();
    if (owned && waited < options.deleteTimeout().toMillis()) {
      context.owner().setTimer(DRAIN_CHECK_MILLIS, id -> drain(m));
      return;
    }
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
    keys.hostKeys();
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
    if (s != null && keys.isOurs(s)) {
      hostChanged.accept(new ServiceKey(host.name(), namespace, name));
    }
  }

  /** A member's Services: a change to Pier's copy (or to a Service where one belongs) runs keys. */
  private final class CopyHandler implements ResourceEventHandler<Service> {
    private final Member member;

    CopyHandler(Member member) {
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
            String ns = KeysToRun.ns(s);
            String name = KeysToRun.name(s);
            Service hostSvc = host.service(ns, name);
            if (keys.labelled(s) || (hostSvc != null && keys.isOurs(hostSvc))) {
              keys.add(new ServiceKey(member.name(), ns, name));
              if (aggregate && shards.runsMember(member.name())) {
                hostChanged.accept(new ServiceKey(host.name(), ns, name));
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
