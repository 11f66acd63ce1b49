package dev.pier.federation.sync;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.ServingCluster;
import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.federation.ArrivalWait;
import dev.pier.federation.CopyApply;
import dev.pier.federation.CopyState;
import dev.pier.federation.Federated;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.HeldMembers;
import dev.pier.federation.IngressAggregate;
import dev.pier.federation.IngressAnnotation;
import dev.pier.federation.LeavePolicy;
import dev.pier.federation.MemberServices;
import dev.pier.federation.Placement;
import dev.pier.federation.Topology;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.FederationWrites;
import dev.pier.kube.KubeApiException;
import dev.pier.log.ServiceLog;
import dev.pier.model.FederationKeys;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ResourceVersions;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.policy.DeletionGuard;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * One federated Service's runs. A key of the host cluster aggregates: it keeps the federation's
 * finalizer, computes the status and the ingress annotation from the members' caches (never calling
 * a member), and releases the host Service once its copies are gone. A key of member X propagates:
 * it makes X's copy match the host Service, or deletes the copy Pier owns there when X left the
 * Service's placement. Work for a member runs only while it is ready, so one slow member never
 * delays the others.
 */
final class FederationReconciler {
  private static final ServiceLog log = ServiceLog.of(FederationReconciler.class);
  private static final Duration WAIT_FOR_COPIES = Duration.ofSeconds(2);
  // A deletion the guard holds is asked again this often (it goes once the window has room).
  private static final Duration HELD_RECHECK = Duration.ofMinutes(1);
  // A host write that met a newer version (409) runs again soon, on what the Service is now.
  private static final Duration CONFLICT_RETRY = Duration.ofSeconds(1);
  // A member's copy that could not be read (its owner moving) is asked again this soon.
  private static final Duration UNKNOWN_RETRY = Duration.ofSeconds(2);

  /**
   * With memberScope namespaces: how soon a copy waits again for a namespace the member lacks (or
   * has no Role in), which only someone else can make.
   */
  static final Duration MISSING_NAMESPACE_RETRY = Duration.ofSeconds(10);

  private static final Set<WorkKind> RUN = Set.of(WorkKind.RECONCILE);
  private static final HeldMembers.Decision NOT_HOLDING =
      HeldMembers.decide(List.of(), 0, Duration.ZERO, 0);

  private final Context ctx;
  private final ClusterAccess host;
  private final Members members;
  private final FederationOptions options;
  private final Consumer<ServiceKey> enqueue;
  private final LongSupplier clock;
  private final FederatedNames dns;
  private final HeldNames heldNames;
  private final DeletionGuard guard;
  private final Predicate<String> labelledNamespace;
  private final CopyReader copies;

  /**
   * The resourceVersion each copy (member/uid) had after Pier's last apply to it, until the cache
   * shows that version: a run on an older cache would apply again for nothing.
   */
  private final Map<String, String> copyWrites = new HashMap<>();

  /** Namespaces (member/namespace) being created: the copies for them wait for that create. */
  private final Map<String, Future<Void>> creatingNamespaces = new HashMap<>();

  /** When each host Service's aggregate was first found waiting for a member's address. */
  private final Map<ServiceKey, Long> incompleteSince = new HashMap<>();

  /**
   * @param ctx the context writes complete on
   * @param dns publishes the federated Services' names, or null without DNS
   * @param heldNames the Services whose names are held as last seen, for the metric
   * @param guard holds copy deletions that no one asked for (placement changes, copies of host
   *     Services that are gone) beyond its limit
   */
  FederationReconciler(
      Context ctx,
      ClusterAccess host,
      Members members,
      FederationOptions options,
      Consumer<ServiceKey> enqueue,
      LongSupplier clock,
      FederatedNames dns,
      HeldNames heldNames,
      DeletionGuard guard,
      Predicate<String> labelledNamespace,
      CopyReader copies) {
    this.ctx = ctx;
    this.copies = copies == null ? this::localCopy : copies;
    this.guard = guard;
    // With memberScope namespaces the members' Roles are per listed namespace: a label is not
    // enough to reach them.
    this.labelledNamespace = options.namespacedMembers() ? ns -> false : labelledNamespace;
    this.dns = dns;
    this.heldNames = heldNames;
    this.host = host;
    this.members = members;
    this.options = options;
    this.enqueue = enqueue;
    this.clock = clock;
  }

  Future<WorkResult> run(ServiceKey key) {
    if (key.cluster().equals(host.name())) {
      return aggregate(key);
    }
    Member member = members.get(key.cluster());
    if (member == null || !member.ready()) {
      // A member that left has nothing to do; one that turns ready gets every key again.
      return Future.succeededFuture(WorkResult.success());
    }
    if (!member.access().servicesSynced(key.namespace())) {
      // Its Services turning read runs every key again; a namespace read on its own that the
      // member does not let Pier read is waited for here.
      return options.namespacedMembers()
          ? unreadNamespace(member, key)
          : Future.succeededFuture(WorkResult.success());
    }
    return propagate(member, key);
  }

  boolean federated(Service svc) {
    return svc != null && Federated.isFederated(svc, options.namespaces());
  }

  /** Whether the Service's namespace is opted in (or opt-in is off). */
  private boolean allowed(Service svc) {
    return Federated.allowedFrom(
        svc.getMetadata().getNamespace(),
        options.namespaceOptIn(),
        options.namespaces(),
        labelledNamespace);
  }

  /**
   * Federation asked for in a namespace not opted in: nothing is created, changed or deleted for it
   * (copies made before stay as they are), and the Service says why.
   */
  private boolean refused(Service hostSvc) {
    return hostSvc != null
        && federated(hostSvc)
        && hostSvc.getMetadata().getDeletionTimestamp() == null
        && !allowed(hostSvc);
  }

  /** Whose a member Service is: this federation's and this host's, someone else's, or none. */
  MemberServices.Ownership ownership(Service copy) {
    return MemberServices.ownership(copy, options.name(), host.identity().uid());
  }

  /** How many copies Pier owns in every member: what the deletion guard's share is of. */
  private int ownedCopies() {
    int n = 0;
    for (Member m : members.all()) {
      n += ownedCopies(m);
    }
    return n;
  }

  /** How many copies Pier owns in the member, as its caches in this replica show them. */
  int ownedCopies(Member m) {
    return CopyReader.owned(m, this::ownership);
  }

  /** The member's copy as its caches in this replica show it. */
  Future<CopyState> localCopy(Member m, String namespace, String name) {
    return Future.succeededFuture(CopyReader.local(m, namespace, name, this::ownership));
  }

  /**
   * The copies of one Service read from its members.
   *
   * @param known by member
   * @param unknown members whose copy could not be read (the owner moving or unreachable), with why
   */
  private record Copies(Map<String, CopyState> known, Map<String, String> unknown) {}

  /** The copies of the key's Service in {@code clusters}; a read never fails the whole. */
  private Future<Copies> readCopies(ServiceKey key, Iterable<String> clusters) {
    Map<String, Future<CopyState>> reads = new java.util.TreeMap<>();
    for (String name : clusters) {
      Member m = members.get(name);
      if (m != null) {
        reads.put(name, copies.read(m, key.namespace(), key.name()));
      }
    }
    return Future.join(new ArrayList<>(reads.values()))
        .transform(
            all -> {
              Map<String, CopyState> known = new HashMap<>();
              Map<String, String> unknown = new java.util.TreeMap<>();
              reads.forEach(
                  (name, f) -> {
                    if (f.succeeded()) {
                      known.put(name, f.result());
                    } else {
                      unknown.put(name, String.valueOf(f.cause().getMessage()));
                    }
                  });
              return Future.succeededFuture(new Copies(known, unknown));
            });
  }

  /** A member's copy could not be read: nothing is written until it can be. */
  private Future<WorkResult> unknownCopies(Service svc, Map<String, String> unknown) {
    // Retried every few seconds while a member's owner moves: worth a line only when debugging.
    log.debug(
        ref(svc),
        "waiting to aggregate: the copies in {} cannot be read now ({}); status and names stay as"
            + " they are",
        unknown.keySet(),
        String.join("; ", unknown.values()));
    return Future.succeededFuture(WorkResult.retryAfter(UNKNOWN_RETRY, RUN));
  }

  // ---- member side ----

  /**
   * With memberScope namespaces, the key's namespace cannot be read in the member (yet): a Service
   * placed there gets no copy, and, once a list of the namespace failed, a Warning that names the
   * member, the namespace and why. Pier never creates the namespace; it looks again later.
   */
  private Future<WorkResult> unreadNamespace(Member member, ServiceKey key) {
    Service hostSvc = host.service(key.namespace(), key.name());
    String why = member.access().servicesUnreadable(key.namespace());
    if (why != null && !refused(hostSvc) && wanted(hostSvc, member)) {
      return namespaceMissing(hostSvc, member, key.namespace(), why);
    }
    return Future.succeededFuture(WorkResult.retryAfter(MISSING_NAMESPACE_RETRY, RUN));
  }

  /** Warns that the member's namespace cannot take the copy, and looks again later. */
  private Future<WorkResult> namespaceMissing(
      Service hostSvc, Member member, String namespace, String why) {
    event(
        hostSvc,
        EventSink.WARNING,
        EventReasons.MEMBER_NAMESPACE_UNREADABLE,
        member,
        "not copied: Pier cannot read or write namespace "
            + namespace
            + " there ("
            + why
            + "). With federation.memberScope namespaces Pier creates no namespace in a member:"
            + " create it there and bind the Role of k8s/rbac-federation-member-namespaced.yaml in"
            + " it; the copy follows");
    return Future.succeededFuture(WorkResult.retryAfter(MISSING_NAMESPACE_RETRY, RUN));
  }

  private Future<WorkResult> propagate(Member member, ServiceKey key) {
    Service hostSvc = host.service(key.namespace(), key.name());
    if (refused(hostSvc)) {
      return done();
    }
    Service copy = member.access().service(key.namespace(), key.name());
    MemberServices.Ownership ownership = ownership(copy);
    if (wanted(hostSvc, member)) {
      return ensureCopy(member, hostSvc, copy, ownership);
    }
    if (ownership != MemberServices.Ownership.OWNED) {
      if (hostSvc != null) {
        // Answers "why is there no copy in this member?" when debugging placement.
        log.debug(
            ref(hostSvc),
            "no copy wanted in {} ({}), nothing to write",
            member.name(),
            ownership == MemberServices.Ownership.ABSENT
                ? "none there"
                : "a Service there that is not the federation's");
      }
      return done();
    }
    boolean orphanedByLeave = member.leaving() && member.leavePolicy() == LeavePolicy.ORPHAN;
    if (orphanedByLeave
        || (hostSvc != null
            && hostSvc.getMetadata().getDeletionTimestamp() != null
            && Federated.orphanOnDelete(hostSvc))) {
      return writes(member)
          .replace(ctx, MemberServices.orphaned(copy))
          .map(
              v -> {
                if (hostSvc != null) {
                  event(
                      hostSvc,
                      EventSink.NORMAL,
                      EventReasons.ORPHANED_IN_CLUSTER,
                      member,
                      orphanedByLeave
                          ? "left the federation; its copy stays in place without Pier's marks"
                          : "left in place");
                }
                return WorkResult.success();
              })
          .recover(e -> failed(hostSvc, member, "orphan", e));
    }
    if (copy.getMetadata().getDeletionTimestamp() != null) {
      // Deleted already, and held by finalizers in the member: deleting again changes nothing.
      if (hostSvc != null) {
        event(
            hostSvc,
            EventSink.WARNING,
            EventReasons.COPY_TERMINATING,
            member,
            "its copy is being deleted, held by finalizers "
                + copy.getMetadata().getFinalizers()
                + " there; Pier waits for them"
                + (hostSvc.getMetadata().getDeletionTimestamp() != null
                    ? " (for at most federation.deleteTimeout)"
                    : ""));
      }
      return done();
    }
    boolean asked =
        (hostSvc != null && hostSvc.getMetadata().getDeletionTimestamp() != null)
            || (member.leaving() && member.leavePolicy() == LeavePolicy.DELETE_COPIES);
    if (!asked
        && !guard.allow(
            "copy " + key.namespace() + "/" + key.name() + " in cluster " + member.name(),
            ownedCopies())) {
      String message =
          "its copy is not deleted although placement no longer includes it: held by the"
              + " deletion guard until deletionGuard.confirm";
      if (hostSvc != null) {
        event(hostSvc, EventSink.WARNING, EventReasons.DELETION_HELD, member, message);
      } else {
        log.warn(
            new ServiceRef(member.name(), key.namespace(), key.name(), uid(copy)),
            "copy of a federated Service that no longer exists is not deleted: held by the"
                + " deletion guard until deletionGuard.confirm");
      }
      return Future.succeededFuture(WorkResult.retryAfter(HELD_RECHECK, RUN));
    }
    return writes(member)
        .delete(ctx, copy)
        .map(
            deletedNow -> {
              if (!deletedNow) {
                return WorkResult.success();
              }
              if (hostSvc != null) {
                event(
                    hostSvc, EventSink.NORMAL, EventReasons.DELETED_IN_CLUSTER, member, "deleted");
              } else {
                ServiceRef ref =
                    new ServiceRef(member.name(), key.namespace(), key.name(), uid(copy));
                log.info(ref, "deleted: the federated Service it copied no longer exists");
                member
                    .access()
                    .events()
                    .normal(
                        ObjectRef.of(ref),
                        EventReasons.DELETED_ORPHANED_COPY,
                        "Deleted by Pier: the federated Service "
                            + key.namespace()
                            + "/"
                            + key.name()
                            + " in cluster "
                            + host.name()
                            + " no longer exists");
              }
              return WorkResult.success();
            })
        .recover(e -> failed(hostSvc, member, "delete", e));
  }

  /** Federated, not being deleted, and placed in this member. */
  private boolean wanted(Service hostSvc, Member member) {
    if (!federated(hostSvc)
        || hostSvc.getMetadata().getDeletionTimestamp() != null
        || member.leaving()) {
      return false;
    }
    return Placement.of(hostSvc, members.infos()).clusters().contains(member.name());
  }

  private Future<WorkResult> ensureCopy(
      Member member, Service hostSvc, Service copy, MemberServices.Ownership ownership) {
    Service desired =
        MemberServices.desired(hostSvc, options.name(), host.identity().uid(), uid(hostSvc));
    switch (ownership) {
      case FOREIGN -> {
        event(
            hostSvc,
            EventSink.WARNING,
            EventReasons.FEDERATION_CONFLICT,
            member,
            "not created: a Service of the same name that Pier did not create exists there; it is"
                + " left untouched");
        return done();
      }
      case ABSENT -> {
        String ns = hostSvc.getMetadata().getNamespace();
        JsonObject config = MemberServices.config(desired);
        // The namespace is created only when the member says it is missing: one write, not two.
        FederationWrites writes = writes(member);
        Future<Void> creating = creatingNamespaces.get(namespaceKey(member, ns));
        Future<Void> ready = creating == null ? Future.succeededFuture() : creating;
        return ready
            .transform(ar -> writes.create(ctx, config))
            .recover(
                e ->
                    KubeApiException.notFound(e) && !options.namespacedMembers()
                        ? createNamespace(member, ns).compose(v -> writes.create(ctx, config))
                        : Future.failedFuture(e))
            .map(
                v -> {
                  event(
                      hostSvc,
                      EventSink.NORMAL,
                      EventReasons.CREATED_IN_CLUSTER,
                      member,
                      "created");
                  return WorkResult.success();
                })
            .recover(
                e -> {
                  if (KubeApiException.notFound(e) && options.namespacedMembers()) {
                    return namespaceMissing(hostSvc, member, ns, "it does not exist there");
                  }
                  return failed(hostSvc, member, "create", e);
                });
      }
      default -> {
        String written = copyWrites.get(copyKey(member, copy));
        if (ResourceVersions.older(copy.getMetadata().getResourceVersion(), written)) {
          // The cache has not seen Pier's last write to this copy; its event runs the key again.
          return done();
        }
        copyWrites.remove(copyKey(member, copy));
        CopyApply.Change change = MemberServices.change(desired, copy);
        // Answers "why did Pier write this copy, or not?" when debugging; a test reads it as the
        // proof that a run of this very key decided on the copy as it is at that version.
        log.debug(
            new ServiceRef(
                member.name(),
                copy.getMetadata().getNamespace(),
                copy.getMetadata().getName(),
                uid(copy)),
            "copy at resourceVersion {}: {}",
            copy.getMetadata().getResourceVersion(),
            change == null
                ? "as the host wants it, nothing to write"
                : change.migrate()
                    ? "moving Pier's fields to its apply manager, then applying the host's"
                    : "applying the host's");
        if (change == null) {
          return done();
        }
        Future<Void> moved =
            change.migrate() ? migrate(member, copy, change.config()) : Future.succeededFuture();
        return moved
            .compose(v -> writes(member).apply(ctx, change.config(), uid(copy)))
            .onSuccess(version -> copyWrites.put(copyKey(member, copy), version))
            .map(
                v -> {
                  event(
                      hostSvc,
                      EventSink.NORMAL,
                      EventReasons.UPDATED_IN_CLUSTER,
                      member,
                      "updated");
                  return WorkResult.success();
                })
            .recover(
                e ->
                    fieldConflicts(e).isEmpty()
                        ? failed(hostSvc, member, "update", e)
                        : conflicted(hostSvc, member, fieldConflicts(e)));
      }
    }
  }

  /**
   * Creates a namespace a member said was missing, once: the copies for it that come meanwhile (a
   * cold start makes many at once) wait for this create instead of each answering 404 and trying it
   * again.
   */
  private Future<Void> createNamespace(Member member, String ns) {
    String key = namespaceKey(member, ns);
    Future<Void> inFlight = creatingNamespaces.get(key);
    if (inFlight != null) {
      return inFlight;
    }
    Future<Void> created =
        writes(member)
            .ensureNamespace(ctx, ns, options.name())
            .onComplete(ar -> creatingNamespaces.remove(key));
    if (!created.isComplete()) {
      creatingNamespaces.put(key, created);
    }
    return created;
  }

  /**
   * Moves Pier's earlier Update ownership of the copy to its apply manager, computed on the copy as
   * the member has it now (the cache keeps only Pier's entries; the move rewrites every one).
   */
  private Future<Void> migrate(Member member, Service copy, JsonObject config) {
    return writes(member)
        .read(ctx, copy)
        .compose(
            fresh -> {
              String uid = fresh.getJsonObject("metadata").getString("uid");
              if (!Objects.equals(uid, uid(copy))) {
                return Future.failedFuture(
                    new KubeApiException(409, "the copy was replaced since the cache saw it"));
              }
              JsonArray fields = CopyApply.migration(config, fresh);
              return fields == null
                  ? Future.succeededFuture()
                  : writes(member).migrate(ctx, fresh, fields);
            });
  }

  private static FederationWrites writes(Member member) {
    return member.access().federationWrites();
  }

  private static String namespaceKey(Member member, String ns) {
    return member.name() + "/" + ns;
  }

  private static String copyKey(Member member, Service copy) {
    return member.name() + "/" + uid(copy);
  }

  /**
   * Another manager in the member owns fields the host sets to other values. Pier does not take
   * them: the Warning says which and whose, and the copy is tried again at its next change (the
   * host's, the copy's, or a resync), not in a loop.
   */
  private Future<WorkResult> conflicted(Service hostSvc, Member member, List<String> fields) {
    event(
        hostSvc,
        EventSink.WARNING,
        EventReasons.COPY_FIELD_CONFLICT,
        member,
        "not updated: another controller there owns "
            + String.join(", ", fields)
            + "; Pier does not overwrite its fields. Set them on the host to the member's values,"
            + " or have that controller let go of them");
    return done();
  }

  private static List<String> fieldConflicts(Throwable e) {
    return e instanceof KubeApiException k ? k.fieldConflicts() : List.of();
  }

  private Future<WorkResult> failed(Service hostSvc, Member member, String what, Throwable e) {
    if (KubeApiException.conflict(e)) {
      // The cache was behind (a copy made or changed meanwhile): run again once it caught up.
      return Future.succeededFuture(WorkResult.retryAfter(CONFLICT_RETRY, RUN));
    }
    if (hostSvc != null) {
      event(
          hostSvc,
          EventSink.WARNING,
          EventReasons.SYNC_IN_CLUSTER_FAILED,
          member,
          what + " failed: " + e.getMessage());
    }
    return Future.succeededFuture(WorkResult.retry(RUN));
  }

  // ---- host side ----

  private Future<WorkResult> aggregate(ServiceKey key) {
    Service svc = host.service(key.namespace(), key.name());
    if (svc == null) {
      incompleteSince.remove(key);
      return done();
    }
    boolean hasFinalizer = Federated.hasFinalizer(svc);
    if (svc.getMetadata().getDeletionTimestamp() != null || !federated(svc)) {
      return hasFinalizer ? release(key, svc) : done();
    }
    if (refused(svc)) {
      host.events()
          .warning(
              ObjectRef.of(ref(svc)),
              EventReasons.FEDERATION_NOT_ALLOWED,
              "Not federated: namespace "
                  + key.namespace()
                  + " is not opted in to federation "
                  + options.name()
                  + " (label it "
                  + FederationKeys.FEDERATION_LABEL
                  + "="
                  + options.name()
                  + ", or list it in federation.namespaces); nothing is created, changed or"
                  + " deleted in the members for it"
                  + (options.namespacedMembers()
                      ? ". With federation.memberScope namespaces only federation.namespaces"
                          + " counts: list it there, and bind the members' Role in it"
                      : ""));
      return done();
    }
    String read = svc.getMetadata().getResourceVersion();
    Future<String> marked =
        hasFinalizer
            ? Future.succeededFuture(read)
            : host.federationWrites().addFinalizer(ctx, key, read);
    return marked
        .compose(version -> writeAggregate(key, svc, version))
        .recover(
            e -> {
              if (KubeApiException.conflict(e)) {
                // The Service changed since this run read it: run again on what it is now.
                return Future.succeededFuture(WorkResult.retryAfter(CONFLICT_RETRY, RUN));
              }
              log.warn(ref(svc), "aggregating status failed: {}", e.getMessage());
              return Future.succeededFuture(WorkResult.retry(RUN));
            });
  }

  /**
   * @param version the Service's version this run's writes are based on (the one it read, or its
   *     own previous write's)
   */
  private Future<WorkResult> writeAggregate(ServiceKey key, Service svc, String version) {
    Placement.Result placement = Placement.of(svc, members.infos());
    return readCopies(key, placement.clusters())
        .compose(
            read ->
                read.unknown().isEmpty()
                    ? writeAggregate(key, svc, version, placement, read.known())
                    : unknownCopies(svc, read.unknown()));
  }

  private Future<WorkResult> writeAggregate(
      ServiceKey key,
      Service svc,
      String version,
      Placement.Result placement,
      Map<String, CopyState> copies) {
    if (placement.problem() != null) {
      host.events()
          .warning(ObjectRef.of(ref(svc)), EventReasons.INVALID_PLACEMENT, placement.problem());
    }
    HeldMembers.Decision hold = hold(placement);
    if (!hold.holding()) {
      heldNames.release(key);
    } else {
      heldNames.hold(key, hold.since());
      warnHeld(svc, hold);
      if (hold.held().stream().anyMatch(n -> !copies.get(n).synced())) {
        // Not seen since Pier started: there is no last answer to hold, and nothing known to
        // change, so the status and the names stay as they are.
        return Future.succeededFuture(WorkResult.retryAfter(untilReleased(hold), RUN));
      }
    }
    List<IngressAggregate.MemberStatus> statuses = new ArrayList<>();
    for (String name : placement.clusters()) {
      Member m = members.get(name);
      CopyState copy = copies.get(name);
      if (m == null || copy == null) {
        continue;
      }
      if (!m.ready()) {
        host.events()
            .warning(
                ObjectRef.of(ref(svc)),
                EventReasons.CLUSTER_UNREACHABLE,
                "Cluster " + name + " is not ready: its copy is not kept in sync until it is");
      }
      statuses.add(
          new IngressAggregate.MemberStatus(
              name,
              m.ready() || hold.held().contains(name),
              copy.owned() ? Views.loadBalancerStatus(copy.status()) : null,
              copy.readyEndpoints()));
    }
    String previous = annotation(svc);
    IngressAggregate.Result result =
        IngressAggregate.compute(statuses, previous, options.unreadyClusters());
    LbStatus aggregate = Views.status(new LoadBalancerStatus(result.ingress()));
    Duration wait = arrivalWait(key, svc, statuses, aggregate);
    if (!wait.isZero()) {
      // A member's load balancer is on its way: its address joins these in one write.
      return Future.succeededFuture(WorkResult.retryAfter(wait, RUN));
    }
    Map<String, String> annotations = new java.util.LinkedHashMap<>();
    if (!Objects.equals(previous, result.annotation())
        // No entry yet and none before: nothing to write.
        && !(previous == null && IngressAnnotation.json(List.of()).equals(result.annotation()))) {
      annotations.put(FederationKeys.INGRESSES_ANNOTATION, result.annotation());
    }
    // The hold, where `pier status` reads it: written when it starts and ends, not each run.
    String heldSince = hold.holding() ? Instant.ofEpochMilli(hold.since()).toString() : null;
    if (!Objects.equals(heldSince, annotation(svc, FederationKeys.NAMES_HELD_ANNOTATION))) {
      annotations.put(FederationKeys.NAMES_HELD_ANNOTATION, heldSince);
    }
    Future<String> annotated =
        annotations.isEmpty()
            ? Future.succeededFuture(version)
            : host.federationWrites().annotate(ctx, key, annotations, version);
    return annotated
        .compose(
            v ->
                status(svc).shows(aggregate)
                    ? Future.succeededFuture(v)
                    : host.federationWrites().status(ctx, key, aggregate, v))
        .compose(v -> names(key, svc, placement, hold, copies))
        .map(
            r ->
                hold.holding() && r.outcome() == WorkResult.Outcome.SUCCESS
                    // Looked at again when the hold ends, if no readiness change came first.
                    ? WorkResult.retryAfter(untilReleased(hold), RUN)
                    : r);
  }

  /**
   * How long to wait before writing this aggregate ({@link ArrivalWait}): the placed members that
   * are ready and still have no address for a LoadBalancer Service are pending.
   */
  private Duration arrivalWait(
      ServiceKey key, Service svc, List<IngressAggregate.MemberStatus> statuses, LbStatus next) {
    Set<String> pending = new java.util.TreeSet<>();
    if (ServiceFilter.isLoadBalancer(svc)) {
      for (IngressAggregate.MemberStatus s : statuses) {
        Member m = members.get(s.cluster());
        if (m != null
            && m.ready()
            && (s.copy() == null
                || s.copy().getIngress() == null
                || s.copy().getIngress().isEmpty())) {
          pending.add(s.cluster());
        }
      }
    }
    if (pending.isEmpty()) {
      incompleteSince.remove(key);
      return Duration.ZERO;
    }
    long now = clock.getAsLong();
    return ArrivalWait.decide(
        pending,
        addresses(status(svc)),
        addresses(next),
        incompleteSince.computeIfAbsent(key, k -> now),
        now,
        options.aggregateWait());
  }

  private static Set<String> addresses(LbStatus status) {
    Set<String> out = new java.util.TreeSet<>();
    for (LbIngress i : status.ingress()) {
      out.add(i.ip() != null ? i.ip() : String.valueOf(i.hostname()));
    }
    return out;
  }

  /** The panic threshold over the members the Service is placed in, for this run. */
  private HeldMembers.Decision hold(Placement.Result placement) {
    List<HeldMembers.Placed> placed = new ArrayList<>();
    for (String name : placement.clusters()) {
      Member m = members.get(name);
      if (m != null) {
        placed.add(new HeldMembers.Placed(name, m.ready(), m.unreadySince()));
      }
    }
    return HeldMembers.decide(
        placed, options.panicThreshold(), options.maxHold(), clock.getAsLong());
  }

  private Duration untilReleased(HeldMembers.Decision hold) {
    return Duration.ofMillis(Math.max(1_000, hold.until() - clock.getAsLong()));
  }

  private void warnHeld(Service svc, HeldMembers.Decision hold) {
    host.events()
        .warning(
            ObjectRef.of(ref(svc)),
            EventReasons.FEDERATED_NAMES_HELD,
            "Only "
                + hold.reachable()
                + " of "
                + hold.placed()
                + " placed clusters are reachable (below federation.panicThreshold "
                + options.panicThreshold()
                + "%): clusters "
                + String.join(", ", new java.util.TreeSet<>(hold.held()))
                + " are kept as last seen in the status and DNS names since "
                + Instant.ofEpochMilli(hold.since())
                + ", for at most "
                + dev.pier.config.Durations.format(options.maxHold()));
  }

  /**
   * The federated Service's DNS names, from every placed member that has a load balancer for it:
   * its addresses count where the member is ready and its copy has ready endpoints, whatever {@code
   * unreadyClusters} keeps in the status: DNS steers traffic, so it never points at a member known
   * to be down.
   */
  private Future<WorkResult> names(
      ServiceKey key,
      Service svc,
      Placement.Result placement,
      HeldMembers.Decision hold,
      Map<String, CopyState> copies) {
    if (dns == null) {
      return Future.succeededFuture(WorkResult.success());
    }
    List<Future<ServingCluster>> serving = new ArrayList<>();
    for (String name : placement == null ? List.<String>of() : placement.clusters()) {
      Member m = members.get(name);
      CopyState copy = copies.get(name);
      if (m == null || copy == null || !copy.owned()) {
        continue;
      }
      Topology t = copy.topology();
      serving.add(
          dns.servingCluster(
              new ClusterLocation(m.name(), t.region(), t.zones()),
              copy.status().ingress(),
              (m.ready() || hold.held().contains(name)) && copy.readyEndpoints()));
    }
    return dns.syncFederated(key, svc, placement != null, serving);
  }

  /**
   * The host Service is being deleted or stopped being federated: its copies go (or, for an
   * orphaning deletion, lose the federation's marks), then the finalizer and the annotation go. A
   * member that stays unreachable holds the finalizer for at most the delete timeout.
   */
  private Future<WorkResult> release(ServiceKey key, Service svc) {
    List<String> all = members.all().stream().map(Member::name).toList();
    return readCopies(key, all).compose(read -> release(key, svc, read));
  }

  private Future<WorkResult> release(ServiceKey key, Service svc, Copies read) {
    Map<String, CopyState> copies = read.known();
    List<String> waiting = new ArrayList<>();
    // A member whose copy cannot be read now is waited for like one that is not ready.
    List<String> unreachable = new ArrayList<>(read.unknown().keySet());
    List<String> terminating = new ArrayList<>();
    for (Member m : members.all()) {
      CopyState copy = copies.get(m.name());
      if (copy == null || !copy.owned()) {
        continue;
      }
      if (!m.ready() || !copy.synced()) {
        unreachable.add(m.name());
      } else if (copy.terminating()) {
        // Held by finalizers in the member: waited for like an unreachable member, without
        // deleting it again; its removal runs this key again.
        terminating.add(m.name());
      } else {
        waiting.add(m.name());
        enqueue.accept(new ServiceKey(m.name(), key.namespace(), key.name()));
      }
    }
    if (!waiting.isEmpty()) {
      return Future.succeededFuture(WorkResult.retryAfter(WAIT_FOR_COPIES, RUN));
    }
    if (!unreachable.isEmpty() || !terminating.isEmpty()) {
      Duration left = timeLeft(svc);
      if (!left.isZero()) {
        // An unreachable member is polled; a terminating copy wakes this key when it goes.
        boolean poll = !unreachable.isEmpty() && left.compareTo(WAIT_FOR_COPIES) > 0;
        return Future.succeededFuture(WorkResult.retryAfter(poll ? WAIT_FOR_COPIES : left, RUN));
      }
      List<String> why = new ArrayList<>();
      if (!unreachable.isEmpty()) {
        why.add(
            "clusters "
                + String.join(", ", unreachable)
                + " are not ready (their copies are deleted when they are ready again)");
      }
      if (!terminating.isEmpty()) {
        why.add(
            "the copies in clusters "
                + String.join(", ", terminating)
                + " are still held by finalizers there");
      }
      String message =
          "Released after "
              + options.deleteTimeout().toSeconds()
              + "s although "
              + String.join(", and ", why);
      host.events().warning(ObjectRef.of(ref(svc)), EventReasons.DELETION_TIMED_OUT, message);
      log.warn(ref(svc), "{}", message);
    }
    return names(key, svc, null, NOT_HOLDING, Map.of())
        .compose(
            dnsDone ->
                dnsDone.outcome() != WorkResult.Outcome.SUCCESS
                    // Every name goes before the finalizer: none is left behind (k8s#36799).
                    ? Future.succeededFuture(dnsDone)
                    : host.federationWrites()
                        .release(ctx, key, svc.getMetadata().getResourceVersion())
                        .map(WorkResult.success()))
        .recover(
            e -> {
              if (KubeApiException.conflict(e)) {
                return Future.succeededFuture(WorkResult.retryAfter(CONFLICT_RETRY, RUN));
              }
              log.warn(ref(svc), "removing the federation's finalizer failed: {}", e.getMessage());
              return Future.succeededFuture(WorkResult.retry(RUN));
            });
  }

  /** Until the delete timeout after the deletion (or now, for a Service no longer federated). */
  private Duration timeLeft(Service svc) {
    String ts = svc.getMetadata().getDeletionTimestamp();
    if (ts == null) {
      return Duration.ZERO;
    }
    long deadline = Instant.parse(ts).toEpochMilli() + options.deleteTimeout().toMillis();
    long left = deadline - clock.getAsLong();
    return left <= 0 ? Duration.ZERO : Duration.ofMillis(left);
  }

  // ---- helpers ----

  private void event(Service hostSvc, String type, String reason, Member member, String what) {
    String message = "Cluster " + member.name() + ": " + what;
    host.events().record(ObjectRef.of(ref(hostSvc)), type, reason, message);
    if (EventSink.WARNING.equals(type)) {
      log.warn(ref(hostSvc), "{}", message);
    } else {
      log.info(ref(hostSvc), "{}", message);
    }
  }

  private ServiceRef ref(Service svc) {
    return new ServiceRef(
        host.name(), svc.getMetadata().getNamespace(), svc.getMetadata().getName(), uid(svc));
  }

  private static String uid(Service svc) {
    return svc == null ? null : svc.getMetadata().getUid();
  }

  private static String annotation(Service svc) {
    return annotation(svc, FederationKeys.INGRESSES_ANNOTATION);
  }

  private static String annotation(Service svc, String key) {
    Map<String, String> a = svc.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  /** The Service's status as it shows it now. */
  private static LbStatus status(Service svc) {
    return Views.status(svc.getStatus() == null ? null : svc.getStatus().getLoadBalancer());
  }

  private static Future<WorkResult> done() {
    return Future.succeededFuture(WorkResult.success());
  }
}
