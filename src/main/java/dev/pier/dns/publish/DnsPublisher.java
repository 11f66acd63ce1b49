package dev.pier.dns.publish;

import dev.pier.dns.ChangeSet;
import dev.pier.dns.ClusterLocation;
import dev.pier.dns.DesiredRecords;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsNames;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.DnsZone;
import dev.pier.dns.HostnameResolver;
import dev.pier.dns.RecordDiff;
import dev.pier.dns.RecordSet;
import dev.pier.dns.ServingCluster;
import dev.pier.dns.Topology;
import dev.pier.dns.ZoneBootstrap;
import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.kube.ClusterAccess;
import dev.pier.log.ServiceLog;
import dev.pier.model.FederationKeys;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.model.Views;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
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
 * <p>One name never holds up the others: a name over DNS's length limits is reported and never
 * sent, and when the server refuses a change set (PowerDNS's 422) its names are sent one by one, so
 * that the good ones land while each refused one gets a Warning and the key's backoff.
 */
public final class DnsPublisher implements DnsSync {
  private static final Logger log = LoggerFactory.getLogger(DnsPublisher.class);
  private static final ServiceLog serviceLog = ServiceLog.of(DnsPublisher.class);

  /** {@code "false"} keeps a Service out of DNS; {@code "true"} lets it in when opt-in is on. */
  public static final String ANNOTATION = "pier.dev/dns";

  private static final Set<WorkKind> RETRY = Set.of(WorkKind.DNS);

  private final DnsProvider provider;
  private final DnsOptions options;
  private final ServiceFilter filter;
  private final HostnameResolver resolver;
  private final DnsNames names;
  private Future<DnsZone> ready;
  private volatile Consumer<Set<String>> holders = keys -> {};
  // Names holding Pier's records, by namespace/name: read from the zone once, then kept current.
  private final Map<String, Set<String>> published = new java.util.concurrent.ConcurrentHashMap<>();

  public DnsPublisher(
      DnsProvider provider, DnsOptions options, ServiceFilter filter, HostnameResolver resolver) {
    this.provider = provider;
    this.options = options;
    this.filter = filter;
    this.resolver = resolver;
    String suffix = options.getSuffix().isEmpty() ? options.getZoneName() : options.getSuffix();
    this.names = new DnsNames(options.getFederation(), suffix);
  }

  public DnsNames names() {
    return names;
  }

  /** How many DNS names hold records this Pier owns, over all Services; for metrics. */
  public int ownedNames() {
    return published.values().stream().mapToInt(Set::size).sum();
  }

  /**
   * True when a Service of {@code cluster} gets names of its own: the cluster publishes names, the
   * Service wants a load balancer there (a federated host Service is the federation's), it is not a
   * member's copy of a federated Service, and the annotation lets it.
   */
  public boolean wantsDns(String cluster, Service svc) {
    if (svc == null
        || !publishes(cluster)
        || svc.getMetadata().getDeletionTimestamp() != null
        || isCopy(svc)
        || !filter.forCluster(cluster).wantsLoadBalancer(svc)) {
      return false;
    }
    return annotationAllows(svc);
  }

  /** Whether Services of this cluster that are not federated get names. */
  public boolean publishes(String cluster) {
    return options.getPublishFrom().isEmpty() || options.getPublishFrom().equals(cluster);
  }

  private boolean annotationAllows(Service svc) {
    Map<String, String> a = svc.getMetadata().getAnnotations();
    String v = a == null ? null : a.get(ANNOTATION);
    return options.isOptIn() ? "true".equalsIgnoreCase(v) : !"false".equalsIgnoreCase(v);
  }

  /** A member's copy of a federated Service: it gets no names of its own. */
  private static boolean isCopy(Service svc) {
    Map<String, String> labels = svc.getMetadata().getLabels();
    return labels != null && labels.containsKey(FederationKeys.FEDERATION_LABEL);
  }

  @Override
  public Future<Void> start(Consumer<Set<String>> holders) {
    this.holders = holders;
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
  public synchronized Future<DnsZone> initialize() {
    if (ready == null || ready.failed()) {
      ready =
          ZoneBootstrap.findOrCreate(provider, options.getZoneName(), options.getZoneId())
              .compose(zone -> checkSuffix(zone).compose(v -> loadInventory(zone)).map(zone));
    }
    return ready;
  }

  private Future<Void> checkSuffix(DnsZone zone) {
    if (!DnsNames.within(names.suffix(), zone.name())) {
      return Future.failedFuture(
          DnsException.invalid(
              "dns.suffix '" + names.suffix() + "' is not inside DNS zone " + zone.name()));
    }
    return Future.succeededFuture();
  }

  private Future<Void> loadInventory(DnsZone zone) {
    return provider
        .recordSets(zone)
        .map(
            sets -> {
              published.clear();
              for (RecordSet r : sets) {
                String owner = serviceOf(r.name());
                if (owner != null && ownerIdOf(r)) {
                  published.computeIfAbsent(owner, k -> new LinkedHashSet<>()).add(r.name());
                }
              }
              log.info(
                  "DNS zone {}: {} Service(s) hold names owned by '{}'",
                  zone.name(),
                  published.size(),
                  options.getOwnerId());
              holders.accept(Set.copyOf(published.keySet()));
              return null;
            });
  }

  /**
   * True when the rrset carries this owner id, with any cluster uid or none: such Services get a
   * DNS run at start, which changes only what the diff proves this cluster's own.
   */
  private boolean ownerIdOf(RecordSet r) {
    String id = options.getOwnerId();
    return r.owner() != null
        && (r.owner().equals(id) || r.owner().startsWith(id + RecordSet.CLUSTER_MARK));
  }

  /** {@code namespace/name} of the Service a name of Pier's form belongs to, or null. */
  String serviceOf(String name) {
    String[] labels = name.split("\\.");
    if (labels.length < 5
        || !labels[2].equals(names.federation())
        || !labels[3].equals("svc")
        || !DnsNames.within(name, names.suffix())) {
      return null;
    }
    return labels[1] + "/" + labels[0];
  }

  @Override
  public Future<WorkResult> sync(
      ClusterAccess cluster, ServiceKey key, Service svc, LbStatus status) {
    if (!publishes(cluster.name())
        || (svc != null && (isCopy(svc) || servedByFederation(cluster.name(), svc)))) {
      // Another cluster's names, a member's copy, or the federation's: not this path's.
      return Future.succeededFuture(WorkResult.success());
    }
    boolean wanted = wantsDns(cluster.name(), svc) && !status.isEmpty();
    ServiceRef service = svc == null ? ServiceRef.of(key, null) : Views.ref(cluster.name(), svc);
    ObjectRef ref = svc == null ? null : ObjectRef.of(service);
    return publish(
        cluster, key, service, ref, wanted ? serving(cluster, key, service, ref, status) : null);
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
    boolean wanted =
        svc != null
            && federated
            && svc.getMetadata().getDeletionTimestamp() == null
            && ServiceFilter.isLoadBalancer(svc)
            && annotationAllows(svc);
    ServiceRef service = svc == null ? ServiceRef.of(key, null) : Views.ref(host.name(), svc);
    ObjectRef ref = svc == null ? null : ObjectRef.of(service);
    return publish(
        host,
        key,
        service,
        ref,
        wanted ? Future.all(serving).map(all -> all.<ServingCluster>list()) : null);
  }

  /** A federated host Service, or one still carrying the federation's finalizer. */
  private boolean servedByFederation(String cluster, Service svc) {
    return !filter.forCluster(cluster).wantsLoadBalancer(svc)
            && ServiceFilter.isLoadBalancer(svc)
            && filter.ownsClass(svc)
        || (svc.getMetadata().getFinalizers() != null
            && svc.getMetadata().getFinalizers().contains(FederationKeys.FINALIZER));
  }

  /** Applies the names {@code serving} asks for (none when null), reporting what went wrong. */
  private Future<WorkResult> publish(
      ClusterAccess cluster,
      ServiceKey key,
      ServiceRef service,
      ObjectRef ref,
      Future<List<ServingCluster>> serving) {
    return initialize()
        .compose(
            zone ->
                (serving != null ? serving : Future.succeededFuture(List.<ServingCluster>of()))
                    .compose(s -> apply(cluster, zone, key, service, ref, s)))
        .recover(
            e -> {
              String why = e.getMessage() == null ? e.toString() : e.getMessage();
              if (ref != null) {
                cluster
                    .events()
                    .warning(ref, EventReasons.SYNC_DNS_FAILED, "Error syncing DNS names: " + why);
              }
              boolean retry = !(e instanceof DnsException d) || d.retryable();
              serviceLog.warn(
                  service,
                  "DNS sync failed{}: {}",
                  retry ? ", retrying with backoff" : " (waiting for a change)",
                  why);
              return Future.succeededFuture(
                  retry ? WorkResult.retry(RETRY) : WorkResult.permanent());
            });
  }

  /** The cluster's region and zones, from its nodes or the configuration. */
  public ClusterLocation locate(ClusterAccess cluster) {
    return Topology.locate(
        cluster.name(),
        cluster.nodes().stream().map(Views::node).toList(),
        options.getRegion(),
        options.getZones());
  }

  /** The clusters serving the Service: today the one it lives in, when it has an ingress. */
  private Future<List<ServingCluster>> serving(
      ClusterAccess cluster, ServiceKey key, ServiceRef service, ObjectRef ref, LbStatus status) {
    ClusterLocation location = locate(cluster);
    List<String> bad = new ArrayList<>();
    if (location.region() != null && !DnsNames.isLabel(location.region())) {
      bad.add("region '" + location.region() + "'");
    }
    location.zones().stream()
        .filter(z -> !DnsNames.isLabel(z))
        .forEach(z -> bad.add("zone '" + z + "'"));
    if (!bad.isEmpty()) {
      String msg =
          "No DNS name for node label "
              + String.join(", ", bad)
              + " of "
              + Topology.REGION
              + "/"
              + Topology.ZONE
              + " (or the failure-domain.beta labels): not a DNS label; set dns.topology.*";
      serviceLog.warn(service, "{}", msg);
      cluster.events().warning(ref, EventReasons.INVALID_DNS_LABEL, msg);
    }
    boolean healthy = cluster.hasReadyEndpoints(key.namespace(), key.name());
    return servingCluster(location, status.ingress(), healthy).map(List::of);
  }

  /**
   * One cluster serving a Service: its location, its ingress addresses (hostnames resolved without
   * blocking; one that does not resolve is noted, not a failure), and whether its endpoints take
   * traffic.
   */
  public Future<ServingCluster> servingCluster(
      ClusterLocation location, List<LbIngress> ingress, boolean healthy) {
    List<String> v4 = new ArrayList<>();
    List<String> v6 = new ArrayList<>();
    List<String> unresolved = new ArrayList<>();
    List<Future<Void>> lookups = new ArrayList<>();
    for (LbIngress i : ingress) {
      if (i.ip() != null) {
        (i.ip().contains(":") ? v6 : v4).add(i.ip());
      } else if (i.hostname() != null) {
        lookups.add(
            resolver
                .resolve(i.hostname())
                .transform(
                    ar -> {
                      if (ar.succeeded()) {
                        v4.addAll(ar.result().ipv4());
                        v6.addAll(ar.result().ipv6());
                      } else {
                        unresolved.add(ar.cause().getMessage());
                      }
                      return Future.<Void>succeededFuture();
                    }));
      }
    }
    return Future.all(lookups)
        .map(all -> new ServingCluster(location, v4, v6, healthy, unresolved));
  }

  private Future<WorkResult> apply(
      ClusterAccess cluster,
      DnsZone zone,
      ServiceKey key,
      ServiceRef service,
      ObjectRef ref,
      List<ServingCluster> serving) {
    String objectKey = key.objectKey();
    Map<String, List<RecordSet>> desired = new LinkedHashMap<>();
    Map<String, String> invalid = new LinkedHashMap<>();
    String mark = RecordSet.ownerMark(options.getOwnerId(), cluster.identity().uid());
    DesiredRecords.compute(names, key.namespace(), key.name(), serving, options.getTtl(), mark)
        .forEach(
            (name, sets) -> {
              if (!manages(zone, name)) {
                return;
              }
              Optional<String> problem = DnsNames.nameProblem(name);
              if (problem.isPresent()) {
                invalid.put(name, problem.get());
              } else {
                desired.put(name, sets);
              }
            });
    reportInvalid(cluster, service, ref, invalid);
    Set<String> unknown = DesiredRecords.unknown(names, key.namespace(), key.name(), serving);
    desired.keySet().removeAll(unknown);
    Set<String> before = published.getOrDefault(objectKey, Set.of());
    for (String name : before) {
      if (!unknown.contains(name)) {
        desired.putIfAbsent(name, List.of());
      }
    }
    Set<String> kept = new LinkedHashSet<>(before);
    kept.retainAll(unknown);
    Future<WorkResult> applied =
        applyKnown(cluster, zone, objectKey, service, ref, desired, before, mark);
    if (unknown.isEmpty()) {
      return applied;
    }
    return applied
        .andThen(ar -> keep(objectKey, kept))
        .map(r -> holdUnknown(cluster, service, ref, serving, unknown, r));
  }

  /** Sends what the names known to be wrong need; the names left out keep their records. */
  private Future<WorkResult> applyKnown(
      ClusterAccess cluster,
      DnsZone zone,
      String objectKey,
      ServiceRef service,
      ObjectRef ref,
      Map<String, List<RecordSet>> desired,
      Set<String> before,
      String mark) {
    if (desired.values().stream().allMatch(List::isEmpty) && before.isEmpty()) {
      published.remove(objectKey);
      return Future.succeededFuture(WorkResult.success());
    }
    List<String> toRead = List.copyOf(desired.keySet());
    List<Future<List<RecordSet>>> reads =
        toRead.stream().map(n -> provider.recordSets(zone, n)).toList();
    return Future.all(reads)
        .compose(
            all -> {
              Map<String, List<RecordSet>> existing = new HashMap<>();
              for (int i = 0; i < toRead.size(); i++) {
                existing.put(toRead.get(i), reads.get(i).result());
              }
              RecordDiff.Result diff =
                  RecordDiff.compute(desired, existing, mark, options.getOwnerId());
              for (RecordSet r : diff.adopted()) {
                serviceLog.info(
                    service,
                    "adopting DNS rrset {} marked pier-owner={} without a cluster: it holds"
                        + " exactly this cluster's records; marking it pier-owner={}",
                    r.label(),
                    r.owner(),
                    mark);
              }
              for (RecordDiff.Conflict c : diff.conflicts()) {
                serviceLog.warn(service, "DNS name left alone: {}", c.describe());
                if (ref != null) {
                  cluster
                      .events()
                      .warning(
                          ref,
                          EventReasons.DNS_RECORD_CONFLICT,
                          "Not publishing "
                              + c.describe()
                              + "; Pier changes only records it created");
                }
              }
              if (diff.changes().isEmpty()) {
                remember(objectKey, diff.owned());
                return Future.succeededFuture(WorkResult.success());
              }
              return provider
                  .apply(zone, diff.changes())
                  .map(
                      v -> {
                        remember(objectKey, diff.owned());
                        announce(cluster, service, ref, diff.changes());
                        return WorkResult.success();
                      })
                  .recover(
                      e -> {
                        // The change may have landed even so (a timeout): keep every name in view.
                        Set<String> maybe = new LinkedHashSet<>(before);
                        maybe.addAll(diff.owned());
                        remember(objectKey, maybe);
                        if (!(e instanceof DnsException d) || !d.rejected()) {
                          return Future.failedFuture(e);
                        }
                        Map<String, ChangeSet> byName = byName(diff.changes());
                        if (byName.size() == 1) {
                          return settle(
                              cluster,
                              service,
                              ref,
                              objectKey,
                              diff.owned(),
                              List.of(),
                              Map.of(byName.keySet().iterator().next(), d),
                              null);
                        }
                        serviceLog.warn(
                            service,
                            "DNS change set of {} names refused ({}); sending each name on its own",
                            byName.size(),
                            e.getMessage());
                        return applyEach(zone, new ArrayList<>(byName.entrySet()), 0, new Split())
                            .compose(
                                split ->
                                    settle(
                                        cluster,
                                        service,
                                        ref,
                                        objectKey,
                                        diff.owned(),
                                        split.landed,
                                        split.rejected,
                                        split.failure));
                      });
            });
  }

  /** What sending a refused change set name by name came to. */
  private static final class Split {
    final List<ChangeSet> landed = new ArrayList<>();
    final Map<String, DnsException> rejected = new LinkedHashMap<>();
    Throwable failure;
  }

  /**
   * Sends the change sets one after the other. A name the server refuses is noted and the next one
   * sent; any other failure (the server gone, a timeout) stops the split, since the names left
   * would most likely fail the same way, and is noted for the key's backoff.
   */
  private Future<Split> applyEach(
      DnsZone zone, List<Map.Entry<String, ChangeSet>> changes, int next, Split split) {
    if (next == changes.size()) {
      return Future.succeededFuture(split);
    }
    Map.Entry<String, ChangeSet> one = changes.get(next);
    return provider
        .apply(zone, one.getValue())
        .transform(
            ar -> {
              if (ar.succeeded()) {
                split.landed.add(one.getValue());
              } else if (ar.cause() instanceof DnsException d && d.rejected()) {
                split.rejected.put(one.getKey(), d);
              } else {
                split.failure = ar.cause();
                return Future.succeededFuture(split);
              }
              return applyEach(zone, changes, next + 1, split);
            });
  }

  /**
   * The outcome of a refused change set once its names were sent on their own: the names that
   * landed are announced, each refused name gets a Warning, and the key is retried with backoff (a
   * refusal may be a race with another writer, which the next read sees as a conflict).
   */
  private Future<WorkResult> settle(
      ClusterAccess cluster,
      ServiceRef service,
      ObjectRef ref,
      String objectKey,
      Set<String> owned,
      List<ChangeSet> landed,
      Map<String, DnsException> rejected,
      Throwable failure) {
    if (!landed.isEmpty()) {
      announce(
          cluster,
          service,
          ref,
          new ChangeSet(
              landed.stream().flatMap(c -> c.deletes().stream()).toList(),
              landed.stream().flatMap(c -> c.replaces().stream()).toList()));
    }
    if (rejected.isEmpty() && failure == null) {
      remember(objectKey, owned);
      return Future.succeededFuture(WorkResult.success());
    }
    rejected.forEach(
        (name, e) -> {
          serviceLog.warn(
              service, "DNS name {} refused, retrying with backoff: {}", name, e.getMessage());
          if (ref != null) {
            cluster
                .events()
                .warning(
                    ref,
                    EventReasons.DNS_RECORD_REJECTED,
                    "Not publishing DNS name "
                        + name
                        + ": "
                        + e.getMessage()
                        + "; retrying with backoff");
          }
        });
    if (failure != null) {
      return Future.failedFuture(failure);
    }
    return Future.succeededFuture(WorkResult.retry(RETRY));
  }

  /** The change set cut into one per name, each keeping its deletes before its replaces. */
  static Map<String, ChangeSet> byName(ChangeSet changes) {
    Map<String, List<RecordSet>> deletes = new LinkedHashMap<>();
    Map<String, List<RecordSet>> replaces = new LinkedHashMap<>();
    Set<String> order = new LinkedHashSet<>();
    for (RecordSet d : changes.deletes()) {
      order.add(d.name());
      deletes.computeIfAbsent(d.name(), n -> new ArrayList<>()).add(d);
    }
    for (RecordSet r : changes.replaces()) {
      order.add(r.name());
      replaces.computeIfAbsent(r.name(), n -> new ArrayList<>()).add(r);
    }
    Map<String, ChangeSet> out = new LinkedHashMap<>();
    for (String name : order) {
      out.put(
          name,
          new ChangeSet(
              deletes.getOrDefault(name, List.of()), replaces.getOrDefault(name, List.of())));
    }
    return out;
  }

  private void announce(ClusterAccess cluster, ServiceRef service, ObjectRef ref, ChangeSet done) {
    String summary = summary(done);
    serviceLog.info(service, "DNS updated: {}", summary);
    if (ref != null) {
      cluster.events().normal(ref, EventReasons.UPDATED_DNS, "Updated DNS names: " + summary);
    }
  }

  /**
   * One Warning for every desired name that breaks DNS's length limits. Such a name is never sent:
   * retrying cannot shorten it, so the sync does not fail for it; a change of the Service, the
   * nodes' labels or the configuration computes the names again.
   */
  private void reportInvalid(
      ClusterAccess cluster, ServiceRef service, ObjectRef ref, Map<String, String> invalid) {
    if (invalid.isEmpty()) {
      return;
    }
    String msg =
        "Not publishing DNS name"
            + (invalid.size() == 1 ? " " : "s ")
            + invalid.entrySet().stream()
                .map(e -> e.getKey() + " (" + e.getValue() + ")")
                .collect(Collectors.joining(", "))
            + "; a shorter Service name, namespace, dns.federation, dns.suffix or region/zone"
            + " label makes it fit";
    serviceLog.warn(service, "{}", msg);
    if (ref != null) {
      cluster.events().warning(ref, EventReasons.INVALID_DNS_NAME, msg);
    }
  }

  /** Names that keep their records while they cannot be computed stay known as the Service's. */
  private void keep(String objectKey, Set<String> names) {
    if (!names.isEmpty()) {
      published.computeIfAbsent(objectKey, k -> new LinkedHashSet<>()).addAll(names);
    }
  }

  /**
   * One Warning naming the hostnames that did not resolve and the names that keep their records for
   * them; the sync is retried with backoff until they resolve.
   */
  private WorkResult holdUnknown(
      ClusterAccess cluster,
      ServiceRef service,
      ObjectRef ref,
      List<ServingCluster> serving,
      Set<String> unknown,
      WorkResult done) {
    String hostnames =
        serving.stream()
            .filter(ServingCluster::addressesUnknown)
            .map(
                c -> "cluster " + c.location().cluster() + ": " + String.join("; ", c.unresolved()))
            .collect(Collectors.joining("; "));
    String msg =
        "Load balancer addresses unknown ("
            + hostnames
            + "): DNS names "
            + String.join(", ", unknown)
            + " keep their records until the hostnames resolve; retrying with backoff";
    serviceLog.warn(service, "{}", msg);
    if (ref != null) {
      cluster.events().warning(ref, EventReasons.DNS_HOSTNAME_UNRESOLVED, msg);
    }
    return done.outcome() == WorkResult.Outcome.SUCCESS ? WorkResult.retry(RETRY) : done;
  }

  private void remember(String objectKey, Set<String> owned) {
    if (owned.isEmpty()) {
      published.remove(objectKey);
    } else {
      published.put(objectKey, new LinkedHashSet<>(owned));
    }
  }

  /** Inside the zone and the domain filter. */
  private boolean manages(DnsZone zone, String name) {
    return manages(zone.name(), options.getDomainFilter(), name);
  }

  static boolean manages(String zone, List<String> domainFilter, String name) {
    if (!DnsNames.within(name, zone)) {
      return false;
    }
    return domainFilter.isEmpty() || domainFilter.stream().anyMatch(d -> DnsNames.within(name, d));
  }

  static String summary(ChangeSet changes) {
    List<String> parts = new ArrayList<>();
    changes.deletes().forEach(d -> parts.add("-" + d.label()));
    changes.replaces().forEach(r -> parts.add(r.label() + " " + String.join(",", r.records())));
    return parts.stream().collect(Collectors.joining("; "));
  }

  public Future<Void> close() {
    return resolver.close().otherwiseEmpty().compose(v -> provider.close());
  }
}
