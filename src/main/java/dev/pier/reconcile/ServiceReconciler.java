package dev.pier.reconcile;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.dns.publish.DnsSync;
import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.ServiceWrites.StatusWritten;
import dev.pier.leader.NotLeadingException;
import dev.pier.leader.WorkGate;
import dev.pier.log.ServiceLog;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.nodes.NodeSet;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.policy.NodeEligibility;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import dev.pier.reconcile.ReconcileDecision.Plan;
import dev.pier.reconcile.ReconcileDecision.StatusWrite;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One reconcile of one Service key, as upstream's service controller does it: add the cleanup
 * finalizer before creating anything, ensure the load balancer on the eligible nodes, write the
 * status only when it changed; on deletion or when the Service stops wanting a load balancer,
 * delete it, clear the status and remove the finalizer. {@link ReconcileDecision} decides; this
 * class carries the decision out as a flat list of named steps. Runs on the reconcile verticle's
 * context; the work queue guarantees that a key is never reconciled twice at once.
 *
 * <p>Fencing: a run checks the {@link LeaderGate} before each Service write and each provider call,
 * and stops with a {@link WorkResult.Outcome#FENCED} result (no Event, no backoff) once this
 * process no longer leads. Each Service write carries the resourceVersion of the Service the run
 * read (or of its own previous write), so a write based on a stale view gets a 409 and the key is
 * reconciled again from the newer Service.
 */
public final class ServiceReconciler {
  private static final ServiceLog log = ServiceLog.of(ServiceReconciler.class);
  static final int MAX_NODE_NAMES_TO_LOG = 20;

  /**
   * One run of one key: what every step needs, and the resourceVersion its next write is based on
   * (the read Service's, then each write's answer).
   */
  private static final class Run {
    final ServiceRef ref;
    final ClusterAccess cluster;
    final Service svc;
    final LbService view;
    final Set<WorkKind> kinds;
    String resourceVersion;

    Run(ServiceRef ref, ClusterAccess cluster, Service svc, LbService view, Set<WorkKind> kinds) {
      this.ref = ref;
      this.cluster = cluster;
      this.svc = svc;
      this.view = view;
      this.kinds = kinds;
      this.resourceVersion = svc.getMetadata().getResourceVersion();
    }

    ServiceRef ref() {
      return ref;
    }

    ClusterAccess cluster() {
      return cluster;
    }

    Service svc() {
      return svc;
    }

    LbService view() {
      return view;
    }

    Set<WorkKind> kinds() {
      return kinds;
    }

    ServiceKey key() {
      return view.key();
    }

    ObjectRef object() {
      return ObjectRef.of(ref);
    }

    EventSink events() {
      return cluster.events();
    }

    /** Keeps the resourceVersion a write answered with, for the next write of the run. */
    <T> T wrote(String newVersion, T value) {
      if (newVersion != null) {
        resourceVersion = newVersion;
      }
      return value;
    }
  }

  /** How long the cache may take to show a Service newer than a write's 409 said it was. */
  static final Duration CACHE_CATCH_UP = Duration.ofSeconds(15);

  private final Context ctx;
  private final Function<String, ? extends ClusterAccess> clusters;
  private final LoadBalancerProvider provider;
  private final ServiceFilter filter;
  private final NodeEligibility eligibility;
  private final PushedNodeSets pushed;
  private final DeletedServices deleted;
  private final DnsSync dns;
  private final WorkGate gate;
  private final Map<ServiceKey, StatusWrite> statusWrites = new HashMap<>();
  // The status of each load balancer ensured by this process: what DNS-only runs publish.
  private final Map<ServiceKey, LbStatus> ensured = new HashMap<>();
  // Services of a class Pier does not own that were reported, by key and uid: once each.
  private final Map<ServiceKey, String> reportedClassNotOwned = new HashMap<>();
  // Services (by uid) whose load balancer this process failed to delete: only for them is the
  // abandon annotation honoured.
  private final Map<ServiceKey, String> deleteFailed = new HashMap<>();

  /**
   * @param clusters the cluster of a name, or null for an unknown one
   * @param dns publishes DNS names after the load balancer work of a run, or null for none
   * @param gate open while this process may write (it leads)
   */
  public ServiceReconciler(
      Context ctx,
      Function<String, ? extends ClusterAccess> clusters,
      LoadBalancerProvider provider,
      ServiceFilter filter,
      NodeEligibility eligibility,
      PushedNodeSets pushed,
      DeletedServices deleted,
      DnsSync dns,
      WorkGate gate) {
    this.ctx = ctx;
    this.gate = gate;
    this.clusters = clusters;
    this.provider = provider;
    this.filter = filter;
    this.eligibility = eligibility;
    this.pushed = pushed;
    this.deleted = deleted;
    this.dns = dns;
  }

  public Future<WorkResult> reconcile(WorkItem<ServiceKey> item) {
    ServiceKey key = item.key();
    if (!gate.isOpen(key)) {
      return Future.succeededFuture(Outcomes.fenced(item.kinds()));
    }
    ClusterAccess cluster = clusters.apply(key.cluster());
    if (cluster == null) {
      log.warn(ServiceRef.of(key, null), "unknown cluster {}, dropped", key.cluster());
      return Future.succeededFuture(WorkResult.success());
    }
    Service svc = cluster.service(key.namespace(), key.name());
    Service lastSeen = deleted.get(key);
    Plan plan =
        ReconcileDecision.plan(
            filter.forCluster(key.cluster()),
            svc,
            lastSeen,
            item.kinds(),
            pushed.get(key) != null,
            ensured.containsKey(key));
    Future<WorkResult> result =
        svc == null
            ? goneWithoutFinalizer(cluster, key, lastSeen)
            : before(plan, cluster, key, svc, lastSeen)
                .compose(v -> carryOut(plan, run(cluster, svc, item.kinds())));
    return dns == null ? result : result.compose(r -> syncDns(item, cluster, key, r));
  }

  /**
   * Forgets what this process remembers of the keys {@code which} matches (what it ensured, the
   * node sets it pushed): their shard moved to another replica, and what that one does meanwhile
   * makes this memory stale.
   */
  public void forget(Predicate<ServiceKey> which) {
    ensured.keySet().removeIf(which);
    pushed.forget(which);
  }

  /** Whether this process ensured the key's load balancer (and has not cleaned it up since). */
  public boolean hasEnsured(ServiceKey key) {
    return ensured.containsKey(key);
  }

  private static Run run(ClusterAccess cluster, Service svc, Set<WorkKind> kinds) {
    return new Run(
        Views.ref(cluster.name(), svc), cluster, svc, Views.service(cluster.name(), svc), kinds);
  }

  private Future<WorkResult> carryOut(Plan plan, Run run) {
    return switch (plan.action()) {
      case CLEANUP -> cleanup(run);
      case NOT_WANTED -> {
        ensured.remove(run.key());
        yield Future.succeededFuture(WorkResult.success());
      }
      case ALREADY_ENSURED -> Future.succeededFuture(WorkResult.success());
      case UPDATE_HOSTS -> updateHosts(run);
      case ENSURE -> ensure(run);
      case CLASS_NOT_OWNED -> classNotOwned(run);
      case CLEANUP_IF_PRESENT -> cleanupIfPresent(run);
      case VERIFY -> verify(run);
      case FORGET, DELETE_LAST_SEEN ->
          throw new IllegalStateException(plan.action() + " for a cached Service");
    };
  }

  // --- ensure: finalizer, provider, status -------------------------------------------------

  private Future<WorkResult> ensure(Run run) {
    long start = System.nanoTime();
    run.events()
        .normal(run.object(), EventReasons.ENSURING_LOAD_BALANCER, "Ensuring load balancer");
    List<LbNode> nodes = eligibility.select(run.cluster().nodes());
    return addFinalizer(run)
        .compose(v -> ensureLoadBalancer(run, nodes))
        .compose(result -> writeStatus(run, result.status()).map(result))
        .map(result -> ensured(run, result, nodes, start))
        .recover(e -> ensureFailed(run, e));
  }

  private Future<Void> addFinalizer(Run run) {
    return ServiceFilter.hasFinalizer(run.svc())
        ? Future.succeededFuture()
        : fenced(
                run.key(),
                "adding the finalizer",
                () -> run.cluster().writer().addFinalizer(ctx, run.key(), run.resourceVersion))
            .map(version -> run.wrote(version, null));
  }

  /** Makes a write or provider call only while this process leads; else fails, fenced. */
  private <T> Future<T> fenced(ServiceKey key, String what, Supplier<Future<T>> call) {
    return gate.guard(key, what, call);
  }

  private Future<EnsureResult> ensureLoadBalancer(Run run, List<LbNode> nodes) {
    warnIfNoNodes(run, nodes);
    pushed.record(run.key(), NodeSet.of(nodes));
    return fenced(
            run.key(),
            "ensuring the load balancer",
            () -> provider.ensureLoadBalancer(run.ref().cluster(), run.view(), nodes))
        .compose(result -> publishable(run, result));
  }

  /** Reports the provider's warnings; an answer without a status fails (and is retried). */
  private static Future<EnsureResult> publishable(Run run, EnsureResult result) {
    result.warnings().forEach(w -> run.events().warning(run.object(), w.reason(), w.message()));
    ProviderException unusable = ReconcileDecision.unusable(result);
    return unusable == null ? Future.succeededFuture(result) : Future.failedFuture(unusable);
  }

  /** Writes the status unless the Service already shows it (as the server stores it). */
  private Future<Void> writeStatus(Run run, LbStatus desired) {
    LbStatus current = run.view().status();
    StatusWrite last = statusWrites.get(run.key());
    if (!ReconcileDecision.statusWriteNeeded(current, desired, last)) {
      return Future.succeededFuture();
    }
    if (ReconcileDecision.replacesForeignIngress(current, desired, last)) {
      String message =
          "Replacing load balancer ingress "
              + ReconcileDecision.addresses(current)
              + ", which Pier did not write, with "
              + ReconcileDecision.addresses(desired);
      run.events().warning(run.object(), EventReasons.INGRESS_REPLACED, message);
      log.warn(run.ref(), "{}", message);
    }
    return fenced(
            run.key(),
            "writing the status",
            () -> run.cluster().writer().patchStatus(ctx, run.key(), desired, run.resourceVersion))
        .map(
            (StatusWritten written) -> {
              statusWrites.put(
                  run.key(), new StatusWrite(desired, written.status(), written.resourceVersion()));
              return run.wrote(written.resourceVersion(), null);
            });
  }

  private WorkResult ensured(Run run, EnsureResult result, List<LbNode> nodes, long start) {
    ensured.put(run.key(), result.status());
    run.events().normal(run.object(), EventReasons.ENSURED_LOAD_BALANCER, "Ensured load balancer");
    log.info(
        run.ref(),
        "ensured load balancer {} on {} node(s) in {} ms",
        ReconcileDecision.addresses(result.status()),
        nodes.size(),
        (System.nanoTime() - start) / 1_000_000);
    return WorkResult.success();
  }

  private Future<WorkResult> ensureFailed(Run run, Throwable e) {
    if (Outcomes.quiet(e)) {
      return quietly(run, e);
    }
    if (e instanceof ProviderException.ImplementedElsewhere) {
      ensured.remove(run.key());
      log.info(run.ref(), "load balancer implemented elsewhere: {}", e.getMessage());
      return Future.succeededFuture(WorkResult.success());
    }
    return failed(run, e);
  }

  // --- verification: repair drift ----------------------------------------------------------

  private Future<WorkResult> verify(Run run) {
    if (ReconcileDecision.cacheBehind(
        run.svc().getMetadata().getResourceVersion(), statusWrites.get(run.key()))) {
      log.debug(run.ref(), "verification skipped: the cache does not show the last status write");
      return Future.succeededFuture(WorkResult.success());
    }
    List<LbNode> nodes = eligibility.select(run.cluster().nodes());
    pushed.record(run.key(), NodeSet.of(nodes));
    return fenced(
            run.key(),
            "verifying the load balancer",
            () -> provider.verifyLoadBalancer(run.ref().cluster(), run.view(), nodes))
        .compose(
            verified ->
                publishable(run, verified.result())
                    .compose(
                        result -> {
                          reportRepairs(
                              run,
                              ReconcileDecision.repairs(
                                  verified, run.view().status(), statusWrites.get(run.key())));
                          return writeStatus(run, result.status()).map(result);
                        }))
        .map(
            result -> {
              ensured.put(run.key(), result.status());
              return WorkResult.success();
            })
        .recover(e -> ensureFailed(run, e));
  }

  private static void reportRepairs(Run run, List<String> repairs) {
    if (!repairs.isEmpty()) {
      String message = "Repaired load balancer drift: " + String.join("; ", repairs);
      run.events().warning(run.object(), EventReasons.REPAIRED_LOAD_BALANCER, message);
      log.warn(run.ref(), "{}", message);
    }
  }

  // --- node sync: hosts of an existing load balancer ----------------------------------------

  private Future<WorkResult> updateHosts(Run run) {
    List<LbNode> nodes = eligibility.select(run.cluster().nodes());
    NodeSet next = NodeSet.of(nodes);
    if (next.equals(pushed.get(run.key()))) {
      return Future.succeededFuture(WorkResult.success());
    }
    warnIfNoNodes(run, nodes);
    pushed.record(run.key(), next);
    return fenced(
            run.key(),
            "updating the load balancer's hosts",
            () -> provider.updateLoadBalancerHosts(run.ref().cluster(), run.view(), nodes))
        .map(v -> hostsUpdated(run, nodes))
        .recover(e -> updateHostsFailed(run, nodes, e));
  }

  private WorkResult hostsUpdated(Run run, List<LbNode> nodes) {
    run.events()
        .normal(
            run.object(),
            EventReasons.UPDATED_LOAD_BALANCER,
            "Updated load balancer with new hosts");
    log.info(run.ref(), "updated load balancer hosts ({} node(s))", nodes.size());
    return WorkResult.success();
  }

  /** A failed host update of a load balancer that still exists falls back to a full ensure. */
  private Future<WorkResult> updateHostsFailed(Run run, List<LbNode> nodes, Throwable e) {
    if (Outcomes.quiet(e)) {
      return quietly(run, e);
    }
    if (e instanceof ProviderException.ImplementedElsewhere) {
      return Future.succeededFuture(WorkResult.success());
    }
    if (!gate.isOpen(run.key())) {
      pushed.forget(run.key());
      return Future.succeededFuture(Outcomes.fenced(run.kinds()));
    }
    return provider
        .getLoadBalancer(run.ref().cluster(), run.view())
        .otherwise(Optional.of(LbStatus.EMPTY))
        .map(
            existing -> {
              if (existing.isEmpty()) {
                return WorkResult.success();
              }
              run.events()
                  .warning(
                      run.object(),
                      EventReasons.UPDATE_LOAD_BALANCER_FAILED,
                      "Error updating load balancer with new hosts "
                          + nodeNames(nodes)
                          + ": "
                          + Outcomes.describe(e));
              log.warn(
                  run.ref(),
                  "updating load balancer hosts failed, retrying with a full sync: {}",
                  Outcomes.describe(e));
              pushed.forget(run.key());
              return WorkResult.retry(Set.of(WorkKind.RECONCILE));
            });
  }

  // --- cleanup: load balancer, status, finalizer --------------------------------------------

  private Future<WorkResult> cleanup(Run run) {
    boolean deleting = run.svc().getMetadata().getDeletionTimestamp() != null;
    return deleteAndClearStatus(run)
        .compose(
            v ->
                fenced(
                    run.key(),
                    "removing the finalizer",
                    () ->
                        run.cluster()
                            .writer()
                            .removeFinalizer(ctx, run.key(), run.resourceVersion)))
        .map(v -> deleted(run, deleting ? "Service deleted" : "no longer type LoadBalancer"))
        .recover(e -> deleteFailed(run, e));
  }

  /** The load balancer goes (unless abandoned), then the status of a Service that lives on. */
  private Future<Void> deleteAndClearStatus(Run run) {
    if (!gate.isOpen(run.key())) {
      return Future.failedFuture(new NotLeadingException("deleting"));
    }
    run.events()
        .normal(run.object(), EventReasons.DELETING_LOAD_BALANCER, "Deleting load balancer");
    return deleteLoadBalancer(run).compose(v -> clearStatus(run));
  }

  private WorkResult deleted(Run run, String why) {
    forget(run.key());
    run.events().normal(run.object(), EventReasons.DELETED_LOAD_BALANCER, "Deleted load balancer");
    log.info(run.ref(), "deleted load balancer ({})", why);
    return WorkResult.success();
  }

  /** Deletes the load balancer of a Service without the finalizer, if the provider has one. */
  private Future<WorkResult> cleanupIfPresent(Run run) {
    ensured.remove(run.key());
    return fenced(
            run.key(),
            "looking up the load balancer",
            () -> provider.getLoadBalancer(run.ref().cluster(), run.view()))
        .compose(
            existing -> {
              if (existing.isEmpty()) {
                forget(run.key());
                return Future.succeededFuture(WorkResult.success());
              }
              return deleteAndClearStatus(run)
                  .map(v -> deleted(run, "no longer type LoadBalancer, finalizer removed by hand"));
            })
        .recover(e -> deleteFailed(run, e));
  }

  /**
   * Deletes the load balancer, unless the operator abandoned it after a deletion failed: the
   * annotation exists for a load balancer the provider will not delete, and honoured on any
   * deletion it would let a tenant keep cloud load balancers (and their bills) after their Services
   * are gone.
   */
  private Future<Void> deleteLoadBalancer(Run run) {
    boolean failedBefore = run.ref().uid().equals(deleteFailed.get(run.key()));
    if (!ReconcileDecision.abandoned(run.svc()) || !failedBefore) {
      return fenced(
          run.key(),
          "deleting the load balancer",
          () -> provider.ensureLoadBalancerDeleted(run.ref().cluster(), run.view()));
    }
    String message =
        "Not deleting the load balancer: abandoned by the annotation "
            + ReconcileDecision.ABANDON_ANNOTATION
            + "; delete it by hand if it still exists";
    run.events().warning(run.object(), EventReasons.LOAD_BALANCER_ABANDONED, message);
    log.warn(run.ref(), "{}", message);
    return Future.succeededFuture();
  }

  /** A failed deletion keeps the finalizer and is retried, whatever the provider said. */
  private Future<WorkResult> deleteFailed(Run run, Throwable e) {
    if (Outcomes.quiet(e)) {
      return quietly(run, e);
    }
    WorkResult r = ReconcileDecision.afterDeleteFailure(e, run.kinds());
    if (r.outcome() == WorkResult.Outcome.SUCCESS) {
      return Future.succeededFuture(r);
    }
    deleteFailed.put(run.key(), run.ref().uid());
    String why = Outcomes.describe(e);
    run.events()
        .warning(
            run.object(),
            EventReasons.DELETE_LOAD_BALANCER_FAILED,
            "Error deleting load balancer: "
                + why
                + (e instanceof ProviderException.InvalidInput
                    ? " (retrying; to give up on this load balancer, annotate the Service "
                        + ReconcileDecision.ABANDON_ANNOTATION
                        + "=true)"
                    : ""));
    log.warn(run.ref(), "deleting load balancer failed, retrying: {}", why);
    return Future.succeededFuture(r);
  }

  /** A Service of a class Pier does not own keeps everything; it is reported once. */
  private Future<WorkResult> classNotOwned(Run run) {
    if (!run.ref().uid().equals(reportedClassNotOwned.put(run.key(), run.ref().uid()))) {
      String message =
          "spec.loadBalancerClass '"
              + run.svc().getSpec().getLoadBalancerClass()
              + "' is not one of Pier's loadBalancerClasses: Pier leaves this Service's load"
              + " balancer, status and finalizer alone (add the class to loadBalancerClasses if"
              + " Pier should serve it)";
      run.events().warning(run.object(), EventReasons.CLASS_NOT_OWNED, message);
      log.warn(run.ref(), "{}", message);
    }
    return Future.succeededFuture(WorkResult.success());
  }

  private Future<Void> clearStatus(Run run) {
    return ReconcileDecision.clearStatusOnCleanup(run.svc(), run.view().status())
        ? fenced(
                run.key(),
                "clearing the status",
                () -> run.cluster().writer().clearStatus(ctx, run.key(), run.resourceVersion))
            .map(version -> run.wrote(version, null))
        : Future.succeededFuture();
  }

  // --- Services deleted without the finalizer -----------------------------------------------

  private Future<WorkResult> goneWithoutFinalizer(
      ClusterAccess cluster, ServiceKey key, Service lastSeen) {
    forget(key);
    if (lastSeen == null) {
      return Future.succeededFuture(WorkResult.success());
    }
    return deleteLastSeen(cluster, key, lastSeen)
        .onSuccess(
            r -> {
              if (r.outcome() == WorkResult.Outcome.SUCCESS) {
                deleted.forget(key, lastSeen);
              }
            });
  }

  /** Before the plan's action: the tombstone of a re-created Service's predecessor. */
  private Future<Void> before(
      Plan plan, ClusterAccess cluster, ServiceKey key, Service svc, Service lastSeen) {
    if (plan.forgetLastSeen()) {
      deleted.forget(key, lastSeen);
    }
    if (!plan.deleteLastSeenFirst()) {
      return Future.succeededFuture();
    }
    return deleteLastSeen(cluster, key, lastSeen)
        .compose(
            r -> {
              if (r.outcome() == WorkResult.Outcome.FENCED) {
                return Future.failedFuture(new NotLeadingException("deleting the predecessor"));
              }
              if (r.outcome() != WorkResult.Outcome.SUCCESS) {
                return Future.failedFuture(
                    new ProviderException.Retry("load balancer of the deleted Service remains"));
              }
              deleted.forget(key, lastSeen);
              return Future.succeededFuture();
            });
  }

  private Future<WorkResult> deleteLastSeen(ClusterAccess cluster, ServiceKey key, Service last) {
    ServiceRef ref = Views.ref(cluster.name(), last);
    ObjectRef object = ObjectRef.of(ref);
    EventSink events = cluster.events();
    if (!gate.isOpen(key)) {
      return Future.succeededFuture(Outcomes.fenced(Set.of(WorkKind.RECONCILE)));
    }
    events.normal(object, EventReasons.DELETING_LOAD_BALANCER, "Deleting load balancer");
    return fenced(
            key,
            "deleting the load balancer",
            () ->
                provider.ensureLoadBalancerDeleted(
                    cluster.name(), Views.service(cluster.name(), last)))
        .map(
            v -> {
              events.normal(object, EventReasons.DELETED_LOAD_BALANCER, "Deleted load balancer");
              log.info(ref, "deleted load balancer (Service deleted without finalizer)");
              return WorkResult.success();
            })
        .recover(
            e -> {
              if (e instanceof NotLeadingException) {
                return Future.succeededFuture(Outcomes.fenced(Set.of(WorkKind.RECONCILE)));
              }
              events.warning(
                  object,
                  EventReasons.DELETE_LOAD_BALANCER_FAILED,
                  "Error deleting load balancer: " + Outcomes.describe(e));
              log.warn(ref, "deleting load balancer failed: {}", Outcomes.describe(e));
              return Future.succeededFuture(
                  ReconcileDecision.afterDeleteFailure(e, Set.of(WorkKind.RECONCILE)));
            });
  }

  // --- DNS, failures, bookkeeping ------------------------------------------------------------

  /**
   * DNS after the load balancer work of the same run, so both share the key's serialization. A DNS
   * failure retries only the DNS work: load balancers never wait for the DNS server.
   */
  private Future<WorkResult> syncDns(
      WorkItem<ServiceKey> item, ClusterAccess cluster, ServiceKey key, WorkResult lb) {
    boolean asked =
        item.kinds().contains(WorkKind.RECONCILE) || item.kinds().contains(WorkKind.DNS);
    if (!asked || lb.outcome() != WorkResult.Outcome.SUCCESS) {
      return Future.succeededFuture(lb);
    }
    if (!gate.isOpen(key)) {
      return Future.succeededFuture(Outcomes.fenced(item.kinds()));
    }
    Service svc = cluster.service(key.namespace(), key.name());
    LbStatus status = svc == null ? null : ensured.get(key);
    return dns.sync(cluster, key, svc, status == null ? LbStatus.EMPTY : status);
  }

  /**
   * A run that stopped for a reason that is no error to report: this process stopped leading
   * (fenced), or the Service changed since it was read (409, reconciled again from the newer one).
   */
  private Future<WorkResult> quietly(Run run, Throwable e) {
    WorkResult r = Outcomes.forFailure(e, run.kinds());
    if (r.outcome() == WorkResult.Outcome.FENCED) {
      // What the run recorded as pushed may not have been: the next leader's run pushes again.
      pushed.forget(run.key());
      log.info(run.ref(), "stopped: {}", Outcomes.describe(e));
    } else {
      log.info(
          run.ref(),
          "the Service changed since it was read, reconciling again: {}",
          Outcomes.describe(e));
      checkCacheCaughtUp(run);
    }
    return Future.succeededFuture(r);
  }

  /**
   * After a 409 the cache must show a newer Service within moments (the change that made the write
   * conflict, or this run's own earlier write). Still the version the run read {@link
   * #CACHE_CATCH_UP} later: the cache missed events, and the cluster lists again.
   */
  private void checkCacheCaughtUp(Run run) {
    String read = run.svc().getMetadata().getResourceVersion();
    if (ctx == null || read == null) {
      return;
    }
    ServiceKey key = run.key();
    ClusterAccess cluster = run.cluster();
    ctx.owner()
        .setTimer(
            CACHE_CATCH_UP.toMillis(),
            id -> {
              Service now = cluster.service(key.namespace(), key.name());
              if (now != null && read.equals(now.getMetadata().getResourceVersion())) {
                cluster.cacheMissedEvents(key.namespace(), key.name(), read);
              }
            });
  }

  private Future<WorkResult> failed(Run run, Throwable e) {
    if (Outcomes.quiet(e)) {
      return quietly(run, e);
    }
    WorkResult r = ReconcileDecision.afterFailure(e, run.kinds());
    String why = Outcomes.describe(e);
    run.events()
        .warning(
            run.object(),
            ReconcileDecision.failureReason(e),
            "Error syncing load balancer: " + why);
    switch (r.outcome()) {
      case PERMANENT -> log.warn(run.ref(), "invalid: {} (waiting for the Service to change)", why);
      case RETRY_AFTER -> log.warn(run.ref(), "sync failed, retrying in {}: {}", r.delay(), why);
      default -> log.warn(run.ref(), "sync failed, retrying with backoff: {}", why);
    }
    return Future.succeededFuture(r);
  }

  private void warnIfNoNodes(Run run, List<LbNode> nodes) {
    if (nodes.isEmpty()) {
      run.events()
          .warning(
              run.object(),
              EventReasons.NO_AVAILABLE_NODES,
              "There are no available nodes for LoadBalancer");
    }
  }

  private void forget(ServiceKey key) {
    reportedClassNotOwned.remove(key);
    deleteFailed.remove(key);
    pushed.forget(key);
    statusWrites.remove(key);
    ensured.remove(key);
  }

  static String nodeNames(List<LbNode> nodes) {
    String names =
        nodes.stream()
            .limit(MAX_NODE_NAMES_TO_LOG)
            .map(LbNode::name)
            .collect(Collectors.joining(", ", "[", "]"));
    return names + " (total number of nodes: " + nodes.size() + ")";
  }
}
