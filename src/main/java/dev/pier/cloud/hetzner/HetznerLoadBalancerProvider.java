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
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hetzner Cloud load balancers, after hcloud-cloud-controller-manager. Which load balancer is a
 * Service's, and which existing ones are adopted or refused, is {@link HetznerOwnership}'s: reads,
 * host updates and deletes see only the Service's own. It gets one TCP service per Service port
 * (listen port to nodePort) and the nodes' servers ({@code hcloud://<id>} provider ids) as targets.
 * Every change is an Action that is awaited before the next one.
 *
 * <p>Every load balancer Pier makes carries {@code pier.dev/cluster-uid=<uid>}, the uid of the
 * cluster's {@code kube-system} namespace given to {@link #initialize}; one marked the old way
 * ({@code pier.dev/cluster=<name>} without a uid) is adopted at {@link #initialize}, or when its
 * Service is ensured, only when its Service is one of this cluster's.
 */
public final class HetznerLoadBalancerProvider implements LoadBalancerProvider {
  private static final Logger log = LoggerFactory.getLogger(HetznerLoadBalancerProvider.class);
  private static final ServiceLog serviceLog = ServiceLog.of(HetznerLoadBalancerProvider.class);

  /** The label hcloud-ccm and Pier both put on a Service's load balancer. */
  public static final String SERVICE_UID_LABEL = HetznerOwnership.SERVICE_UID_LABEL;

  /** Pier's ownership labels: the cluster, namespace and name of the Service. */
  public static final String CLUSTER_LABEL = HetznerOwnership.CLUSTER_LABEL;

  /** The cluster's identity: the uid of its kube-system namespace. */
  public static final String CLUSTER_UID_LABEL = HetznerOwnership.CLUSTER_UID_LABEL;

  public static final String NAMESPACE_LABEL = HetznerOwnership.NAMESPACE_LABEL;
  public static final String NAME_LABEL = HetznerOwnership.NAME_LABEL;

  private static final String PROVIDER_ID_PREFIX = "hcloud://";

  private final HetznerOptions options;
  private final HetznerApi api;
  private final HetznerOwnership ownership;

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
    this.ownership = new HetznerOwnership(api, options.isAdoptByName());
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
    ownership.remember(cluster);
    Set<String> serviceUids = new HashSet<>();
    services.forEach(s -> serviceUids.add(s.uid()));
    return guarded(
            () -> ownership.adoptOldScheme(cluster, serviceUids),
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
            ownership
                .owned(clusterName, service)
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
            ownership
                .findForEnsure(clusterName, service, spec.name())
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
            ownership
                .owned(clusterName, service)
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
            ownership
                .owned(clusterName, service)
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
            return guarded(() -> ownership.listOwned(clusterName), Map.of());
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
                              Optional<ProviderException> refused =
                                  ownership.refuseSweep(clusterName, lb.id(), found);
                              if (refused.isPresent()) {
                                return Future.failedFuture(refused.get());
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

  // --- creating, updating, deleting ---------------------------------------------------------

  private Future<Long> create(
      String clusterName, LbService service, HetznerSpec spec, Map<Long, String> targets) {
    HetznerJson.Create body =
        new HetznerJson.Create(
            spec.name(),
            spec.type(),
            new HetznerJson.Algorithm(spec.algorithm()),
            ownership.labels(clusterName, service),
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

    Map<String, String> wanted = ownership.labels(clusterName, service);
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
    Optional<ProviderException> refused = HetznerOwnership.refuseDelete(p, lb, uid);
    if (refused.isPresent()) {
      return Future.failedFuture(refused.get());
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
