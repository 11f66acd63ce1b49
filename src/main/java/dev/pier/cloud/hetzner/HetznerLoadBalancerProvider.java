package dev.pier.cloud.hetzner;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.cloud.hetzner.HetznerJson.LoadBalancer;
import dev.pier.log.ServiceLog;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.util.Futures;
import dev.pier.util.RequestFence;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hetzner Cloud load balancers, after hcloud-cloud-controller-manager: a Service owns the load
 * balancer labelled {@code hcloud-ccm/service-uid=<uid>} (so Pier adopts hcloud-ccm's load
 * balancers) and no other. A load balancer already having the Service's name is taken over only
 * with {@code hetzner.adoptByName} and only when it carries no uid label; otherwise the name is
 * refused ({@code LoadBalancerNameTaken}) and nothing is called on it. Reads, host updates and
 * deletes see only the labelled one. It gets one TCP service per Service port (listen port to
 * nodePort) and the nodes' servers ({@code hcloud://<id>} provider ids) as targets. Every change is
 * an Action that is awaited before the next one.
 *
 * <p>Every load balancer Pier makes also carries {@code pier.dev/cluster-uid=<uid>}, the uid of the
 * cluster's {@code kube-system} namespace given to {@link #initialize}: cluster names are not
 * unique, so two clusters sharing a project tell their load balancers apart by this label alone. A
 * load balancer labelled with another cluster's uid is never this cluster's, whatever its other
 * labels say; the orphan sweep lists and deletes only load balancers with this cluster's uid. One
 * marked the old way ({@code pier.dev/cluster=<name>} without a uid) is adopted, labelled with the
 * uid, only when its {@code hcloud-ccm/service-uid} is the uid of a Service of this cluster (at
 * {@link #initialize}, or when that Service is ensured); any other is left alone with a warning.
 */
public final class HetznerLoadBalancerProvider implements LoadBalancerProvider {
  private static final Logger log = LoggerFactory.getLogger(HetznerLoadBalancerProvider.class);
  private static final ServiceLog serviceLog = ServiceLog.of(HetznerLoadBalancerProvider.class);

  /** The label hcloud-ccm and Pier both put on a Service's load balancer. */
  public static final String SERVICE_UID_LABEL = "hcloud-ccm/service-uid";

  /** Pier's ownership labels: the cluster, namespace and name of the Service. */
  public static final String CLUSTER_LABEL = "pier.dev/cluster";

  /** The cluster's identity: the uid of its kube-system namespace. */
  public static final String CLUSTER_UID_LABEL = "pier.dev/cluster-uid";

  public static final String NAMESPACE_LABEL = "pier.dev/namespace";
  public static final String NAME_LABEL = "pier.dev/name";

  private static final String PROVIDER_ID_PREFIX = "hcloud://";

  private final HetznerOptions options;
  private final HetznerApi api;
  // Cluster name -> uid of its kube-system namespace, from initialize.
  private final Map<String, String> clusterUids = new ConcurrentHashMap<>();

  public HetznerLoadBalancerProvider(Vertx vertx, HetznerOptions options) {
    this(vertx, options, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each API request goes: a process that stopped leading sends the
   *     Hetzner API nothing more
   */
  public HetznerLoadBalancerProvider(Vertx vertx, HetznerOptions options, RequestFence fence) {
    if (options.getToken() == null || options.getToken().isBlank()) {
      throw new IllegalArgumentException("the Hetzner API token is empty");
    }
    this.options = options;
    this.api = new HetznerApi(vertx, options, fence);
  }

  @Override
  public String name() {
    return "hetzner";
  }

  /**
   * Remembers the cluster's uid, then adopts the load balancers marked the old way (cluster name,
   * no uid) whose Service is one of {@code services}; the others are left alone with a warning. A
   * failed adoption is logged and retried at the next start; the ensure of a Service adopts its own
   * load balancer anyway.
   */
  @Override
  public Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
    clusterUids.put(cluster.name(), cluster.uid());
    Set<String> serviceUids = new HashSet<>();
    services.forEach(s -> serviceUids.add(s.uid()));
    return guarded(
            () ->
                api.loadBalancers(Map.of("label_selector", CLUSTER_LABEL + "=" + cluster.name()))
                    .compose(lbs -> adoptOldScheme(cluster, lbs, serviceUids)),
            Map.<String, HetznerErrors.Source>of())
        .recover(
            e -> {
              log.warn(
                  "Cluster {}: could not look for load balancers marked without a cluster uid: {}",
                  cluster.name(),
                  e.getMessage());
              return Future.succeededFuture();
            });
  }

  private Future<Void> adoptOldScheme(
      ClusterIdentity cluster, List<LoadBalancer> lbs, Set<String> serviceUids) {
    Future<Void> chain = Future.succeededFuture();
    for (LoadBalancer lb : lbs) {
      if (lb.labels().containsKey(CLUSTER_UID_LABEL)) {
        continue;
      }
      String serviceUid = lb.labels().getOrDefault(SERVICE_UID_LABEL, "");
      if (serviceUid.isEmpty() || !serviceUids.contains(serviceUid)) {
        log.warn(
            "Cluster {}: load balancer {} ({}) is labelled {}={} without {} and its {}={} is no"
                + " Service of this cluster: it may belong to another cluster of the same name, so"
                + " it is left alone and never swept; label it {}={} to hand it to this cluster,"
                + " or delete it by hand",
            cluster.name(),
            lb.id(),
            lb.name(),
            CLUSTER_LABEL,
            cluster.name(),
            CLUSTER_UID_LABEL,
            SERVICE_UID_LABEL,
            serviceUid.isEmpty() ? "\"\"" : serviceUid,
            CLUSTER_UID_LABEL,
            cluster.uid());
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>(lb.labels());
      labels.put(CLUSTER_UID_LABEL, cluster.uid());
      log.info(
          "Cluster {}: adopting load balancer {} ({}): its Service {} exists in this cluster;"
              + " labelling it {}={}",
          cluster.name(),
          lb.id(),
          lb.name(),
          serviceUid,
          CLUSTER_UID_LABEL,
          cluster.uid());
      chain =
          chain.compose(
              v ->
                  api.put("/load_balancers/" + lb.id(), new HetznerJson.Update(null, labels))
                      .mapEmpty());
    }
    return chain;
  }

  /** The uid of the named cluster, given to {@link #initialize}; a retry before that. */
  private String clusterUid(String clusterName) {
    String uid = clusterUids.get(clusterName);
    if (uid == null) {
      throw new ProviderException.Retry(
          "cluster "
              + clusterName
              + ": its identity (kube-system uid) is not known yet: the provider was not"
              + " initialized for it");
    }
    return uid;
  }

  /** True when the load balancer is labelled as another cluster's. */
  private static boolean foreign(LoadBalancer lb, String clusterUid) {
    String marked = lb.labels().get(CLUSTER_UID_LABEL);
    return marked != null && !marked.equals(clusterUid);
  }

  @Override
  public String loadBalancerName(String clusterName, LbService service) {
    String fromAnnotation = service.annotations().get(HetznerSpec.NAME);
    if (fromAnnotation != null && !fromAnnotation.isBlank()) {
      return fromAnnotation.trim();
    }
    return service.defaultLoadBalancerName();
  }

  @Override
  public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
    return guarded(
        () ->
            owned(clusterName, service)
                .map(
                    lb ->
                        lb == null
                            ? Optional.<LbStatus>empty()
                            : Optional.of(status(lb, lenientSpec(service)))),
        Map.of());
  }

  @Override
  public Future<EnsureResult> ensureLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    HetznerSpec spec;
    try {
      spec = HetznerSpec.of(service, options, loadBalancerName(clusterName, service));
    } catch (ProviderException e) {
      return Future.failedFuture(e);
    }
    List<EnsureResult.Warning> warnings = new ArrayList<>(unsupported(service));
    Map<Long, String> targets = targets(nodes, warnings);
    Map<String, HetznerErrors.Source> fields = fields(service, spec);
    ServiceRef p = service.ref();
    return guarded(
        () ->
            findForEnsure(clusterName, service, spec.name())
                .compose(
                    lb -> {
                      if (lb == null) {
                        return create(clusterName, service, spec, targets);
                      }
                      return update(clusterName, service, spec, lb, targets, warnings)
                          .map(v -> lb.id());
                    })
                .compose(id -> api.get("/load_balancers/" + id))
                .map(
                    body -> {
                      LoadBalancer lb = body.loadBalancer();
                      LbStatus status = status(lb, spec);
                      if (status.isEmpty()) {
                        throw new ProviderException.Retry(
                            p + ": load balancer " + lb.id() + " has no public address yet");
                      }
                      return new EnsureResult(status, warnings);
                    }),
        fields);
  }

  @Override
  public Future<Void> updateLoadBalancerHosts(
      String clusterName, LbService service, List<LbNode> nodes) {
    HetznerSpec spec = lenientSpec(service);
    Map<Long, String> targets = targets(nodes, new ArrayList<>());
    return guarded(
        () ->
            owned(clusterName, service)
                .compose(
                    lb -> {
                      if (lb == null) {
                        return Future.failedFuture(
                            new ProviderException.Retry(
                                service.ref() + ": no load balancer to update yet"));
                      }
                      return syncTargets(service, lb, targets, spec.usePrivateIp());
                    }),
        Map.of());
  }

  @Override
  public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
    return guarded(
        () ->
            owned(clusterName, service)
                .compose(
                    lb ->
                        lb == null
                            ? Future.succeededFuture()
                            : delete(service.ref(), lb, service.uid())),
        Map.of());
  }

  @Override
  public Optional<OwnedLoadBalancers> ownedLoadBalancers() {
    if (!options.isOrphanCleanup()) {
      return Optional.empty();
    }
    return Optional.of(
        new OwnedLoadBalancers() {
          @Override
          public Future<List<OwnedLoadBalancer>> list(String clusterName) {
            return guarded(
                () ->
                    api.loadBalancers(
                            Map.of(
                                "label_selector",
                                CLUSTER_UID_LABEL
                                    + "="
                                    + clusterUid(clusterName)
                                    + ","
                                    + SERVICE_UID_LABEL))
                        .map(
                            lbs ->
                                lbs.stream()
                                    .map(
                                        lb ->
                                            new OwnedLoadBalancer(
                                                Long.toString(lb.id()),
                                                lb.name(),
                                                lb.labels().getOrDefault(SERVICE_UID_LABEL, ""),
                                                clusterName
                                                    + "/"
                                                    + lb.labels().getOrDefault(NAMESPACE_LABEL, "")
                                                    + "/"
                                                    + lb.labels().getOrDefault(NAME_LABEL, "")))
                                    .toList()),
                Map.of());
          }

          @Override
          public Future<Void> delete(String clusterName, OwnedLoadBalancer lb) {
            return guarded(
                () ->
                    api.get("/load_balancers/" + lb.id())
                        .compose(
                            body -> {
                              LoadBalancer found = body.loadBalancer();
                              if (found.protection().delete()) {
                                return Future.failedFuture(
                                    new ProviderException.Retry(
                                        "load balancer "
                                            + lb.id()
                                            + " has delete protection; delete it by hand"));
                              }
                              String uid = clusterUid(clusterName);
                              if (!uid.equals(found.labels().get(CLUSTER_UID_LABEL))) {
                                return Future.failedFuture(
                                    new ProviderException.Retry(
                                        "load balancer "
                                            + lb.id()
                                            + " no longer carries "
                                            + CLUSTER_UID_LABEL
                                            + "="
                                            + uid
                                            + "; left alone"));
                              }
                              return HetznerLoadBalancerProvider.this.delete(
                                  lb.service(clusterName), found, lb.serviceUid());
                            })
                        .recover(
                            e ->
                                e instanceof HetznerApiException h && h.isNotFound()
                                    ? Future.succeededFuture()
                                    : Future.failedFuture(e)),
                Map.of());
          }
        });
  }

  @Override
  public Future<Void> close() {
    api.close();
    return Future.succeededFuture();
  }

  // --- finding, creating, updating, deleting -------------------------------------------------

  /**
   * The Service's own load balancer: the one labelled {@code hcloud-ccm/service-uid=<uid>} and not
   * labelled as another cluster's, or null. Reads, host updates and deletes only ever see this one,
   * so a Service never changes or deletes a load balancer it does not own, whatever its name
   * annotation says. One without a cluster uid is this cluster's: its Service is.
   */
  private Future<LoadBalancer> owned(String clusterName, LbService service) {
    String clusterUid = clusterUid(clusterName);
    return api.loadBalancers(Map.of("label_selector", SERVICE_UID_LABEL + "=" + service.uid()))
        .map(
            all -> {
              List<LoadBalancer> byUid = new ArrayList<>();
              for (LoadBalancer lb : all) {
                if (foreign(lb, clusterUid)) {
                  serviceLog.warn(
                      service.ref(),
                      "load balancer {} ({}) carries {}={} but {}={}, another cluster's; not"
                          + " this Service's",
                      lb.id(),
                      lb.name(),
                      SERVICE_UID_LABEL,
                      service.uid(),
                      CLUSTER_UID_LABEL,
                      lb.labels().get(CLUSTER_UID_LABEL));
                } else {
                  byUid.add(lb);
                }
              }
              if (byUid.isEmpty()) {
                return null;
              }
              if (byUid.size() > 1) {
                serviceLog.warn(
                    service.ref(),
                    "{} load balancers carry {}={}; using {}",
                    byUid.size(),
                    SERVICE_UID_LABEL,
                    service.uid(),
                    byUid.get(0).id());
              }
              return byUid.get(0);
            });
  }

  /**
   * The load balancer an ensure works on: the Service's own; else, when one already has the
   * Service's load balancer name, that one only if adoption by name is on and it carries no uid
   * label (the update then labels it as this Service's); null when the name is free. A name taken
   * by a load balancer that is not the Service's fails with {@code LoadBalancerNameTaken}, before
   * anything is called on it; so does renaming the Service's own load balancer to such a name.
   */
  private Future<LoadBalancer> findForEnsure(String clusterName, LbService service, String name) {
    String clusterUid = clusterUid(clusterName);
    return owned(clusterName, service)
        .compose(
            own -> {
              if (own != null && own.name().equals(name)) {
                return Future.succeededFuture(own);
              }
              return api.loadBalancers(Map.of("name", name))
                  .map(
                      byName -> {
                        if (own != null) {
                          // A rename of the Service's own load balancer.
                          if (byName.isEmpty() || byName.get(0).id() == own.id()) {
                            return own;
                          }
                          throw renameTaken(own, byName.get(0));
                        }
                        if (byName.isEmpty()) {
                          return null;
                        }
                        LoadBalancer lb = byName.get(0);
                        String owner = lb.labels().getOrDefault(SERVICE_UID_LABEL, "");
                        if (foreign(lb, clusterUid)) {
                          throw nameTaken(service, lb, owner, true);
                        }
                        if (owner.equals(service.uid())) {
                          return lb;
                        }
                        if (owner.isEmpty() && options.isAdoptByName()) {
                          serviceLog.info(
                              service.ref(),
                              "adopting unlabelled load balancer {} ({}) by name",
                              lb.id(),
                              lb.name());
                          return lb;
                        }
                        throw nameTaken(service, lb, owner, false);
                      });
            });
  }

  /** The permanent error for renaming the Service's load balancer to a name another one has. */
  private static ProviderException.InvalidInput renameTaken(LoadBalancer own, LoadBalancer other) {
    String field = "metadata.annotations[" + HetznerSpec.NAME + "]";
    return new ProviderException.InvalidInput(
        field,
        other.name(),
        field
            + "="
            + other.name()
            + ": load balancer "
            + other.id()
            + " already has this name, so this Service's load balancer "
            + own.id()
            + " ("
            + own.name()
            + ") cannot be renamed to it; pick another name",
        "LoadBalancerNameTaken");
  }

  /** The permanent error for a name that belongs to a load balancer the Service does not own. */
  private ProviderException.InvalidInput nameTaken(
      LbService service, LoadBalancer lb, String owner, boolean otherCluster) {
    boolean annotated = service.annotations().containsKey(HetznerSpec.NAME);
    String field =
        annotated ? "metadata.annotations[" + HetznerSpec.NAME + "]" : "load balancer name";
    String why =
        otherCluster
            ? "it is labelled "
                + CLUSTER_UID_LABEL
                + "="
                + lb.labels().get(CLUSTER_UID_LABEL)
                + ", another cluster's, and is never taken over; pick another name"
            : owner.isEmpty()
                ? "it carries no "
                    + SERVICE_UID_LABEL
                    + " label, so it is not this Service's; pick another name, or label it "
                    + SERVICE_UID_LABEL
                    + "="
                    + service.uid()
                    + " (or enable hetzner.adoptByName) to hand it over to this Service"
                : "it is labelled "
                    + SERVICE_UID_LABEL
                    + "="
                    + owner
                    + " for another Service and is never taken over; pick another name";
    return new ProviderException.InvalidInput(
        field,
        lb.name(),
        field + "=" + lb.name() + ": load balancer " + lb.id() + " of this name exists and " + why,
        "LoadBalancerNameTaken");
  }

  private Future<Long> create(
      String clusterName, LbService service, HetznerSpec spec, Map<Long, String> targets) {
    HetznerJson.Create body =
        new HetznerJson.Create(
            spec.name(),
            spec.type(),
            new HetznerJson.Algorithm(spec.algorithm()),
            labels(clusterName, clusterUid(clusterName), service),
            spec.services().stream().map(HetznerSpec.ServiceSpec::toApi).toList(),
            targets.keySet().stream()
                .map(id -> HetznerJson.Target.of(id, spec.usePrivateIp()))
                .toList(),
            true,
            spec.location(),
            spec.location() != null ? null : spec.networkZone());
    serviceLog.info(
        service.ref(),
        "creating load balancer {} ({}, {})",
        spec.name(),
        spec.type(),
        spec.location() != null ? spec.location() : spec.networkZone());
    return api.post("/load_balancers", body)
        .compose(
            created -> {
              long id = created.loadBalancer().id();
              return api.awaitAction(created.action()).map(v -> id);
            });
  }

  private Future<Void> update(
      String clusterName,
      LbService service,
      HetznerSpec spec,
      LoadBalancer lb,
      Map<Long, String> targets,
      List<EnsureResult.Warning> warnings) {
    long id = lb.id();
    ServiceRef p = service.ref();
    Future<Void> chain = Future.succeededFuture();

    Map<String, String> wanted = labels(clusterName, clusterUid(clusterName), service);
    Map<String, String> labels = null;
    if (!lb.labels().entrySet().containsAll(wanted.entrySet())) {
      labels = new LinkedHashMap<>(lb.labels());
      labels.putAll(wanted);
    }
    String name = null;
    if (!spec.name().equals(lb.name())) {
      serviceLog.info(p, "renaming load balancer {} {} -> {}", id, lb.name(), spec.name());
      name = spec.name();
    }
    if (labels != null || name != null) {
      HetznerJson.Update put = new HetznerJson.Update(name, labels);
      chain = chain.compose(v -> api.put("/load_balancers/" + id, put).mapEmpty());
    }
    String type = lb.loadBalancerType().name();
    if (!spec.type().equals(type)) {
      serviceLog.info(p, "changing load balancer {} type {} -> {}", id, type, spec.type());
      chain =
          chain.compose(v -> action(id, "change_type", new HetznerJson.ChangeType(spec.type())));
    }
    if (!spec.algorithm().equals(lb.algorithm().type())) {
      chain =
          chain.compose(
              v -> action(id, "change_algorithm", new HetznerJson.Algorithm(spec.algorithm())));
    }
    String location = lb.location().name();
    if (service.annotations().containsKey(HetznerSpec.LOCATION)
        && location != null
        && !location.equals(spec.location())) {
      warnings.add(
          new EnsureResult.Warning(
              "LoadBalancerLocationFixed",
              "metadata.annotations["
                  + HetznerSpec.LOCATION
                  + "]="
                  + spec.location()
                  + ": load balancer "
                  + id
                  + " stays in "
                  + location
                  + "; a load balancer cannot move (recreate the Service to move it)"));
    }
    chain = chain.compose(v -> syncServices(p, id, lb, spec));
    return chain.compose(v -> syncTargets(service, lb, targets, spec.usePrivateIp()));
  }

  private Future<Void> syncServices(ServiceRef p, long id, LoadBalancer lb, HetznerSpec spec) {
    Map<Integer, HetznerJson.Service> existing = new TreeMap<>();
    lb.services().forEach(s -> existing.put(s.listenPort(), s));
    Map<Integer, HetznerSpec.ServiceSpec> desired = new LinkedHashMap<>();
    spec.services().forEach(s -> desired.put(s.listenPort(), s));
    Future<Void> chain = Future.succeededFuture();
    for (Integer port : existing.keySet()) {
      if (!desired.containsKey(port)) {
        serviceLog.info(p, "removing service {} from load balancer {}", port, id);
        chain = chain.compose(v -> action(id, "delete_service", new HetznerJson.ListenPort(port)));
      }
    }
    for (HetznerSpec.ServiceSpec s : desired.values()) {
      HetznerJson.Service current = existing.get(s.listenPort());
      if (current == null) {
        serviceLog.info(
            p,
            "adding service {} -> {} to load balancer {}",
            s.listenPort(),
            s.destinationPort(),
            id);
        chain = chain.compose(v -> action(id, "add_service", s.toApi()));
      } else if (!s.matches(current)) {
        serviceLog.info(
            p,
            "updating service {} -> {} of load balancer {}",
            s.listenPort(),
            s.destinationPort(),
            id);
        chain = chain.compose(v -> action(id, "update_service", s.toApi()));
      }
    }
    return chain;
  }

  private Future<Void> syncTargets(
      LbService service, LoadBalancer lb, Map<Long, String> targets, boolean usePrivateIp) {
    long id = lb.id();
    ServiceRef p = service.ref();
    Map<Long, Boolean> existing = new HashMap<>();
    for (HetznerJson.Target t : lb.targets()) {
      if ("server".equals(t.type()) && t.server() != null) {
        existing.put(t.server().id(), Boolean.TRUE.equals(t.usePrivateIp()));
      }
    }
    Future<Void> chain = Future.succeededFuture();
    for (Map.Entry<Long, Boolean> e : existing.entrySet()) {
      long server = e.getKey();
      if (!targets.containsKey(server) || e.getValue() != usePrivateIp) {
        serviceLog.info(p, "removing server {} from load balancer {}", server, id);
        chain =
            chain.compose(
                v ->
                    action(id, "remove_target", HetznerJson.Target.of(server, null))
                        .recover(
                            err -> ignoreCode(err, "load_balancer_target_not_found", "not_found")));
      }
    }
    for (Map.Entry<Long, String> t : targets.entrySet()) {
      Boolean current = existing.get(t.getKey());
      if (current == null || current != usePrivateIp) {
        serviceLog.info(
            p, "adding server {} (node {}) to load balancer {}", t.getKey(), t.getValue(), id);
        chain =
            chain.compose(
                v -> action(id, "add_target", HetznerJson.Target.of(t.getKey(), usePrivateIp)));
      }
    }
    return chain;
  }

  /**
   * Deletes the load balancer if it carries {@code hcloud-ccm/service-uid=<uid>}; one without that
   * label is never deleted (it is not the Service's).
   */
  private Future<Void> delete(ServiceRef p, LoadBalancer lb, String uid) {
    long id = lb.id();
    if (uid == null || uid.isEmpty() || !uid.equals(lb.labels().get(SERVICE_UID_LABEL))) {
      return Future.failedFuture(
          new ProviderException.Retry(
              p
                  + ": load balancer "
                  + id
                  + " ("
                  + lb.name()
                  + ") does not carry "
                  + SERVICE_UID_LABEL
                  + "="
                  + uid
                  + "; not deleting it"));
    }
    if (lb.protection().delete()) {
      // hcloud-ccm's behaviour: a protected load balancer is left in place, the Service goes.
      serviceLog.warn(
          p,
          "load balancer {} ({}) has delete protection; left in place, delete it by hand",
          id,
          lb.name());
      return Future.succeededFuture();
    }
    serviceLog.info(p, "deleting load balancer {} ({})", id, lb.name());
    return api.delete("/load_balancers/" + id)
        .recover(
            e ->
                e instanceof HetznerApiException h && h.isNotFound()
                    ? Future.succeededFuture()
                    : Future.failedFuture(e));
  }

  private Future<Void> action(long id, String command, Object body) {
    return api.post("/load_balancers/" + id + "/actions/" + command, body)
        .compose(r -> api.awaitAction(r.action()));
  }

  private static Future<Void> ignoreCode(Throwable e, String... codes) {
    if (e instanceof HetznerApiException h) {
      for (String c : codes) {
        if (c.equals(h.code())) {
          return Future.succeededFuture();
        }
      }
    }
    return Future.failedFuture(e);
  }

  // --- helpers -------------------------------------------------------------------------------

  /** Service settings Hetzner TCP load balancers cannot honour: Warnings, not failures. */
  private static List<EnsureResult.Warning> unsupported(LbService service) {
    List<EnsureResult.Warning> w = new ArrayList<>();
    if (!service.sourceRanges().isEmpty()) {
      w.add(
          new EnsureResult.Warning(
              "LoadBalancerSourceRangesUnsupported",
              "spec.loadBalancerSourceRanges="
                  + service.sourceRanges()
                  + ": Hetzner load balancers do not filter clients; use a firewall on the"
                  + " servers"));
    }
    if (service.loadBalancerIp() != null && !service.loadBalancerIp().isEmpty()) {
      w.add(
          new EnsureResult.Warning(
              "LoadBalancerIPUnsupported",
              "spec.loadBalancerIP="
                  + service.loadBalancerIp()
                  + ": Hetzner assigns load balancer addresses; the field is ignored"));
    }
    return w;
  }

  /** Server ids of the nodes, by {@code hcloud://<id>}; nodes without one get a warning. */
  private static Map<Long, String> targets(
      List<LbNode> nodes, List<EnsureResult.Warning> warnings) {
    Map<Long, String> ids = new TreeMap<>();
    for (LbNode n : nodes) {
      String pid = n.providerId();
      if (pid.startsWith(PROVIDER_ID_PREFIX)) {
        try {
          ids.put(Long.parseLong(pid.substring(PROVIDER_ID_PREFIX.length())), n.name());
          continue;
        } catch (NumberFormatException ignored) {
          // reported below
        }
      }
      warnings.add(
          new EnsureResult.Warning(
              "NodeNotAHetznerServer",
              "Node "
                  + n.name()
                  + " spec.providerID="
                  + (pid.isEmpty() ? "\"\"" : pid)
                  + " is not hcloud://<server id>; it gets no traffic"));
    }
    return ids;
  }

  private static Map<String, String> labels(
      String clusterName, String clusterUid, LbService service) {
    ServiceKey key = service.key();
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(SERVICE_UID_LABEL, service.uid());
    labels.put(CLUSTER_LABEL, clusterName);
    labels.put(CLUSTER_UID_LABEL, clusterUid);
    labels.put(NAMESPACE_LABEL, key.namespace());
    labels.put(NAME_LABEL, key.name());
    return labels;
  }

  private static LbStatus status(LoadBalancer lb, HetznerSpec spec) {
    HetznerJson.PublicNet net = lb.publicNet();
    if (!net.enabled()) {
      return LbStatus.EMPTY;
    }
    String mode = spec.proxyProtocol() ? "Proxy" : null;
    List<LbIngress> ingress = new ArrayList<>();
    String v4 = net.ipv4().ip();
    if (v4 != null && !v4.isEmpty()) {
      ingress.add(new LbIngress(v4, null, mode, List.of()));
    }
    String v6 = net.ipv6().ip();
    if (v6 != null && !v6.isEmpty() && !spec.ipv6Disabled()) {
      ingress.add(new LbIngress(v6, null, mode, List.of()));
    }
    return new LbStatus(ingress);
  }

  /** The spec without failing on bad annotations (for reads and host updates). */
  private HetznerSpec lenientSpec(LbService service) {
    try {
      return HetznerSpec.of(service, options, loadBalancerName("", service));
    } catch (ProviderException e) {
      boolean proxy = "true".equals(service.annotations().get(HetznerSpec.PROXY_PROTOCOL));
      boolean privateIp =
          service.annotations().containsKey(HetznerSpec.USE_PRIVATE_IP)
              ? "true".equals(service.annotations().get(HetznerSpec.USE_PRIVATE_IP))
              : options.isUsePrivateIp();
      boolean v6off = "true".equals(service.annotations().get(HetznerSpec.IPV6_DISABLED));
      return new HetznerSpec("", "", null, null, "", proxy, privateIp, v6off, List.of());
    }
  }

  /** Request fields whose invalid_input errors point back at an annotation. */
  private static Map<String, HetznerErrors.Source> fields(LbService service, HetznerSpec spec) {
    Map<String, HetznerErrors.Source> m = new HashMap<>();
    m.put("name", new HetznerErrors.Source(HetznerSpec.NAME, spec.name()));
    m.put("load_balancer_type", new HetznerErrors.Source(HetznerSpec.TYPE, spec.type()));
    if (spec.location() != null) {
      m.put("location", new HetznerErrors.Source(HetznerSpec.LOCATION, spec.location()));
    }
    if (spec.networkZone() != null) {
      m.put("network_zone", new HetznerErrors.Source(HetznerSpec.NETWORK_ZONE, spec.networkZone()));
    }
    m.put("algorithm", new HetznerErrors.Source(HetznerSpec.ALGORITHM, spec.algorithm()));
    return m;
  }

  private static <T> Future<T> guarded(
      Supplier<Future<T>> call, Map<String, HetznerErrors.Source> fields) {
    return Futures.call(call).recover(e -> Future.failedFuture(HetznerErrors.map(e, fields)));
  }
}
