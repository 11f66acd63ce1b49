package dev.pier.federation.sync;

import static dev.pier.federation.sync.FederationReconciler.CONFLICT_RETRY;
import static dev.pier.federation.sync.FederationReconciler.RUN;

import dev.pier.config.Durations;
import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.federation.ArrivalWait;
import dev.pier.federation.CopyRecord;
import dev.pier.federation.CopyState;
import dev.pier.federation.CopyTrust;
import dev.pier.federation.Federated;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.FederationScope;
import dev.pier.federation.HeldMembers;
import dev.pier.federation.IngressAggregate;
import dev.pier.federation.IngressAnnotation;
import dev.pier.federation.Placement;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.KubeApiException;
import dev.pier.log.ServiceLog;
import dev.pier.model.FederationKeys;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * The runs of host keys: a key of the host cluster keeps the federation's finalizer, computes the
 * status and the ingress annotation from the members' copies (read from caches, never from a
 * member), publishes the DNS names, and hands a Service being deleted or no longer federated to
 * {@link HostRelease}.
 *
 * <p>It logs as {@link FederationReconciler}, the one logger of the federation's runs.
 */
final class HostAggregateReconciler {
  private static final ServiceLog log = ServiceLog.of(FederationReconciler.class);
  // A member's copy that could not be read (its owner moving) is asked again this soon.
  private static final Duration UNKNOWN_RETRY = Duration.ofSeconds(2);

  /** How long the copies may stay unreadable before it is worth a warning. */
  static final Duration UNKNOWN_WARNING = Duration.ofSeconds(30);

  private final Context ctx;
  private final ClusterAccess host;
  private final Members members;
  private final FederationOptions options;
  private final FederationScope scope;
  private final LongSupplier clock;
  private final ServiceCopies copies;
  private final ServingNames names;
  private final HeldNames heldNames;
  private final HostRelease release;

  /** When each host Service's aggregate was first found waiting for a member's address. */
  private final Map<ServiceKey, Long> incompleteSince = new HashMap<>();

  /** Since when each key's copies could not be read, and whether that was warned of. */
  private final Map<ServiceKey, Unreadable> unknownSince = new HashMap<>();

  /**
   * One aggregate of one host Service, once its copies are read.
   *
   * @param version the Service's version this run's writes are based on (the one it read, or its
   *     own previous write's)
   * @param copies the placed members' copies, as far as the record believes them
   * @param record the record of its copies to write, or null when it stays as it is
   * @param adoption the record is the one-time adoption of an earlier version's copies
   */
  private record Run(
      ServiceKey key,
      Service svc,
      String version,
      Placement.Result placement,
      HeldMembers.Decision hold,
      Map<String, CopyState> copies,
      CopyRecord record,
      boolean adoption) {}

  HostAggregateReconciler(
      Context ctx,
      ClusterAccess host,
      Members members,
      FederationOptions options,
      FederationScope scope,
      LongSupplier clock,
      ServiceCopies copies,
      ServingNames names,
      HeldNames heldNames,
      HostRelease release) {
    this.ctx = ctx;
    this.host = host;
    this.members = members;
    this.options = options;
    this.scope = scope;
    this.clock = clock;
    this.copies = copies;
    this.names = names;
    this.heldNames = heldNames;
    this.release = release;
  }

  Future<WorkResult> run(ServiceKey key) {
    Service svc = host.service(key.namespace(), key.name());
    if (svc == null) {
      incompleteSince.remove(key);
      unknownSince.remove(key);
      return release.forget(key);
    }
    boolean hasFinalizer = Federated.hasFinalizer(svc);
    if (svc.getMetadata().getDeletionTimestamp() != null || !scope.federated(svc)) {
      return hasFinalizer ? release.run(key, svc) : release.forget(key);
    }
    if (scope.refused(svc)) {
      notAllowed(key, svc);
      return done();
    }
    String read = svc.getMetadata().getResourceVersion();
    Placement.Result placement = Placement.of(svc, members.infos());
    // The finalizer goes on with the record of an intent per placed member: from then on only the
    // copies Pier makes count, and the member keys make them carrying the intents' nonces.
    CopyRecord record = hasFinalizer ? CopyRecord.of(svc) : intents(placement);
    Future<String> marked =
        hasFinalizer
            ? Future.succeededFuture(read)
            : host.federationWrites().addFinalizer(ctx, key, record.json(), read);
    return marked
        .compose(version -> readCopies(key, svc, version, placement, record))
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

  private void notAllowed(ServiceKey key, Service svc) {
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
  }

  /**
   * Reads the copies in the placed members, and in those the record names (or, for a Service in
   * adoption, in every member), then takes the record on ({@link CopyTrust#next}) and believes the
   * placed members' copies by it.
   *
   * @param record the record of the Service's copies, or null while it is in adoption
   */
  private Future<WorkResult> readCopies(
      ServiceKey key, Service svc, String version, Placement.Result placement, CopyRecord record) {
    List<String> all = members.all().stream().map(Member::name).toList();
    Set<String> toRead = new TreeSet<>(placement.clusters());
    toRead.addAll(record == null ? all : record.entries().keySet());
    return copies
        .read(key, toRead)
        .compose(
            read -> {
              Map<String, String> unknown = new TreeMap<>(read.unknown());
              unknown.keySet().retainAll(placement.clusters());
              if (!unknown.isEmpty()) {
                return unknownCopies(key, svc, unknown);
              }
              unknownSince.remove(key);
              CopyRecord next =
                  CopyTrust.next(
                      record,
                      read.known(),
                      placement.clusters(),
                      all,
                      HostAggregateReconciler::nonce);
              Map<String, CopyState> believed = new HashMap<>();
              for (String name : placement.clusters()) {
                CopyState copy = read.known().get(name);
                if (copy != null) {
                  believed.put(name, CopyTrust.believe(next, name, copy));
                }
              }
              return aggregate(
                  key,
                  svc,
                  version,
                  placement,
                  believed,
                  next == null || next.equals(record) ? null : next,
                  record == null && next != null);
            });
  }

  /**
   * A member's copy could not be read: nothing is written until it can be. A moment of this is a
   * member's owner moving; half a minute is worth a warning, once until the copies are read.
   */
  private Future<WorkResult> unknownCopies(
      ServiceKey key, Service svc, Map<String, String> unknown) {
    long now = clock.getAsLong();
    Unreadable since = unknownSince.computeIfAbsent(key, k -> new Unreadable(now));
    String why = String.join("; ", unknown.values());
    if (!since.warned && now - since.at >= UNKNOWN_WARNING.toMillis()) {
      since.warned = true;
      log.warn(
          ref(svc),
          "the copies in {} could not be read for {} s ({}); status and names stay as they are",
          unknown.keySet(),
          (now - since.at) / 1000,
          why);
    } else {
      log.debug(
          ref(svc),
          "waiting to aggregate: the copies in {} cannot be read now ({}); status and names stay"
              + " as they are",
          unknown.keySet(),
          why);
    }
    return Future.succeededFuture(WorkResult.retryAfter(UNKNOWN_RETRY, RUN));
  }

  private static final class Unreadable {
    final long at;
    boolean warned;

    Unreadable(long at) {
      this.at = at;
    }
  }

  private Future<WorkResult> aggregate(
      ServiceKey key,
      Service svc,
      String version,
      Placement.Result placement,
      Map<String, CopyState> copies,
      CopyRecord record,
      boolean adoption) {
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
    return aggregate(new Run(key, svc, version, placement, hold, copies, record, adoption));
  }

  private Future<WorkResult> aggregate(Run run) {
    List<IngressAggregate.MemberStatus> statuses = memberStatuses(run);
    String previous = annotation(run.svc(), FederationKeys.INGRESSES_ANNOTATION);
    IngressAggregate.Result result =
        IngressAggregate.compute(statuses, previous, options.unreadyClusters());
    LbStatus aggregate = Views.status(new LoadBalancerStatus(result.ingress()));
    Duration wait = arrivalWait(run.key(), run.svc(), statuses, aggregate);
    if (!wait.isZero()) {
      // A member's load balancer is on its way: its address joins these in one write, and so does
      // the uid of a copy just made (its nonce proves it until then). A new intent goes now: a
      // member key waits for it to make a copy.
      Future<String> intent =
          run.record() != null && CopyRecord.addsIntent(CopyRecord.of(run.svc()), run.record())
              ? host.federationWrites()
                  .annotate(
                      ctx,
                      run.key(),
                      Map.of(FederationKeys.COPY_UIDS_ANNOTATION, run.record().json()),
                      run.version())
                  .onSuccess(v -> adopted(run))
              : Future.succeededFuture(run.version());
      return intent.map(v -> WorkResult.retryAfter(wait, RUN));
    }
    return write(run, annotations(run, previous, result.annotation()), aggregate);
  }

  /** What each placed member shows, a member held as last seen counting as ready. */
  private List<IngressAggregate.MemberStatus> memberStatuses(Run run) {
    List<IngressAggregate.MemberStatus> statuses = new ArrayList<>();
    for (String name : run.placement().clusters()) {
      Member m = members.get(name);
      CopyState copy = run.copies().get(name);
      if (m == null || copy == null) {
        continue;
      }
      if (!m.ready()) {
        host.events()
            .warning(
                ObjectRef.of(ref(run.svc())),
                EventReasons.CLUSTER_UNREACHABLE,
                "Cluster " + name + " is not ready: its copy is not kept in sync until it is");
      }
      statuses.add(
          new IngressAggregate.MemberStatus(
              name,
              m.ready() || run.hold().held().contains(name),
              copy.owned() ? Views.loadBalancerStatus(copy.status()) : null,
              copy.readyEndpoints()));
    }
    return statuses;
  }

  /**
   * The federation's annotations on the host Service that change: the ingresses, the hold, the
   * record of its copies.
   */
  private static Map<String, String> annotations(Run run, String previous, String next) {
    Map<String, String> annotations = new LinkedHashMap<>();
    if (run.record() != null) {
      annotations.put(FederationKeys.COPY_UIDS_ANNOTATION, run.record().json());
    }
    if (!Objects.equals(previous, next)
        // No entry yet and none before: nothing to write.
        && !(previous == null && IngressAnnotation.json(List.of()).equals(next))) {
      annotations.put(FederationKeys.INGRESSES_ANNOTATION, next);
    }
    // The hold, where `pier status` reads it: written when it starts and ends, not each run.
    HeldMembers.Decision hold = run.hold();
    String heldSince = hold.holding() ? Instant.ofEpochMilli(hold.since()).toString() : null;
    if (!Objects.equals(heldSince, annotation(run.svc(), FederationKeys.NAMES_HELD_ANNOTATION))) {
      annotations.put(FederationKeys.NAMES_HELD_ANNOTATION, heldSince);
    }
    return annotations;
  }

  /** The annotations, then the status, each only when it changed; then the names. */
  private Future<WorkResult> write(Run run, Map<String, String> annotations, LbStatus aggregate) {
    ServiceKey key = run.key();
    HeldMembers.Decision hold = run.hold();
    Future<String> annotated =
        annotations.isEmpty()
            ? Future.succeededFuture(run.version())
            : host.federationWrites()
                .annotate(ctx, key, annotations, run.version())
                .onSuccess(v -> adopted(run));
    return annotated
        .compose(
            v ->
                status(run.svc()).shows(aggregate)
                    ? Future.succeededFuture(v)
                    : host.federationWrites().status(ctx, key, aggregate, v))
        .compose(v -> names.sync(key, run.svc(), run.placement(), hold, run.copies()))
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
    Set<String> pending =
        ArrivalWait.pending(
            ServiceFilter.isLoadBalancer(svc),
            statuses,
            name -> {
              Member m = members.get(name);
              return m != null && m.ready();
            });
    if (pending.isEmpty()) {
      incompleteSince.remove(key);
      return Duration.ZERO;
    }
    long now = clock.getAsLong();
    return ArrivalWait.decide(
        pending,
        ArrivalWait.addresses(status(svc)),
        ArrivalWait.addresses(next),
        incompleteSince.computeIfAbsent(key, k -> now),
        now,
        options.aggregateWait());
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
                + String.join(", ", new TreeSet<>(hold.held()))
                + " are kept as last seen in the status and DNS names since "
                + Instant.ofEpochMilli(hold.since())
                + ", for at most "
                + Durations.format(options.maxHold()));
  }

  /** Says so when this run's write was the one-time adoption of an earlier version's copies. */
  private void adopted(Run run) {
    if (run.adoption()) {
      log.info(
          ref(run.svc()),
          "adopted the copies an earlier version made, once: recorded {}",
          run.record().entries());
    }
  }

  /** The record a Service is first federated with: an intent for each placed member. */
  private static CopyRecord intents(Placement.Result placement) {
    CopyRecord record = CopyRecord.EMPTY;
    for (String member : placement.clusters()) {
      record = record.withIntent(member, nonce());
    }
    return record;
  }

  /** A nonce no one can guess: random, 122 bits. */
  private static String nonce() {
    return UUID.randomUUID().toString();
  }

  private ServiceRef ref(Service svc) {
    return Views.ref(host.name(), svc);
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
