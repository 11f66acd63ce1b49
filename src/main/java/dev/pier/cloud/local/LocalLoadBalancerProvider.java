package dev.pier.cloud.local;

import dev.pier.cloud.AddressPoolUsage;
import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.events.EventSink;
import dev.pier.log.ServiceLog;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.util.Futures;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded {@code local} provider: a real load balancer inside the Pier process, in the spirit
 * of cloud-provider-kind or k3s ServiceLB. Each Service gets an address from the {@link
 * AddressPool}, from the pools its namespace may use ({@link PoolSpec}); for each of its ports Pier
 * listens on {@code address:port} and proxies TCP connections ({@link TcpProxy}) and UDP datagrams
 * ({@link UdpProxy}, one session socket per client) to the node port on every node. The status says
 * {@code ipMode: Proxy}.
 *
 * <p>Per-Service annotations ({@link LocalAnnotations}): {@code pier.dev/address-pool} chooses a
 * named pool, {@code pier.dev/load-balancer-ips} requests addresses (one per IP family), and {@code
 * pier.dev/allow-shared-ip} lets Services of a namespace with the same key and no port in common
 * share one address, each with its own listeners.
 *
 * <p>A dual-stack Service ({@code ipFamilyPolicy} {@code PreferDualStack} or {@code
 * RequireDualStack} with both {@code ipFamilies}, or an IPv4 and an IPv6 address requested) gets an
 * address of each family when the pools it may use hold both ({@link AddressChoice}), listeners on
 * both, and an ingress entry per address in its {@code ipFamilies} order.
 *
 * <p>Backends are health-checked on Vert.x periodic timers: a TCP connect to {@code node:nodePort},
 * or for {@code externalTrafficPolicy: Local} an HTTP {@code GET /healthz} on {@code
 * node:healthCheckNodePort}. Connections are spread round-robin over healthy backends; a failed
 * connect moves on to the next backend. UDP ports are health-checked only through {@code /healthz}
 * (a TCP connect says nothing about a UDP port).
 *
 * <p><b>Threading:</b> all state (allocations, listeners, sessions, checks) is confined to one
 * Vert.x context, captured with {@code vertx.getOrCreateContext()} in the constructor. Every SPI
 * call hops onto that context when it arrives from elsewhere, and its future completes back on the
 * caller's context (or, for a caller outside Vert.x, on the provider's event loop). Servers,
 * clients and timers are all created from the provider's context, so their handlers run on it too;
 * nothing here blocks. Consequently all proxied traffic runs on that one event loop: ample for
 * development and test clusters, which is what this provider is for.
 *
 * <p>{@code spec.loadBalancerSourceRanges} is enforced by the proxy ({@link SourceRanges}): a TCP
 * connection from outside the ranges is closed as soon as it is accepted, a UDP datagram from
 * outside is dropped; an empty list admits everyone. Changed ranges apply on the next ensure
 * without re-binding, and end the open connections and UDP sessions of clients they leave out.
 *
 * <p>A port that cannot be bound (address in use, privileged port, address not assignable) does not
 * fail the Service: the other ports work, the port's status carries an error ({@code AddressInUse},
 * {@code PermissionDenied}, {@code BindFailed}), a {@code PortBindFailed} warning is returned, and
 * the next ensure tries to bind again.
 *
 * <p>What the proxy holds open is limited ({@link ProxyLimits}, {@link LoadBalancerUsage}): TCP
 * connections per load balancer and overall (one more is closed as soon as it is accepted), TCP
 * connections idle either way, and UDP sessions per load balancer and overall (a new client at a
 * limit ends the least recently used session). Each load balancer's open connections and sessions,
 * refusals and evictions are meters in the registry; a limit that bites is a Warning Event on the
 * Service through the injected {@link EventSink}, rate-limited ({@link LimitWarning}).
 *
 * <p>Listeners inside one Vert.x instance share a server bound to the same {@code address:port}
 * (Vert.x server sharing); this only matters if something else in the process listens on a pool
 * address.
 */
public final class LocalLoadBalancerProvider
    implements LoadBalancerProvider, AddressPoolUsage.Source {

  /** The provider's configured name. */
  public static final String NAME = "local";

  /** The {@code ipMode} of every ingress: traffic reaches the nodes through a proxy. */
  public static final String IP_MODE = "Proxy";

  private static final Logger log = LoggerFactory.getLogger(LocalLoadBalancerProvider.class);
  private static final ServiceLog serviceLog = ServiceLog.of(LocalLoadBalancerProvider.class);

  private final Vertx vertx;
  private final Context context;
  private final LocalProviderOptions options;
  private final AddressPool pool;
  private final AddressChoice addresses;
  private final NetClient proxyClient;
  private final HealthChecks healthChecks;
  private final ProxyLimits limits;
  private final Map<String, Balancer> balancers = new HashMap<>();
  private boolean closed;

  /**
   * Creates the provider. State is confined to the context current at construction, or to a new
   * event-loop context when constructed outside Vert.x.
   *
   * @throws IllegalArgumentException when the options' pools are malformed
   */
  public LocalLoadBalancerProvider(Vertx vertx, LocalProviderOptions options) {
    this(vertx, options, new SimpleMeterRegistry(), (ref, type, reason, message) -> {});
  }

  /**
   * Creates the provider, publishing each load balancer's open connections and UDP sessions in
   * {@code registry} and warning a Service through {@code events} when one of the limits bites.
   *
   * @throws IllegalArgumentException when the options' pools are malformed
   */
  public LocalLoadBalancerProvider(
      Vertx vertx, LocalProviderOptions options, MeterRegistry registry, EventSink events) {
    this.vertx = vertx;
    this.options = options;
    this.pool = AddressPool.of(options.getPools());
    this.addresses = new AddressChoice(pool);
    this.context = vertx.getOrCreateContext();
    this.proxyClient = vertx.createNetClient();
    this.healthChecks = new HealthChecks(vertx, options);
    this.limits = new ProxyLimits(options, registry, events);
    limits.checkFileDescriptors();
  }

  @Override
  public List<AddressPoolUsage> addressPools() {
    return pool.usage();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String loadBalancerName(String clusterName, LbService service) {
    return service.defaultLoadBalancerName();
  }

  @Override
  public Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
    return call(
        () -> {
          int restored = 0;
          for (LbService svc : services) {
            restored += addresses.restore(svc);
          }
          log.info(
              "Cluster {}: restored {} load balancer addresses from Service status, pools {}",
              cluster.name(),
              restored,
              pool.describe());
          return Future.succeededFuture();
        });
  }

  @Override
  public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
    return call(
        () -> {
          String key = service.key().toString();
          Balancer b = balancers.get(key);
          if (b != null) {
            return Future.succeededFuture(Optional.of(b.status()));
          }
          List<LbIngress> ingress = new ArrayList<>(2);
          for (String held : List.of(key, AddressPool.secondFamilyKey(key))) {
            pool.lookup(held)
                .ifPresent(ip -> ingress.add(new LbIngress(ip, null, IP_MODE, List.of())));
          }
          return Future.succeededFuture(
              ingress.isEmpty() ? Optional.empty() : Optional.of(new LbStatus(ingress)));
        });
  }

  @Override
  public Future<EnsureResult> ensureLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return call(() -> ensure(service, nodes));
  }

  @Override
  public Future<Void> updateLoadBalancerHosts(
      String clusterName, LbService service, List<LbNode> nodes) {
    return call(
        () -> {
          Balancer b = balancers.get(service.key().toString());
          if (b == null) {
            return Future.failedFuture(
                new ProviderException.Retry(
                    service.ref() + " has no load balancer yet; it must be ensured first"));
          }
          b.hosts = backendHosts(nodes);
          b.healthCheckPort = service.needsHealthCheck() ? service.healthCheckNodePort() : 0;
          b.retarget();
          serviceLog.info(b.ref, "load balancer backends are now {}", List.of(b.hosts));
          return Future.succeededFuture();
        });
  }

  @Override
  public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
    return call(() -> delete(service.key().toString(), service.ref()));
  }

  /**
   * Lists the load balancers of this process: every address held for the cluster, whether ensured
   * or restored from a Service's status by {@link #initialize}, with the Service's uid and key (id:
   * the address; name: the key). This provider has no state outside the process, so a Service
   * deleted while Pier was down leaves nothing behind (its status, which restored the address, is
   * gone with it). What the sweep finds here are Services deleted while Pier ran whose deletion it
   * missed (a Service without the finalizer whose delete event fell into a watch gap), and
   * addresses restored from Services deleted between {@code initialize} and the informers' sync.
   */
  @Override
  public Optional<OwnedLoadBalancers> ownedLoadBalancers() {
    return Optional.of(
        new OwnedLoadBalancers() {
          @Override
          public Future<List<OwnedLoadBalancer>> list(String clusterName) {
            return call(() -> Future.succeededFuture(owned(clusterName)));
          }

          @Override
          public Future<Void> delete(String clusterName, OwnedLoadBalancer lb) {
            return call(
                () -> {
                  String key = lb.serviceKey();
                  String uid = pool.uid(key).orElse(null);
                  if (uid == null
                      || !uid.equals(lb.serviceUid())
                      || !ServiceKey.parse(key).cluster().equals(clusterName)) {
                    // Gone already, or the key now belongs to another Service: nothing to do.
                    return Future.succeededFuture();
                  }
                  return LocalLoadBalancerProvider.this.delete(key, lb.service(clusterName));
                });
          }
        });
  }

  private List<OwnedLoadBalancer> owned(String clusterName) {
    List<OwnedLoadBalancer> owned = new ArrayList<>();
    for (String key : pool.keys()) {
      ServiceKey parsed;
      try {
        parsed = ServiceKey.parse(key);
      } catch (IllegalArgumentException e) {
        continue;
      }
      if (!parsed.cluster().equals(clusterName)) {
        continue;
      }
      owned.add(
          new OwnedLoadBalancer(pool.lookup(key).orElse(""), key, pool.uid(key).orElse(""), key));
    }
    return owned;
  }

  /** Closes the Service's listeners, then releases its address; succeeds when there is none. */
  private Future<Void> delete(String key, ServiceRef ref) {
    Balancer b = balancers.remove(key);
    if (b == null) {
      pool.release(key).ifPresent(ip -> serviceLog.info(ref, "released address {}", ip));
      pool.release(AddressPool.secondFamilyKey(key))
          .ifPresent(ip -> serviceLog.info(ref, "released address {}", ip));
      return Future.succeededFuture();
    }
    b.usage.close();
    return Future.join(b.closeListeners())
        .transform(
            ar -> {
              // Release only after the listeners are gone, so that the next holder can bind.
              if (!balancers.containsKey(key)) {
                pool.release(key);
                pool.release(AddressPool.secondFamilyKey(key));
              }
              serviceLog.info(b.ref, "deleted load balancer {}", b.ips);
              return Future.<Void>succeededFuture();
            });
  }

  @Override
  public Future<Void> close() {
    return call(
        () -> {
          if (closed) {
            return Future.succeededFuture();
          }
          closed = true;
          List<Future<Void>> closing = new ArrayList<>();
          for (Balancer b : balancers.values()) {
            b.usage.close();
            closing.addAll(b.closeListeners());
          }
          balancers.clear();
          closing.add(healthChecks.close());
          closing.add(proxyClient.close());
          return Future.join(closing).transform(ar -> Future.<Void>succeededFuture());
        },
        true);
  }

  /**
   * The (first) address allocated to a Service, for diagnostics and tests; a dual-stack Service's
   * second address is in its status.
   */
  Future<Optional<String>> addressOf(ServiceKey key) {
    return call(() -> Future.succeededFuture(pool.lookup(key.toString())));
  }

  /**
   * What a Service's load balancer holds open, or with a null key what all of them hold, for
   * diagnostics and tests.
   */
  Future<ProxyLimits.Open> openOf(ServiceKey key) {
    return call(
        () -> {
          if (key == null) {
            return Future.succeededFuture(limits.open());
          }
          Balancer b = balancers.get(key.toString());
          return Future.succeededFuture(b == null ? new ProxyLimits.Open(0, 0) : b.usage.open());
        });
  }

  /** The running health checks and whether each target is healthy, for diagnostics and tests. */
  Future<Map<String, Boolean>> backendHealth() {
    return call(() -> Future.succeededFuture(healthChecks.snapshot()));
  }

  // ---------------------------------------------------------------------------------------------
  // Ensure

  private Future<EnsureResult> ensure(LbService svc, List<LbNode> nodes) {
    List<LbPort> ports = svc.ports();
    for (int i = 0; i < ports.size(); i++) {
      LbPort p = ports.get(i);
      String protocol = p.protocol().toUpperCase(Locale.ROOT);
      if (!protocol.equals("TCP") && !protocol.equals("UDP")) {
        throw new ProviderException.InvalidInput(
            "spec.ports[" + i + "].protocol",
            p.protocol(),
            "spec.ports["
                + i
                + "].protocol "
                + p.protocol()
                + " is not supported by the local load balancer (TCP and UDP only)");
      }
      if (p.nodePort() <= 0) {
        throw new ProviderException.InvalidInput(
            "spec.ports[" + i + "].nodePort",
            String.valueOf(p.nodePort()),
            "spec.ports["
                + i
                + "].nodePort is not set (allocateLoadBalancerNodePorts: false?); the local load"
                + " balancer proxies to node ports");
      }
    }
    SourceRanges sourceRanges = SourceRanges.parse(svc.sourceRanges());
    String key = svc.key().toString();
    String share = LocalAnnotations.value(svc, LocalAnnotations.ALLOW_SHARED_IP);
    if (share != null) {
      checkSharers(svc, share);
    }
    Balancer b = balancers.get(key);
    List<String> ips = addresses.choose(svc);

    List<Future<Void>> closing = new ArrayList<>();
    if (b == null) {
      b = new Balancer(svc.ref(), limits.forLoadBalancer(svc.ref()));
      balancers.put(key, b);
      serviceLog.info(b.ref, "allocated addresses {}", ips);
    } else if (!ips.equals(b.ips)) {
      // Listeners on addresses the Service no longer has are closed below with removed ports.
      serviceLog.info(b.ref, "moving load balancer from {} to {}", b.ips, ips);
    }
    b.ips = ips;
    b.share = share;
    b.trafficPolicy = svc.externalTrafficPolicy();
    b.hosts = backendHosts(nodes);
    b.healthCheckPort = svc.needsHealthCheck() ? svc.healthCheckNodePort() : 0;
    if (b.hosts.length == 0) {
      serviceLog.warn(b.ref, "no node has an address to send traffic to");
    }
    if (!sourceRanges.equals(b.sourceRanges)) {
      serviceLog.info(b.ref, "admitting clients from {}", sourceRanges);
      b.sourceRanges = sourceRanges;
    }

    Map<String, PortListener> existing = new HashMap<>();
    for (PortListener l : b.listeners) {
      existing.put(l.ip + " " + l.id(), l);
    }
    List<PortListener> next = new ArrayList<>(ports.size() * ips.size());
    for (String ip : ips) {
      for (LbPort p : ports) {
        String protocol = p.protocol().toUpperCase(Locale.ROOT);
        PortListener l = existing.remove(ip + " " + protocol + "/" + p.port());
        if (l == null) {
          l = newListener(b, ip, protocol, p.port());
        }
        l.setNodePort(p.nodePort());
        l.setSourceRanges(sourceRanges);
        next.add(l);
      }
    }
    for (PortListener gone : existing.values()) {
      serviceLog.info(b.ref, "closing listener {}", gone.describe());
      closing.add(gone.close());
    }
    b.listeners = next;
    b.retarget();

    Balancer balancer = b;
    return Future.join(closing)
        .transform(
            ignored -> {
              List<Future<Void>> binding = new ArrayList<>();
              for (PortListener l : balancer.listeners) {
                if (!l.isBound()) {
                  binding.add(l.bind());
                }
              }
              return Future.join(binding);
            })
        .transform(ignored -> Future.succeededFuture(result(balancer)));
  }

  /**
   * Checks that the Service may share an address with the other load balancers of its namespace and
   * sharing key: both {@code externalTrafficPolicy: Cluster}, and no protocol and port in common.
   * (MetalLB also lets {@code Local} Services with the same selector share; the local provider does
   * not.)
   *
   * @throws ProviderException.InvalidInput naming the annotation, the key and the conflict
   */
  private void checkSharers(LbService svc, String share) {
    String field = LocalAnnotations.field(LocalAnnotations.ALLOW_SHARED_IP);
    for (Balancer other : balancers.values()) {
      if (other.key.equals(svc.key())
          || !share.equals(other.share)
          || !other.key.cluster().equals(svc.key().cluster())
          || !other.key.namespace().equals(svc.key().namespace())) {
        continue;
      }
      String prefix = field + "=" + share + ": cannot share an address with Service " + other.key;
      if (!"Cluster".equals(svc.externalTrafficPolicy())
          || !"Cluster".equals(other.trafficPolicy)) {
        throw new ProviderException.InvalidInput(
            field,
            share,
            prefix
                + ": sharing needs externalTrafficPolicy: Cluster on both (this Service has "
                + svc.externalTrafficPolicy()
                + ", the other "
                + other.trafficPolicy
                + "); Local is not shared");
      }
      for (LbPort p : svc.ports()) {
        String id = p.protocol().toUpperCase(Locale.ROOT) + "/" + p.port();
        for (PortListener l : other.listeners) {
          if (l.id().equals(id)) {
            throw new ProviderException.InvalidInput(
                field, share, prefix + ": both use port " + id);
          }
        }
      }
    }
  }

  private PortListener newListener(Balancer b, String ip, String protocol, int port) {
    Backends backends = new Backends(healthChecks);
    if (protocol.equals("TCP")) {
      return new TcpProxy(
          b.ref,
          ip,
          port,
          backends,
          b.usage,
          vertx,
          proxyClient,
          options.getConnectTimeout(),
          options.getTcpIdleTimeout());
    }
    return new UdpProxy(b.ref, ip, port, backends, b.usage, vertx, options.getUdpSessionTimeout());
  }

  private EnsureResult result(Balancer b) {
    List<EnsureResult.Warning> warnings = new ArrayList<>();
    for (PortListener l : b.listeners) {
      if (l.error() != null) {
        warnings.add(
            new EnsureResult.Warning(
                "PortBindFailed",
                "cannot listen on "
                    + l.describe()
                    + ": "
                    + l.errorDetail()
                    + "; other ports are unaffected"));
      }
    }
    return new EnsureResult(b.status(), warnings);
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  /** Runs {@code action} on the provider's context, completing on the caller's context. */
  private <T> Future<T> call(Supplier<Future<T>> action) {
    return call(action, false);
  }

  private <T> Future<T> call(Supplier<Future<T>> action, boolean evenWhenClosed) {
    Context caller = Vertx.currentContext();
    Promise<T> promise = Promise.promise();
    Runnable run =
        () -> {
          Future<T> f;
          if (closed && !evenWhenClosed) {
            f =
                Future.failedFuture(
                    new ProviderException.Retry("the local load balancer is closed"));
          } else {
            f = Futures.call(action);
          }
          f.onComplete(ar -> deliver(caller, promise, ar));
        };
    if (caller == context) {
      run.run();
    } else {
      context.runOnContext(v -> run.run());
    }
    return promise.future();
  }

  private static <T> void deliver(Context caller, Promise<T> promise, AsyncResult<T> ar) {
    Runnable complete =
        () -> {
          if (ar.succeeded()) {
            promise.complete(ar.result());
          } else {
            promise.fail(ar.cause());
          }
        };
    if (caller == null || caller == Vertx.currentContext()) {
      complete.run();
    } else {
      caller.runOnContext(v -> complete.run());
    }
  }

  private static String[] backendHosts(List<LbNode> nodes) {
    Set<String> hosts = new LinkedHashSet<>();
    for (LbNode node : nodes) {
      String address = node.backendAddress();
      if (address != null) {
        hosts.add(address);
      }
    }
    return hosts.toArray(new String[0]);
  }
}
