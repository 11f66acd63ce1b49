package dev.pier.federation.sync;

import static dev.pier.federation.sync.FederationReconciler.CONFLICT_RETRY;
import static dev.pier.federation.sync.FederationReconciler.RUN;

import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.federation.CopyState;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.HeldMembers;
import dev.pier.federation.ReleaseWait;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.KubeApiException;
import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The release of a host Service that is being deleted or stopped being federated: its copies go
 * (or, for an orphaning deletion, lose the federation's marks), then its names, then the
 * federation's finalizer and annotation. A member that stays unreachable holds the finalizer for at
 * most the delete timeout ({@link ReleaseWait}).
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
  private final Consumer<ServiceKey> enqueue;
  private final LongSupplier clock;

  /**
   * @param enqueue runs a member's key, which deletes (or orphans) its copy
   */
  HostRelease(
      Context ctx,
      ClusterAccess host,
      Members members,
      FederationOptions options,
      ServiceCopies copies,
      ServingNames names,
      Consumer<ServiceKey> enqueue,
      LongSupplier clock) {
    this.ctx = ctx;
    this.host = host;
    this.members = members;
    this.options = options;
    this.copies = copies;
    this.names = names;
    this.enqueue = enqueue;
    this.clock = clock;
  }

  Future<WorkResult> run(ServiceKey key, Service svc) {
    List<String> all = members.all().stream().map(Member::name).toList();
    return copies.read(key, all).compose(read -> release(key, svc, read));
  }

  private Future<WorkResult> release(ServiceKey key, Service svc, ServiceCopies.Read read) {
    ReleaseWait.Waits waits = ReleaseWait.of(read.unknown().keySet(), seen(read.known()));
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
    return namesThenFinalizer(key, svc);
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
