package dev.pier.federation.sync;

import static dev.pier.federation.sync.FederationReconciler.CONFLICT_RETRY;
import static dev.pier.federation.sync.FederationReconciler.RUN;

import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.federation.CopyApply;
import dev.pier.federation.CopyDecision;
import dev.pier.federation.CopyRecord;
import dev.pier.federation.CopyTrust;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.FederationScope;
import dev.pier.federation.MemberServices;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.FederationWrites;
import dev.pier.kube.KubeApiException;
import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.policy.DeletionGuard;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * The runs of member keys: a key of member X makes X's copy match the host Service, or orphans or
 * deletes the copy Pier owns there when X is no longer to have it. {@link CopyDecision} decides;
 * this class carries the decision out as named steps against the member's {@link ClusterAccess}.
 * Work for a member runs only while it is ready, so one slow member never delays the others.
 *
 * <p>It logs as {@link FederationReconciler}, the one logger of the federation's runs.
 */
final class MemberCopyReconciler {
  private static final ServiceLog log = ServiceLog.of(FederationReconciler.class);
  // A deletion the guard holds is asked again this often (it goes once the window has room).
  private static final Duration HELD_RECHECK = Duration.ofMinutes(1);

  /**
   * With memberScope namespaces: how soon a copy waits again for a namespace the member lacks (or
   * has no Role in), which only someone else can make.
   */
  static final Duration MISSING_NAMESPACE_RETRY = Duration.ofSeconds(10);

  private final Context ctx;
  private final ClusterAccess host;
  private final Members members;
  private final FederationOptions options;
  private final FederationScope scope;
  private final DeletionGuard guard;
  private final Predicate<Service> marked;
  private final ProvenCopies proven;
  private final LeftCopies left;
  private final IntSupplier ownedCopies;
  private final MemberNamespaces namespaces;

  /**
   * The resourceVersion each copy (member/uid) had after Pier's last apply to it, until the cache
   * shows that version: a run on an older cache would apply again for nothing.
   */
  private final Map<String, String> copyWrites = new HashMap<>();

  /** One run of one member key, on a ready member: what every step needs. */
  private record Run(ServiceKey key, Member member, Service hostSvc, Service copy) {
    FederationWrites writes() {
      return member.access().federationWrites();
    }

    /** The copy, as logs and the member's Events name it. */
    ServiceRef copyRef() {
      return new ServiceRef(member.name(), key.namespace(), key.name(), uid(copy));
    }

    String copyKey() {
      return member.name() + "/" + uid(copy);
    }
  }

  /**
   * @param guard holds copy deletions that no one asked for beyond its limit
   * @param marked whether a member Service carries this federation's marks from this host
   * @param proven the copies this process proved Pier's while the host's record does not name them
   * @param left the record of copies a release left behind
   * @param ownedCopies how many copies Pier owns in every member: what the guard's share is of
   */
  MemberCopyReconciler(
      Context ctx,
      ClusterAccess host,
      Members members,
      FederationOptions options,
      FederationScope scope,
      DeletionGuard guard,
      Predicate<Service> marked,
      ProvenCopies proven,
      LeftCopies left,
      IntSupplier ownedCopies) {
    this.ctx = ctx;
    this.host = host;
    this.members = members;
    this.options = options;
    this.scope = scope;
    this.guard = guard;
    this.marked = marked;
    this.proven = proven;
    this.left = left;
    this.ownedCopies = ownedCopies;
    this.namespaces = new MemberNamespaces(ctx, options.name());
  }

  Future<WorkResult> run(ServiceKey key) {
    Member member = members.get(key.cluster());
    return facts(member, key)
        .compose(facts -> run(key, member, facts))
        .recover(
            e -> {
              log.warn(
                  ServiceRef.of(key, null),
                  "cannot tell whose the Service there is: {}",
                  e.getMessage());
              return Future.succeededFuture(WorkResult.retry(RUN));
            });
  }

  private Future<WorkResult> run(ServiceKey key, Member member, CopyDecision.Facts facts) {
    Run run = new Run(key, member, facts.host(), facts.copy());
    return switch (CopyDecision.decide(facts)) {
      case MEMBER_UNAVAILABLE, SERVICES_UNREAD, REFUSED, WAIT_FINALIZER, WAIT_INTENT -> done();
      case NAMESPACE_UNREAD -> retryNamespace();
      case NAMESPACE_MISSING -> namespaceMissing(run, key.namespace(), facts.namespaceUnreadable());
      case CONFLICT -> conflict(run);
      case CREATE -> create(run, facts.intent());
      case UPDATE -> update(run);
      case NOT_WANTED -> notWanted(run, facts.ownership());
      case ORPHAN_ON_LEAVE -> orphan(run, true);
      case ORPHAN_ON_DELETE -> orphan(run, false);
      case WAIT_TERMINATING -> waitTerminating(run);
      case DELETE -> delete(run);
      case DELETE_GUARDED -> deleteIfGuardAllows(run);
    };
  }

  /** What the run reads: the member, the host Service, the copy (once the member's are read). */
  private Future<CopyDecision.Facts> facts(Member member, ServiceKey key) {
    if (member == null || !member.ready()) {
      return Future.succeededFuture(CopyDecision.Facts.memberUnavailable());
    }
    String ns = key.namespace();
    Service hostSvc = host.service(ns, key.name());
    boolean read = member.access().servicesSynced(ns);
    Service copy = read ? member.access().service(ns, key.name()) : null;
    return ownership(member.name(), key, hostSvc, copy)
        .map(
            ownership ->
                new CopyDecision.Facts(
                    true,
                    read,
                    options.namespacedMembers(),
                    read ? null : member.access().servicesUnreadable(ns),
                    hostSvc,
                    scope.refused(hostSvc),
                    scope.wanted(hostSvc, member.name(), member.leaving(), members.infos()),
                    copy,
                    ownership,
                    intent(hostSvc, member.name()),
                    member.leaving(),
                    member.leavePolicy()));
  }

  private static String intent(Service hostSvc, String member) {
    CopyRecord record = CopyRecord.of(hostSvc);
    return record == null ? null : record.intent(member);
  }

  /**
   * Whose the member's Service is ({@link CopyTrust#whose}). A marked Service that neither the
   * host's record nor this process's proof names may be a copy a release left behind: only then is
   * that record read, and what it names is proof for the host side to record.
   */
  private Future<MemberServices.Ownership> ownership(
      String member, ServiceKey key, Service hostSvc, Service copy) {
    String ns = key.namespace();
    String proof = proven.uid(member, ns, key.name());
    boolean isMarked = marked.test(copy);
    MemberServices.Ownership whose = CopyTrust.whose(member, copy, isMarked, hostSvc, proof);
    if (proof != null && copy != null) {
      CopyRecord record = CopyRecord.of(hostSvc);
      if (!proof.equals(uid(copy)) || (record != null && proof.equals(record.uid(member)))) {
        // Replaced by someone since, or recorded by the host side: no longer needed.
        proven.remove(member, ns, key.name());
      }
    }
    if (whose != MemberServices.Ownership.FOREIGN || !isMarked) {
      return Future.succeededFuture(whose);
    }
    return left.uid(member, ns, key.name())
        .map(
            recorded -> {
              if (recorded == null || !recorded.equals(uid(copy))) {
                return MemberServices.Ownership.FOREIGN;
              }
              if (hostSvc != null) {
                proven.add(member, ns, key.name(), recorded);
              }
              return MemberServices.Ownership.OWNED;
            });
  }

  // ---- waits and holds ----

  private static Future<WorkResult> retryNamespace() {
    return Future.succeededFuture(WorkResult.retryAfter(MISSING_NAMESPACE_RETRY, RUN));
  }

  /**
   * With memberScope namespaces the key's namespace cannot be read or written in the member: a
   * Warning names the member, the namespace and why. Pier never creates the namespace; it looks
   * again later.
   */
  private Future<WorkResult> namespaceMissing(Run run, String namespace, String why) {
    event(
        run,
        EventSink.WARNING,
        EventReasons.MEMBER_NAMESPACE_UNREADABLE,
        "not copied: Pier cannot read or write namespace "
            + namespace
            + " there ("
            + why
            + "). With federation.memberScope namespaces Pier creates no namespace in a member:"
            + " create it there and bind the Role of k8s/rbac-federation-member-namespaced.yaml in"
            + " it; the copy follows");
    return retryNamespace();
  }

  private Future<WorkResult> conflict(Run run) {
    ServiceKey key = run.key();
    event(
        run,
        EventSink.WARNING,
        EventReasons.FEDERATION_CONFLICT,
        "not created: Service "
            + key.namespace()
            + "/"
            + key.name()
            + " there is not one Pier made"
            + (marked.test(run.copy())
                ? " (it carries the federation's marks, but not the uid Pier recorded for its copy"
                    + " there)"
                : "")
            + "; it is left untouched, and nothing of it reaches this Service's status or DNS"
            + " names");
    return done();
  }

  private Future<WorkResult> notWanted(Run run, MemberServices.Ownership ownership) {
    if (run.hostSvc() != null) {
      // Answers "why is there no copy in this member?" when debugging placement.
      log.debug(
          hostRef(run),
          "no copy wanted in {} ({}), nothing to write",
          run.member().name(),
          ownership == MemberServices.Ownership.ABSENT
              ? "none there"
              : "a Service there that is not Pier's copy");
    }
    return done();
  }

  private Future<WorkResult> waitTerminating(Run run) {
    // Deleted already, and held by finalizers in the member: deleting again changes nothing.
    if (run.hostSvc() != null) {
      event(
          run,
          EventSink.WARNING,
          EventReasons.COPY_TERMINATING,
          "its copy is being deleted, held by finalizers "
              + run.copy().getMetadata().getFinalizers()
              + " there; Pier waits for them"
              + (run.hostSvc().getMetadata().getDeletionTimestamp() != null
                  ? " (for at most federation.deleteTimeout)"
                  : ""));
    }
    return done();
  }

  // ---- ensure: create or update ----

  private Service desired(Run run) {
    Service hostSvc = run.hostSvc();
    return MemberServices.desired(hostSvc, options.name(), host.identity().uid(), uid(hostSvc));
  }

  /**
   * Creates the copy, carrying the nonce of the host record's intent (none while the Service is in
   * adoption); the namespace is created only when the member says it is missing.
   */
  private Future<WorkResult> create(Run run, String nonce) {
    String ns = run.hostSvc().getMetadata().getNamespace();
    JsonObject config = MemberServices.forCreate(MemberServices.config(desired(run)), nonce);
    FederationWrites writes = run.writes();
    return namespaces
        .ready(run.member(), ns)
        .transform(ar -> writes.create(ctx, config))
        .recover(
            e ->
                KubeApiException.notFound(e) && !options.namespacedMembers()
                    ? namespaces.create(run.member(), ns).compose(v -> writes.create(ctx, config))
                    : Future.failedFuture(e))
        .map(
            uid -> {
              // Pier made it: proof of the copy until the host side has recorded its uid.
              proven.add(run.member().name(), ns, run.key().name(), uid);
              return written(run, EventReasons.CREATED_IN_CLUSTER, "created");
            })
        .recover(
            e ->
                KubeApiException.notFound(e) && options.namespacedMembers()
                    ? namespaceMissing(run, ns, "it does not exist there")
                    : failed(run, "create", e));
  }

  /** Applies the host's fields to Pier's copy, unless it has them or the cache is behind. */
  private Future<WorkResult> update(Run run) {
    Service copy = run.copy();
    CopyApply.Change change = MemberServices.change(desired(run), copy);
    String version = copy.getMetadata().getResourceVersion();
    CopyDecision.Update update =
        CopyDecision.update(version, copyWrites.get(run.copyKey()), change);
    if (update == CopyDecision.Update.CACHE_BEHIND) {
      // The cache has not seen Pier's last write to this copy; its event runs the key again.
      return done();
    }
    copyWrites.remove(run.copyKey());
    // Answers "why did Pier write this copy, or not?" when debugging; a test reads it as the
    // proof that a run of this very key decided on the copy as it is at that version.
    log.debug(
        Views.ref(run.member().name(), copy),
        "copy at resourceVersion {}: {}",
        version,
        switch (update) {
          case IN_SYNC, CACHE_BEHIND -> "as the host wants it, nothing to write";
          case MIGRATE_AND_APPLY ->
              "moving Pier's fields to its apply manager, then applying the host's";
          case APPLY -> "applying the host's";
        });
    if (update == CopyDecision.Update.IN_SYNC) {
      return done();
    }
    Future<Void> moved =
        update == CopyDecision.Update.MIGRATE_AND_APPLY
            ? migrate(run, change.config())
            : Future.succeededFuture();
    return moved
        .compose(v -> run.writes().apply(ctx, change.config(), uid(copy)))
        .onSuccess(written -> copyWrites.put(run.copyKey(), written))
        .map(v -> written(run, EventReasons.UPDATED_IN_CLUSTER, "updated"))
        .recover(
            e ->
                fieldConflicts(e).isEmpty()
                    ? failed(run, "update", e)
                    : fieldsConflict(run, fieldConflicts(e)));
  }

  /**
   * Moves Pier's earlier Update ownership of the copy to its apply manager, computed on the copy as
   * the member has it now (the cache keeps only Pier's entries; the move rewrites every one).
   */
  private Future<Void> migrate(Run run, JsonObject config) {
    return run.writes()
        .read(ctx, run.copy())
        .compose(
            fresh -> {
              String uid = fresh.getJsonObject("metadata").getString("uid");
              if (!Objects.equals(uid, uid(run.copy()))) {
                return Future.failedFuture(
                    new KubeApiException(409, "the copy was replaced since the cache saw it"));
              }
              JsonArray fields = CopyApply.migration(config, fresh);
              return fields == null
                  ? Future.succeededFuture()
                  : run.writes().migrate(ctx, fresh, fields);
            });
  }

  /**
   * Another manager in the member owns fields the host sets to other values. Pier does not take
   * them: the Warning says which and whose, and the copy is tried again at its next change (the
   * host's, the copy's, or a resync), not in a loop.
   */
  private Future<WorkResult> fieldsConflict(Run run, List<String> fields) {
    event(
        run,
        EventSink.WARNING,
        EventReasons.COPY_FIELD_CONFLICT,
        "not updated: another controller there owns "
            + String.join(", ", fields)
            + "; Pier does not overwrite its fields. Set them on the host to the member's values,"
            + " or have that controller let go of them");
    return done();
  }

  private static List<String> fieldConflicts(Throwable e) {
    return e instanceof KubeApiException k ? k.fieldConflicts() : List.of();
  }

  // ---- orphan and delete ----

  /** Drops the federation's marks from the copy and leaves it serving. */
  private Future<WorkResult> orphan(Run run, boolean byLeave) {
    return run.writes()
        .replace(ctx, MemberServices.orphaned(run.copy()))
        .map(
            v -> {
              forgetProof(run);
              if (run.hostSvc() != null) {
                event(
                    run,
                    EventSink.NORMAL,
                    EventReasons.ORPHANED_IN_CLUSTER,
                    byLeave
                        ? "left the federation; its copy stays in place without Pier's marks"
                        : "left in place");
              }
              return WorkResult.success();
            })
        .recover(e -> failed(run, "orphan", e));
  }

  /** A deletion no one asked for goes only while the deletion guard has room for it. */
  private Future<WorkResult> deleteIfGuardAllows(Run run) {
    ServiceKey key = run.key();
    String what =
        "copy " + key.namespace() + "/" + key.name() + " in cluster " + run.member().name();
    if (guard.allow(what, ownedCopies.getAsInt())) {
      return delete(run);
    }
    if (run.hostSvc() != null) {
      event(
          run,
          EventSink.WARNING,
          EventReasons.DELETION_HELD,
          "its copy is not deleted although placement no longer includes it: held by the"
              + " deletion guard until deletionGuard.confirm");
    } else {
      log.warn(
          run.copyRef(),
          "copy of a federated Service that no longer exists is not deleted: held by the"
              + " deletion guard until deletionGuard.confirm");
    }
    return Future.succeededFuture(WorkResult.retryAfter(HELD_RECHECK, RUN));
  }

  private Future<WorkResult> delete(Run run) {
    return run.writes()
        .delete(ctx, run.copy())
        .map(
            deletedNow -> {
              forgetProof(run);
              if (deletedNow) {
                deleted(run);
              }
              return WorkResult.success();
            })
        .recover(e -> failed(run, "delete", e));
  }

  /** Reports a deletion on the host Service, or, with it gone, on the copy in the member. */
  private void deleted(Run run) {
    if (run.hostSvc() != null) {
      event(run, EventSink.NORMAL, EventReasons.DELETED_IN_CLUSTER, "deleted");
      return;
    }
    ServiceKey key = run.key();
    ServiceRef ref = run.copyRef();
    log.info(ref, "deleted: the federated Service it copied no longer exists");
    run.member()
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

  // ---- outcomes ----

  private WorkResult written(Run run, String reason, String what) {
    event(run, EventSink.NORMAL, reason, what);
    return WorkResult.success();
  }

  private Future<WorkResult> failed(Run run, String what, Throwable e) {
    if (KubeApiException.conflict(e)) {
      // The cache was behind (a copy made or changed meanwhile): run again once it caught up.
      return Future.succeededFuture(WorkResult.retryAfter(CONFLICT_RETRY, RUN));
    }
    if (run.hostSvc() != null) {
      event(
          run,
          EventSink.WARNING,
          EventReasons.SYNC_IN_CLUSTER_FAILED,
          what + " failed: " + e.getMessage());
    }
    return Future.succeededFuture(WorkResult.retry(RUN));
  }

  /** An Event on the host Service about its copy in the run's member, and its log line. */
  private void event(Run run, String type, String reason, String what) {
    String message = "Cluster " + run.member().name() + ": " + what;
    ServiceRef ref = hostRef(run);
    host.events().record(ObjectRef.of(ref), type, reason, message);
    if (EventSink.WARNING.equals(type)) {
      log.warn(ref, "{}", message);
    } else {
      log.info(ref, "{}", message);
    }
  }

  private void forgetProof(Run run) {
    proven.remove(run.member().name(), run.key().namespace(), run.key().name());
  }

  private ServiceRef hostRef(Run run) {
    return Views.ref(host.name(), run.hostSvc());
  }

  private static String uid(Service svc) {
    return svc == null ? null : svc.getMetadata().getUid();
  }

  private static Future<WorkResult> done() {
    return Future.succeededFuture(WorkResult.success());
  }
}
