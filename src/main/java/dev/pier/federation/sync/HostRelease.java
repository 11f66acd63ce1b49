package dev.pier.federation.sync;

import static dev.pier.federation.sync.FederationReconciler.CONFLICT_RETRY;
import static dev.pier.federation.sync.FederationReconciler.RUN;

import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.federation.CopyRecord;
import dev.pier.federation.CopyState;
import dev.pier.federation.CopyTrust;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.HeldMembers;
import dev.pier.federation.ReleaseWait;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.KubeApiException;
import dev.pier.log.ServiceLog;
import dev.pier.model.FederationKeys;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The release of a host Service that is being deleted or stopped being federated: its copies go
 * (or, for an orphaning deletion, lose the federation's marks), then its names, then the
 * federation's finalizer and annotations, the record of its copies among them. The finalizer keeps
 * the Service, and so the record, until the copies are gone. A member that stays unreachable holds
 * the finalizer for at most the delete timeout ({@link ReleaseWait}); the uid of the copy left
 * there then moves to the record of copies left behind ({@link LeftCopies}), written before the
 * finalizer goes.
 */
final class HostRelease {
  private static final ServiceLog log = ServiceLog.of(FederationReconciler.class);
  private static final Duration WAIT_FOR_COPIES = Duration.ofSeconds(2);
  private static final HeldMembers.Decision NOT_HOLDING =
      HeldMembers.decide(List.of(), 0, Duration.ZERO, 0);

  private final Context ctx;
  private final ClusterAccess host;
  private final Members members;
  private final FederationOptions options;
  private final ServiceCopies copies;
  private final ServingNames names;
  private final LeftCopies leftCopies;
  private final Consumer<ServiceKey> enqueue;
  private final LongSupplier clock;

  /**
   * @param leftCopies the record of copies a release left behind
   * @param enqueue runs a member's key, which deletes (or orphans) its copy
   */
  HostRelease(
      Context ctx,
      ClusterAccess host,
      Members members,
      FederationOptions options,
      ServiceCopies copies,
      ServingNames names,
      LeftCopies leftCopies,
      Consumer<ServiceKey> enqueue,
      LongSupplier clock) {
    this.ctx = ctx;
    this.host = host;
    this.members = members;
    this.options = options;
    this.copies = copies;
    this.names = names;
    this.leftCopies = leftCopies;
    this.enqueue = enqueue;
    this.clock = clock;
  }

  Future<WorkResult> run(ServiceKey key, Service svc) {
    List<String> all = members.all().stream().map(Member::name).toList();
    return copies.read(key, all).compose(read -> release(key, svc, read));
  }

  /**
   * The Service is gone, or federated no more without the finalizer: the entries of the record of
   * copies left behind whose copies are gone go too.
   */
  Future<WorkResult> forget(ServiceKey key) {
    return leftCopies.forget(key);
  }

  private Future<WorkResult> release(ServiceKey key, Service svc, ServiceCopies.Read read) {
    CopyRecord record = CopyRecord.of(svc);
    Map<String, CopyState> believed = new HashMap<>();
    read.known().forEach((m, copy) -> believed.put(m, CopyTrust.believe(record, m, copy)));
    ReleaseWait.Waits waits = ReleaseWait.of(read.unknown().keySet(), seen(believed));
    for (String member : waits.deleting()) {
      enqueue.accept(new ServiceKey(member, key.namespace(), key.name()));
    }
    Duration left =
        ReleaseWait.timeLeft(
            svc.getMetadata().getDeletionTimestamp(), options.deleteTimeout(), clock.getAsLong());
    Duration wait = ReleaseWait.wait(waits, left, WAIT_FOR_COPIES);
    if (!wait.isZero()) {
      return Future.succeededFuture(WorkResult.retryAfter(wait, RUN));
    }
    String leftBehind = ReleaseWait.leftBehind(waits, options.deleteTimeout());
    if (leftBehind != null) {
      host.events().warning(ObjectRef.of(ref(svc)), EventReasons.DELETION_TIMED_OUT, leftBehind);
      log.warn(ref(svc), "{}", leftBehind);
    }
    return leftCopies
        .add(key, leftBehind(waits, record, believed))
        .transform(
            ar -> {
              if (ar.succeeded()) {
                return namesThenFinalizer(key, svc);
              }
              if (!refused(ar.cause())) {
                return recordFailed(svc, "recording the copies left behind", ar.cause());
              }
              // The namespace is missing, or Pier may not write there: no write will succeed, and
              // the timeout is not to hold the Service longer. Those copies then stay as they are.
              log.warn(
                  ref(svc),
                  "cannot record the copies left behind in Secret {}/{} ({}): once their members"
                      + " are back, Pier cannot prove them its own and leaves them in place",
                  options.secretNamespace(),
                  FederationKeys.LEFT_COPIES_SECRET_PREFIX + options.name(),
                  ar.cause().getMessage());
              return namesThenFinalizer(key, svc);
            });
  }

  private static boolean refused(Throwable e) {
    return e instanceof KubeApiException k && (k.code() == 403 || k.code() == 404);
  }

  /**
   * The uids of the copies in the members the release gives up on, by member: as read, else as
   * recorded (a member whose copy cannot be read).
   */
  private static Map<String, String> leftBehind(
      ReleaseWait.Waits waits, CopyRecord record, Map<String, CopyState> believed) {
    Map<String, String> uids = new TreeMap<>();
    for (String member : waits.unreachable()) {
      CopyState copy = believed.get(member);
      String uid;
      if (copy != null) {
        uid = copy.owned() ? copy.uid() : null;
      } else {
        uid = record == null ? null : record.uid(member);
      }
      if (uid != null) {
        uids.put(member, uid);
      }
    }
    return uids;
  }

  private Future<WorkResult> recordFailed(Service svc, String what, Throwable e) {
    log.warn(ref(svc), "{} failed: {}", what, e.getMessage());
    return Future.succeededFuture(WorkResult.retry(RUN));
  }

  /** Every member's copy as read, in the members' order. */
  private List<ReleaseWait.Seen> seen(Map<String, CopyState> known) {
    List<ReleaseWait.Seen> seen = new ArrayList<>();
    for (Member m : members.all()) {
      seen.add(new ReleaseWait.Seen(m.name(), m.ready(), known.get(m.name())));
    }
    return seen;
  }

  /** Every name goes before the finalizer: none is left behind (k8s#36799). */
  private Future<WorkResult> namesThenFinalizer(ServiceKey key, Service svc) {
    return names
        .sync(key, svc, null, NOT_HOLDING, Map.of())
        .compose(
            dnsDone ->
                dnsDone.outcome() != WorkResult.Outcome.SUCCESS
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

  private ServiceRef ref(Service svc) {
    return Views.ref(host.name(), svc);
  }
}
