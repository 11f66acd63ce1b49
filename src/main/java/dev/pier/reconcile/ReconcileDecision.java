package dev.pier.reconcile;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ProviderException;
import dev.pier.cloud.VerifyResult;
import dev.pier.events.EventReasons;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ResourceVersions;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The decisions of a reconcile, as pure functions of the cached Service, the last state seen of a
 * Service deleted without the finalizer, what this process remembers of the key, and the provider's
 * answer. {@link ServiceReconciler} carries them out.
 */
public final class ReconcileDecision {
  private ReconcileDecision() {}

  /** What a run does with its key. */
  public enum Action {
    /** The Service is gone and nothing of it is known: forget the key. */
    FORGET,
    /** The Service is gone, deleted without the finalizer: delete its load balancer. */
    DELETE_LAST_SEEN,
    /** It has the finalizer and is being deleted or no longer wants a load balancer. */
    CLEANUP,
    /** It does not want a load balancer and holds nothing of Pier's. */
    NOT_WANTED,
    /** Only DNS work was asked for, and this process already ensured the load balancer. */
    ALREADY_ENSURED,
    /** Only node sync asked: point the existing load balancer at the eligible nodes. */
    UPDATE_HOSTS,
    /** Ensure the load balancer: finalizer, provider, status. */
    ENSURE,
    /** It carries Pier's finalizer but a class Pier does not own: report, change nothing. */
    CLASS_NOT_OWNED,
    /**
     * It stopped being type LoadBalancer without the finalizer (stripped by hand): delete the load
     * balancer when the provider reports one for it, as upstream checks before it gives up.
     */
    CLEANUP_IF_PRESENT,
    /** The periodic verification of a load balancer this process ensured: repair drift. */
    VERIFY
  }

  /** {@code "true"} lets a cleanup go on without deleting the load balancer. */
  public static final String ABANDON_ANNOTATION = "pier.dev/abandon-load-balancer";

  /**
   * @param deleteLastSeenFirst the Service was deleted without the finalizer and re-created under
   *     the same name: the old one's load balancer goes first, and the run waits for that
   * @param forgetLastSeen the last seen state is of this very Service (same uid): drop it
   */
  public record Plan(Action action, boolean deleteLastSeenFirst, boolean forgetLastSeen) {
    static Plan of(Action action) {
      return new Plan(action, false, false);
    }
  }

  /** The status this process last wrote for a key, and the status the server stored for it. */
  public record StatusWrite(LbStatus desired, LbStatus stored, String resourceVersion) {
    public StatusWrite(LbStatus desired, LbStatus stored) {
      this(desired, stored, null);
    }
  }

  /**
   * Whether the cached Service is older than this process's last status write: a cache that has not
   * caught up with Pier's own write shows no drift, only lag. Versions are compared as the numbers
   * etcd makes them; anything else counts as caught up.
   */
  public static boolean cacheBehind(String cachedVersion, StatusWrite last) {
    return last != null && ResourceVersions.older(cachedVersion, last.resourceVersion());
  }

  /**
   * @param cached the Service in the informer cache, or null when it is gone
   * @param lastSeen the last state of a Service of this name deleted without the finalizer, or null
   * @param hostsPushed this process pushed a node set to the key's load balancer
   * @param ensured this process ensured the key's load balancer and knows its status
   */
  public static Plan plan(
      ServiceFilter filter,
      Service cached,
      Service lastSeen,
      Set<WorkKind> kinds,
      boolean hostsPushed,
      boolean ensured) {
    if (cached == null) {
      return Plan.of(lastSeen == null ? Action.FORGET : Action.DELETE_LAST_SEEN);
    }
    boolean sameObject =
        lastSeen != null && Objects.equals(uid(lastSeen), uid(cached)) && uid(cached) != null;
    Action action = actionFor(filter, cached, kinds, hostsPushed, ensured);
    return new Plan(action, lastSeen != null && !sameObject, sameObject);
  }

  private static Action actionFor(
      ServiceFilter filter,
      Service svc,
      Set<WorkKind> kinds,
      boolean hostsPushed,
      boolean ensured) {
    if (filter.needsCleanup(svc)) {
      return Action.CLEANUP;
    }
    if (filter.classNotOwned(svc)) {
      return Action.CLASS_NOT_OWNED;
    }
    if (!ServiceFilter.isLoadBalancer(svc)) {
      return Action.CLEANUP_IF_PRESENT;
    }
    if (!filter.wantsLoadBalancer(svc)) {
      return Action.NOT_WANTED;
    }
    if (svc.getMetadata().getDeletionTimestamp() != null) {
      // Being deleted with Pier's finalizer gone (cleaned up, another finalizer holds it): the
      // API server refuses new finalizers now, and no load balancer may come back.
      return Action.CLEANUP_IF_PRESENT;
    }
    boolean full = kinds.contains(WorkKind.RECONCILE);
    if (!full && !kinds.contains(WorkKind.UPDATE_HOSTS) && kinds.contains(WorkKind.VERIFY)) {
      return ensured ? Action.VERIFY : Action.ENSURE;
    }
    if (!full
        && !kinds.contains(WorkKind.UPDATE_HOSTS)
        && kinds.contains(WorkKind.DNS)
        && ensured) {
      return Action.ALREADY_ENSURED;
    }
    if (!full && kinds.contains(WorkKind.UPDATE_HOSTS) && hostsPushed) {
      return Action.UPDATE_HOSTS;
    }
    return Action.ENSURE;
  }

  /**
   * Whether the Service shows {@code desired} already, counting as equal whatever the API server
   * does not keep: the same status once the fields the stored status lacks altogether are set aside
   * ({@link LbStatus#keptAs}), or what the last write of the same status left. The one rule for the
   * status write and for the verifier's repair check.
   */
  public static boolean shows(LbStatus current, LbStatus desired, StatusWrite last) {
    if (current.shows(desired)) {
      return true;
    }
    return last != null && last.desired().equals(desired) && last.stored().equals(current);
  }

  /** Upstream's status rule: write only when the Service does not show the desired status. */
  public static boolean statusWriteNeeded(LbStatus current, LbStatus desired, StatusWrite last) {
    return !shows(current, desired, last);
  }

  /** A provider answer that cannot be published (no status) is a failure to retry. */
  public static ProviderException unusable(EnsureResult result) {
    return result.status() == null
        ? new ProviderException.Retry("provider returned no load balancer status")
        : null;
  }

  /** What the queue does after a failed ensure or host update. */
  public static WorkResult afterFailure(Throwable error, Set<WorkKind> kinds) {
    if (error instanceof ProviderException.ImplementedElsewhere) {
      return WorkResult.success();
    }
    return Outcomes.forFailure(error, kinds);
  }

  /**
   * What the queue does after a failed deletion: a refusal (invalid input) is retried with backoff
   * like any failure, because only a deletion lets the Service go; an operator who gives up on a
   * load balancer says so with {@link #ABANDON_ANNOTATION}.
   */
  public static WorkResult afterDeleteFailure(Throwable error, Set<WorkKind> kinds) {
    WorkResult r = Outcomes.forFailure(error, kinds);
    return r.outcome() == WorkResult.Outcome.PERMANENT ? WorkResult.retry(kinds) : r;
  }

  /** The operator gave up on the Service's load balancer: cleanup goes on without deleting it. */
  public static boolean abandoned(Service svc) {
    var a = svc.getMetadata().getAnnotations();
    return a != null && "true".equalsIgnoreCase(a.get(ABANDON_ANNOTATION));
  }

  /**
   * Writing {@code desired} replaces an ingress that this process did not write (another
   * controller's, or one set by hand): allowed, but never silently.
   */
  public static boolean replacesForeignIngress(
      LbStatus current, LbStatus desired, StatusWrite last) {
    return !current.isEmpty()
        && !current.shows(desired)
        && (last == null || !last.stored().equals(current));
  }

  /**
   * What a verification repaired: what the provider says it fixed, and the ingress when the Service
   * no longer shows what the load balancer has (by {@link #shows}), naming the field, what was
   * expected and what was found. Empty when nothing had drifted.
   */
  public static List<String> repairs(VerifyResult verified, LbStatus shown, StatusWrite last) {
    List<String> repairs = new ArrayList<>(verified.repairs());
    LbStatus now = verified.result().status();
    if (now != null && !shows(shown, now, last)) {
      repairs.add(ingressDrift(now.keptAs(shown), shown));
    }
    return repairs;
  }

  /** The first field where the Service's ingress differs from the load balancer's. */
  static String ingressDrift(LbStatus expected, LbStatus found) {
    List<LbIngress> want = expected.ingress();
    List<LbIngress> have = found.ingress();
    if (want.size() == have.size()) {
      for (int i = 0; i < want.size(); i++) {
        LbIngress w = want.get(i);
        LbIngress h = have.get(i);
        String at = "status.loadBalancer.ingress[" + i + "].";
        if (!Objects.equals(w.ip(), h.ip())) {
          return at + "ip: expected " + w.ip() + ", found " + h.ip();
        }
        if (!Objects.equals(w.hostname(), h.hostname())) {
          return at + "hostname: expected " + w.hostname() + ", found " + h.hostname();
        }
        if (!Objects.equals(w.ipMode(), h.ipMode())) {
          return at + "ipMode: expected " + w.ipMode() + ", found " + h.ipMode();
        }
        if (!w.ports().equals(h.ports())) {
          return at + "ports: expected " + w.ports() + ", found " + h.ports();
        }
      }
    }
    return "status.loadBalancer.ingress: expected "
        + addresses(expected)
        + ", found "
        + addresses(found);
  }

  /** The addresses of a status, as Events and log lines show them. */
  static String addresses(LbStatus status) {
    return status.ingress().stream()
        .map(i -> i.ip() != null ? i.ip() : i.hostname())
        .collect(Collectors.joining(",", "[", "]"));
  }

  /** The reason of the Warning event for a failed run: the provider's own, else the generic one. */
  public static String failureReason(Throwable error) {
    if (error instanceof ProviderException.InvalidInput i && i.reason() != null) {
      return i.reason();
    }
    return EventReasons.SYNC_LOAD_BALANCER_FAILED;
  }

  /**
   * A cleanup clears the status only while the Service lives on (it stopped being type
   * LoadBalancer); a Service being deleted keeps its last status until it is gone.
   */
  public static boolean clearStatusOnCleanup(Service svc, LbStatus current) {
    return svc.getMetadata().getDeletionTimestamp() == null && !current.isEmpty();
  }

  private static String uid(Service svc) {
    return svc.getMetadata() == null ? null : svc.getMetadata().getUid();
  }
}
