package dev.pier.dns.publish;

import dev.pier.dns.AnswerDecision;
import dev.pier.dns.AnswerPolicy;
import dev.pier.dns.ClusterLocation;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsNames;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.DnsZone;
import dev.pier.dns.HostnameResolver;
import dev.pier.dns.RecordSet;
import dev.pier.dns.ServingCluster;
import dev.pier.events.ObjectRef;
import dev.pier.kube.ClusterAccess;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the global, region and zone names of load-balanced Services in one DNS zone.
 *
 * <p>Called by two per-key queues: the reconcile verticle's, for the Services of the one cluster
 * that publishes names of Services that are not federated, and the federation's, for federated
 * Services (their names are keyed by the host Service and fed by every member). A namespace/name is
 * only ever in one of them at a time, so one Service's names are never synced twice at once; the
 * state shared between them is thread-safe. The first call finds (or creates) the zone and reads
 * which names Pier owns there, once; afterwards each sync reads only the Service's own names, sends
 * one change set holding only what differs, and nothing when DNS already matches.
 *
 * <p>It coordinates four parts: {@link DnsEligibility} (which Services get names), {@link
 * ZoneInventory} (the zone and the names Pier owns in it), {@link ClusterLocator} (a cluster's
 * region and zones) and {@link RecordWriter} (the diff against DNS and its write).
 */
public final class DnsPublisher implements DnsSync {
  private static final Logger log = LoggerFactory.getLogger(DnsPublisher.class);

  /** {@code "false"} keeps a Service out of DNS; {@code "true"} lets it in when opt-in is on. */
  public static final String ANNOTATION = DnsEligibility.ANNOTATION;

  private final DnsProvider provider;
  private final DnsOptions options;
  private final DnsNames names;
  private final DnsEligibility eligibility;
  private final ZoneInventory inventory;
  private final ClusterLocator locator;
  private final ServingClusterResolver addresses;
  private final RecordWriter writer;
  private final AnswerDecision.Limits limits;

  public DnsPublisher(
      DnsProvider provider, DnsOptions options, ServiceFilter filter, HostnameResolver resolver) {
    this.provider = provider;
    this.options = options;
    String suffix = options.getSuffix().isEmpty() ? options.getZoneName() : options.getSuffix();
    this.names = new DnsNames(options.getFederation(), suffix);
    this.eligibility = new DnsEligibility(options, filter);
    this.inventory = new ZoneInventory(provider, options, names);
    this.locator = new ClusterLocator(options);
    this.addresses = new ServingClusterResolver(resolver);
    this.writer = new RecordWriter(provider, options.getOwnerId(), inventory);
    this.limits =
        new AnswerDecision.Limits(
            options.getTtl(),
            options.getMinTtl(),
            options.getMaxTtl(),
            options.getWeightedTtl(),
            options.getViews());
  }

  public DnsNames names() {
    return names;
  }

  /** How many DNS names hold records this Pier owns, over all Services; for metrics. */
  public int ownedNames() {
    return inventory.ownedNames();
  }

  /**
   * True when a Service of {@code cluster} gets names of its own: the cluster publishes names, the
   * Service wants a load balancer there (a federated host Service is the federation's), it is not a
   * member's copy of a federated Service, and the annotation lets it.
   */
  public boolean wantsDns(String cluster, Service svc) {
    return eligibility.wantsDns(cluster, svc);
  }

  /** Whether Services of this cluster that are not federated get names. */
  public boolean publishes(String cluster) {
    return eligibility.publishes(cluster);
  }

  @Override
  public Future<Void> start(Consumer<Set<String>> holders) {
    inventory.onHolders(holders);
    return initialize()
        .<Void>mapEmpty()
        .recover(
            e -> {
              if (e instanceof DnsException d && !d.retryable()) {
                return Future.failedFuture(e);
              }
              log.warn(
                  "DNS not ready yet, Services get their names once it is: {}", e.getMessage());
              return Future.succeededFuture();
            });
  }

  /**
   * Finds or creates the zone and reads Pier's names from it; memoized on success, retried by the
   * next call after a failure. Call on the reconcile context.
   */
  public Future<DnsZone> initialize() {
    return inventory.zone();
  }

  /** {@code namespace/name} of the Service a name of Pier's form belongs to, or null. */
  String serviceOf(String name) {
    return inventory.serviceOf(name);
  }

  @Override
  public Future<WorkResult> sync(
      ClusterAccess cluster, ServiceKey key, Service svc, LbStatus status) {
    if (eligibility.notThisPath(cluster.name(), svc)) {
      // Another cluster's names, a member's copy, or the federation's: not this path's.
      return Future.succeededFuture(WorkResult.success());
    }
    boolean wanted = wantsDns(cluster.name(), svc) && !status.isEmpty();
    ServiceRef service = svc == null ? ServiceRef.of(key, null) : Views.ref(cluster.name(), svc);
    ObjectRef ref = svc == null ? null : ObjectRef.of(service);
    // A Service that is not federated has one cluster behind its names: only its TTL applies.
    Map<String, String> ttlOnly =
        wanted
                && svc.getMetadata().getAnnotations() != null
                && svc.getMetadata().getAnnotations().containsKey(AnswerDecision.TTL)
            ? Map.of(AnswerDecision.TTL, svc.getMetadata().getAnnotations().get(AnswerDecision.TTL))
            : Map.of();
    return publish(
        cluster,
        key,
        service,
        ref,
        wanted ? serving(cluster, key, service, ref, status) : null,
        ttlOnly);
  }

  /**
   * The names of a federated Service, keyed by its host Service and fed by the members serving it
   * (one {@link ServingCluster} each, see {@link #servingCluster}); all of them go when the Service
   * is gone, deleted, no longer federated or kept out by its annotation.
   *
   * @param host the host cluster: its identity marks the records, its Events report problems
   * @param svc the host Service, or null when it is gone
   * @param federated whether it is federated (and so has names) now
   */
  public Future<WorkResult> syncFederated(
      ClusterAccess host,
      ServiceKey key,
      Service svc,
      boolean federated,
      List<Future<ServingCluster>> serving) {
    boolean wanted = eligibility.wantsFederatedDns(svc, federated);
    ServiceRef service = svc == null ? ServiceRef.of(key, null) : Views.ref(host.name(), svc);
    ObjectRef ref = svc == null ? null : ObjectRef.of(service);
    Map<String, String> annotations =
        wanted && svc.getMetadata().getAnnotations() != null
            ? svc.getMetadata().getAnnotations()
            : Map.of();
    return publish(
        host,
        key,
        service,
        ref,
        wanted ? Future.all(serving).map(all -> all.<ServingCluster>list()) : null,
        annotations);
  }

  /**
   * How the Service's names answer, from its annotations ({@link AnswerDecision}); what it cannot
   * follow is reported on it. Asks the backend whether it answers per query only when a strategy
   * needs that.
   */
  private Future<AnswerPolicy> answers(
      ClusterAccess cluster, ServiceRef service, ObjectRef ref, Map<String, String> annotations) {
    if (annotations.isEmpty()) {
      return Future.succeededFuture(AnswerPolicy.roundRobin(options.getTtl()));
    }
    Future<Boolean> perQuery =
        AnswerDecision.wantsPerQuery(annotations)
            ? provider.answersPerQuery()
            : Future.succeededFuture(false);
    return perQuery.map(
        lua -> {
          AnswerDecision.Result r = AnswerDecision.decide(annotations, limits, lua);
          DnsReports.answers(cluster, service, ref, r.warnings());
          return r.policy();
        });
  }

  /** The cluster's region and zones, from its nodes or the configuration. */
  public ClusterLocation locate(ClusterAccess cluster) {
    return locator.locate(cluster);
  }

  /**
   * One cluster serving a Service: its location, its ingress addresses (hostnames resolved without
   * blocking; one that does not resolve is noted, not a failure), and whether its endpoints take
   * traffic.
   */
  public Future<ServingCluster> servingCluster(
      ClusterLocation location, List<LbIngress> ingress, boolean healthy) {
    return addresses.servingCluster(location, ingress, healthy);
  }

  /** Inside the zone and the domain filter. */
  static boolean manages(String zone, List<String> domainFilter, String name) {
    return DesiredNames.manages(zone, domainFilter, name);
  }

  public Future<Void> close() {
    return addresses.close().otherwiseEmpty().compose(v -> provider.close());
  }

  /** The clusters serving the Service: today the one it lives in, when it has an ingress. */
  private Future<List<ServingCluster>> serving(
      ClusterAccess cluster, ServiceKey key, ServiceRef service, ObjectRef ref, LbStatus status) {
    ClusterLocation location = locate(cluster);
    locator.reportUnusable(cluster, service, ref, location);
    boolean healthy = cluster.hasReadyEndpoints(key.namespace(), key.name());
    return servingCluster(location, status.ingress(), healthy).map(List::of);
  }

  /**
   * Applies the names {@code serving} asks for (none when null), answering as the Service's {@code
   * annotations} say, reporting what went wrong.
   */
  private Future<WorkResult> publish(
      ClusterAccess cluster,
      ServiceKey key,
      ServiceRef service,
      ObjectRef ref,
      Future<List<ServingCluster>> serving,
      Map<String, String> annotations) {
    RecordWriter.Target target = new RecordWriter.Target(cluster, key.objectKey(), service, ref);
    return initialize()
        .compose(
            zone ->
                (serving != null ? serving : Future.succeededFuture(List.<ServingCluster>of()))
                    .compose(
                        s ->
                            answers(cluster, service, ref, annotations)
                                .compose(p -> apply(target, zone, key, s, p))))
        .recover(
            e -> {
              DnsReports.failed(cluster, service, ref, e);
              return Future.succeededFuture(
                  DnsReports.retryable(e)
                      ? WorkResult.retry(RecordWriter.RETRY)
                      : WorkResult.permanent());
            });
  }

  /**
   * Writes the names that can be computed; names fed by a cluster whose addresses are unknown keep
   * their records, and the key is retried with backoff until they are known.
   */
  private Future<WorkResult> apply(
      RecordWriter.Target t,
      DnsZone zone,
      ServiceKey key,
      List<ServingCluster> serving,
      AnswerPolicy policy) {
    String mark = RecordSet.ownerMark(options.getOwnerId(), t.cluster().identity().uid());
    DesiredNames plan =
        DesiredNames.of(
            names,
            options,
            zone.name(),
            key,
            serving,
            policy,
            mark,
            inventory.owned(t.objectKey()));
    DnsReports.invalid(t.cluster(), t.service(), t.ref(), plan.invalid());
    Future<WorkResult> applied = writer.write(t, zone, plan, mark);
    if (plan.unknown().isEmpty()) {
      return applied;
    }
    return applied
        .andThen(ar -> inventory.keep(t.objectKey(), plan.kept()))
        .map(
            r -> {
              DnsReports.unresolved(t.cluster(), t.service(), t.ref(), serving, plan.unknown());
              return r.outcome() == WorkResult.Outcome.SUCCESS
                  ? WorkResult.retry(RecordWriter.RETRY)
                  : r;
            });
  }
}
