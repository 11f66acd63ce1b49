package dev.pier.cloud.local;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.util.Futures;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.ConnectOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
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
 * AddressPool}; for each of its ports Pier listens on {@code address:port} and proxies TCP
 * connections (Vert.x {@link NetServer}/{@link NetClient}) and UDP datagrams (Vert.x {@link
 * DatagramSocket}, one session socket per client) to the node port on every node. The status says
 * {@code ipMode: Proxy}.
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
 * <p>A port that cannot be bound (address in use, privileged port, address not assignable) does not
 * fail the Service: the other ports work, the port's status carries an error ({@code AddressInUse},
 * {@code PermissionDenied}, {@code BindFailed}), a {@code PortBindFailed} warning is returned, and
 * the next ensure tries to bind again.
 *
 * <p>Listeners inside one Vert.x instance share a server bound to the same {@code address:port}
 * (Vert.x server sharing); this only matters if something else in the process listens on a pool
 * address.
 */
public final class LocalLoadBalancerProvider implements LoadBalancerProvider {

  /** The provider's configured name. */
  public static final String NAME = "local";

  /** The {@code ipMode} of every ingress: traffic reaches the nodes through a proxy. */
  public static final String IP_MODE = "Proxy";

  private static final Logger LOG = LoggerFactory.getLogger(LocalLoadBalancerProvider.class);

  /** UDP datagrams buffered per session while its socket binds. */
  private static final int UDP_PENDING_LIMIT = 64;

  private final Vertx vertx;
  private final Context context;
  private final LocalProviderOptions options;
  private final AddressPool pool;
  private final NetClient proxyClient;
  private final HealthChecks healthChecks;
  private final Map<String, Balancer> balancers = new HashMap<>();
  private boolean closed;

  /**
   * Creates the provider. State is confined to the context current at construction, or to a new
   * event-loop context when constructed outside Vert.x.
   *
   * @throws IllegalArgumentException when the options' pools are malformed
   */
  public LocalLoadBalancerProvider(Vertx vertx, LocalProviderOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.pool = new AddressPool(options.getPools());
    this.context = vertx.getOrCreateContext();
    this.proxyClient = vertx.createNetClient();
    this.healthChecks = new HealthChecks(vertx, options);
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
  public Future<Void> initialize(String clusterName, List<LbService> services) {
    return call(
        () -> {
          int restored = 0;
          for (LbService svc : services) {
            String ip = statusAddressInPools(svc);
            if (ip == null) {
              continue;
            }
            try {
              pool.reserve(svc.key().toString(), svc.uid(), ip);
              restored++;
            } catch (IllegalStateException | IllegalArgumentException e) {
              LOG.warn(
                  "{}: cannot keep address {} from its status: {}",
                  prefix(svc),
                  ip,
                  e.getMessage());
            }
          }
          LOG.info(
              "Cluster {}: restored {} load balancer addresses from Service status, pools {}",
              clusterName,
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
          return Future.succeededFuture(
              pool.lookup(key)
                  .map(ip -> new LbStatus(List.of(new LbIngress(ip, null, IP_MODE, List.of())))));
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
                    prefix(service) + " has no load balancer yet; it must be ensured first"));
          }
          b.hosts = backendHosts(nodes);
          b.healthCheckPort = service.needsHealthCheck() ? service.healthCheckNodePort() : 0;
          for (Listener l : b.listeners) {
            l.retarget();
          }
          LOG.info("{}: load balancer backends are now {}", b.prefix(), List.of(b.hosts));
          return Future.succeededFuture();
        });
  }

  @Override
  public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
    return call(
        () -> {
          String key = service.key().toString();
          Balancer b = balancers.remove(key);
          if (b == null) {
            pool.release(key)
                .ifPresent(ip -> LOG.info("{}: released address {}", prefix(service), ip));
            return Future.succeededFuture();
          }
          b.deleted = true;
          List<Future<Void>> closing = new ArrayList<>();
          for (Listener l : b.listeners) {
            closing.add(l.close());
          }
          b.listeners.clear();
          return Future.join(closing)
              .transform(
                  ar -> {
                    // Release only after the listeners are gone, so that the next holder can bind.
                    if (!balancers.containsKey(key)) {
                      pool.release(key);
                    }
                    LOG.info("{}: deleted load balancer {}", b.prefix(), b.ip);
                    return Future.<Void>succeededFuture();
                  });
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
            b.deleted = true;
            for (Listener l : b.listeners) {
              closing.add(l.close());
            }
            b.listeners.clear();
          }
          balancers.clear();
          closing.add(healthChecks.close());
          closing.add(proxyClient.close());
          return Future.join(closing).transform(ar -> Future.<Void>succeededFuture());
        },
        true);
  }

  /** The address allocated to a Service, for diagnostics and tests. */
  Future<Optional<String>> addressOf(ServiceKey key) {
    return call(() -> Future.succeededFuture(pool.lookup(key.toString())));
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
    String key = svc.key().toString();
    Balancer b = balancers.get(key);
    String ip = pool.allocate(key, svc.uid(), svc.loadBalancerIp(), statusAddressInPools(svc));

    List<Future<Void>> closing = new ArrayList<>();
    if (b == null) {
      b = new Balancer(svc.key());
      balancers.put(key, b);
      LOG.info("{}: allocated address {}", b.prefix(), ip);
    } else if (!ip.equals(b.ip)) {
      LOG.info("{}: moving load balancer from {} to {}", b.prefix(), b.ip, ip);
      for (Listener l : b.listeners) {
        closing.add(l.close());
      }
      b.listeners.clear();
    }
    b.ip = ip;
    b.hosts = backendHosts(nodes);
    b.healthCheckPort = svc.needsHealthCheck() ? svc.healthCheckNodePort() : 0;
    if (b.hosts.length == 0) {
      LOG.warn("{}: no node has an address to send traffic to", b.prefix());
    }

    Map<String, Listener> existing = new HashMap<>();
    for (Listener l : b.listeners) {
      existing.put(l.id(), l);
    }
    List<Listener> next = new ArrayList<>(ports.size());
    for (LbPort p : ports) {
      String protocol = p.protocol().toUpperCase(Locale.ROOT);
      Listener l = existing.remove(protocol + "/" + p.port());
      if (l == null) {
        l = protocol.equals("TCP") ? new TcpListener(b, p.port()) : new UdpListener(b, p.port());
      }
      l.nodePort = p.nodePort();
      next.add(l);
    }
    for (Listener gone : existing.values()) {
      LOG.info("{}: closing listener {}", b.prefix(), gone.describe());
      closing.add(gone.close());
    }
    b.listeners = next;
    for (Listener l : next) {
      l.retarget();
    }

    Balancer balancer = b;
    return Future.join(closing)
        .transform(
            ignored -> {
              List<Future<Void>> binding = new ArrayList<>();
              for (Listener l : balancer.listeners) {
                if (!l.bound) {
                  binding.add(l.bind());
                }
              }
              return Future.join(binding);
            })
        .transform(ignored -> Future.succeededFuture(result(balancer)));
  }

  private EnsureResult result(Balancer b) {
    List<EnsureResult.Warning> warnings = new ArrayList<>();
    for (Listener l : b.listeners) {
      if (l.error != null) {
        warnings.add(
            new EnsureResult.Warning(
                "PortBindFailed",
                "cannot listen on "
                    + l.describe()
                    + ": "
                    + l.errorDetail
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

  private String statusAddressInPools(LbService svc) {
    for (LbIngress ingress : svc.status().ingress()) {
      if (ingress.ip() != null && pool.contains(ingress.ip())) {
        return ingress.ip();
      }
    }
    return null;
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

  private static String prefix(LbService svc) {
    return "Service " + svc.key().objectKey();
  }

  /** A CamelCase reason for a bind failure, for the port's status. */
  static String bindError(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      if (m.contains("address already in use")) {
        return "AddressInUse";
      }
      if (m.contains("permission denied") || m.contains("access denied")) {
        return "PermissionDenied";
      }
    }
    return "BindFailed";
  }

  private static String message(Throwable t) {
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  // ---------------------------------------------------------------------------------------------
  // State

  /** One Service's load balancer. */
  private final class Balancer {
    final ServiceKey key;
    String ip;
    String[] hosts = new String[0];
    int healthCheckPort;
    List<Listener> listeners = new ArrayList<>(2);
    boolean deleted;

    Balancer(ServiceKey key) {
      this.key = key;
    }

    String prefix() {
      return "Service " + key.objectKey();
    }

    LbStatus status() {
      List<LbIngress.PortStatus> ports = new ArrayList<>(listeners.size());
      for (Listener l : listeners) {
        ports.add(new LbIngress.PortStatus(l.port, l.protocol(), l.error));
      }
      return new LbStatus(List.of(new LbIngress(ip, null, IP_MODE, ports)));
    }
  }

  /** One port of a load balancer: a socket on {@code ip:port} and its backends. */
  private abstract class Listener {
    final Balancer owner;
    final int port;
    int nodePort;

    /** The backends, with their checks at the same index (null: not checked). */
    String[] hosts = new String[0];

    HealthChecks.Check[] checks = new HealthChecks.Check[0];
    int nextBackend;
    boolean bound;
    boolean closed;
    String error;
    String errorDetail;

    Listener(Balancer owner, int port) {
      this.owner = owner;
      this.port = port;
    }

    abstract String protocol();

    String id() {
      return protocol() + "/" + port;
    }

    String describe() {
      return HealthChecks.hostPort(owner.ip, port) + "/" + protocol();
    }

    /** Points the listener at the owner's current backends, re-acquiring health checks. */
    void retarget() {
      String[] newHosts = owner.hosts;
      HealthChecks.Check[] newChecks = new HealthChecks.Check[newHosts.length];
      boolean http = owner.healthCheckPort > 0;
      for (int i = 0; i < newHosts.length; i++) {
        if (http) {
          newChecks[i] = healthChecks.acquire(newHosts[i], owner.healthCheckPort, true);
        } else if (checksTcp()) {
          newChecks[i] = healthChecks.acquire(newHosts[i], nodePort, false);
        }
      }
      releaseChecks();
      hosts = newHosts;
      checks = newChecks;
    }

    /** Whether a TCP connect to the node port says something about this listener's backends. */
    abstract boolean checksTcp();

    void releaseChecks() {
      for (HealthChecks.Check c : checks) {
        healthChecks.release(c);
      }
      checks = new HealthChecks.Check[0];
    }

    /**
     * Backend indexes to try, in order: the healthy ones round-robin from the next turn, or, when
     * none is healthy, all of them (trying beats refusing).
     */
    int[] candidates() {
      int n = hosts.length;
      if (n == 0) {
        return new int[0];
      }
      if (nextBackend >= n) {
        nextBackend = 0;
      }
      int start = nextBackend;
      nextBackend = (start + 1) % n;
      int[] order = new int[n];
      int count = 0;
      for (int k = 0; k < n; k++) {
        int i = (start + k) % n;
        if (checks[i] == null || checks[i].healthy()) {
          order[count++] = i;
        }
      }
      if (count == 0) {
        for (int k = 0; k < n; k++) {
          order[k] = (start + k) % n;
        }
        return order;
      }
      return count == n ? order : Arrays.copyOf(order, count);
    }

    Future<Void> bind() {
      return doBind()
          .transform(
              ar -> {
                if (ar.succeeded()) {
                  bound = true;
                  if (error != null) {
                    LOG.info("{}: now listening on {}", owner.prefix(), describe());
                  } else {
                    LOG.debug("{}: listening on {}", owner.prefix(), describe());
                  }
                  error = null;
                  errorDetail = null;
                  if (closed || owner.deleted) {
                    // Deleted (or the provider closed) while binding.
                    return close();
                  }
                } else {
                  error = bindError(ar.cause());
                  errorDetail = message(ar.cause());
                  LOG.warn(
                      "{}: cannot listen on {}: {}; other ports are unaffected",
                      owner.prefix(),
                      describe(),
                      errorDetail);
                }
                return Future.succeededFuture();
              });
    }

    abstract Future<Void> doBind();

    Future<Void> close() {
      closed = true;
      releaseChecks();
      Future<Void> f = doClose();
      bound = false;
      return f.recover(e -> Future.succeededFuture());
    }

    abstract Future<Void> doClose();
  }

  /** A TCP port: each accepted connection is piped to one backend's node port. */
  private final class TcpListener extends Listener {
    NetServer server;

    TcpListener(Balancer owner, int port) {
      super(owner, port);
    }

    @Override
    String protocol() {
      return "TCP";
    }

    @Override
    boolean checksTcp() {
      return true;
    }

    @Override
    Future<Void> doBind() {
      NetServer s = vertx.createNetServer();
      s.connectHandler(this::accept);
      server = s;
      return s.listen(port, owner.ip)
          .<Void>mapEmpty()
          .onFailure(
              e -> {
                if (server == s) {
                  server = null;
                }
                s.close();
              });
    }

    @Override
    Future<Void> doClose() {
      NetServer s = server;
      server = null;
      return s == null ? Future.succeededFuture() : s.close();
    }

    private void accept(NetSocket front) {
      front.pause();
      ProxyConnection connection = new ProxyConnection(front);
      front.closeHandler(v -> connection.frontClosed());
      // Until the pipes take over (they install their own), a reset by the client is expected.
      front.exceptionHandler(
          e ->
              LOG.debug("{}: client connection on {}: {}", owner.prefix(), describe(), message(e)));
      connect(connection, hosts, nodePort, candidates(), 0, null);
    }

    private void connect(
        ProxyConnection connection,
        String[] targets,
        int targetPort,
        int[] order,
        int attempt,
        Throwable last) {
      if (connection.closed) {
        return;
      }
      if (attempt >= order.length) {
        LOG.debug(
            "{}: no backend accepted a connection on {}: {}",
            owner.prefix(),
            describe(),
            last == null ? "no backends" : message(last));
        connection.front.close();
        return;
      }
      String host = targets[order[attempt]];
      int timeout = (int) Math.max(1, options.getConnectTimeout().toMillis());
      proxyClient
          .connect(new ConnectOptions().setHost(host).setPort(targetPort).setTimeout(timeout))
          .onComplete(
              ar -> {
                if (ar.failed()) {
                  LOG.debug(
                      "{}: backend {} refused a connection on {}: {}",
                      owner.prefix(),
                      HealthChecks.hostPort(host, targetPort),
                      describe(),
                      message(ar.cause()));
                  connect(connection, targets, targetPort, order, attempt + 1, ar.cause());
                } else {
                  connection.connected(ar.result());
                }
              });
    }
  }

  /** One proxied TCP connection: the client's socket and, once connected, the backend's. */
  private static final class ProxyConnection {
    final NetSocket front;
    NetSocket back;
    boolean closed;

    ProxyConnection(NetSocket front) {
      this.front = front;
    }

    void frontClosed() {
      closed = true;
      if (back != null) {
        back.close();
      }
    }

    void connected(NetSocket backend) {
      if (closed) {
        backend.close();
        return;
      }
      back = backend;
      backend.closeHandler(v -> front.close());
      backend.pipeTo(front);
      front.pipeTo(backend);
    }
  }

  /**
   * A UDP port: each client address gets a session socket to one backend; the backend's replies go
   * back to the client from the listening socket. Sessions end after a quiet period.
   */
  private final class UdpListener extends Listener {
    DatagramSocket socket;
    Map<String, UdpSession> sessions;

    UdpListener(Balancer owner, int port) {
      super(owner, port);
    }

    @Override
    String protocol() {
      return "UDP";
    }

    @Override
    boolean checksTcp() {
      return false;
    }

    @Override
    void retarget() {
      super.retarget();
      if (sessions == null) {
        return;
      }
      // Sessions to a backend that left (or to an old node port) end; their clients start anew.
      List<String> current = Arrays.asList(hosts);
      for (UdpSession session : new ArrayList<>(sessions.values())) {
        if (session.backendPort != nodePort || !current.contains(session.backendHost)) {
          session.close();
        }
      }
    }

    @Override
    Future<Void> doBind() {
      DatagramSocket s =
          vertx.createDatagramSocket(
              new DatagramSocketOptions().setIpV6(owner.ip.indexOf(':') >= 0));
      s.handler(this::receive);
      s.exceptionHandler(
          e -> LOG.debug("{}: error on {}: {}", owner.prefix(), describe(), message(e)));
      socket = s;
      return s.listen(port, owner.ip)
          .<Void>mapEmpty()
          .onFailure(
              e -> {
                if (socket == s) {
                  socket = null;
                }
                s.close();
              });
    }

    @Override
    Future<Void> doClose() {
      if (sessions != null) {
        for (UdpSession session : new ArrayList<>(sessions.values())) {
          session.close();
        }
        sessions = null;
      }
      DatagramSocket s = socket;
      socket = null;
      return s == null ? Future.succeededFuture() : s.close();
    }

    private void receive(DatagramPacket packet) {
      if (socket == null) {
        return;
      }
      String client = HealthChecks.hostPort(packet.sender().host(), packet.sender().port());
      UdpSession session = sessions == null ? null : sessions.get(client);
      if (session == null) {
        int[] order = candidates();
        if (order.length == 0) {
          return;
        }
        session =
            new UdpSession(
                this,
                client,
                packet.sender().host(),
                packet.sender().port(),
                hosts[order[0]],
                nodePort);
        if (sessions == null) {
          sessions = new HashMap<>();
        }
        sessions.put(client, session);
        session.open();
      }
      session.send(packet.data());
    }

    void reply(UdpSession session, Buffer data) {
      DatagramSocket s = socket;
      if (s != null) {
        s.send(data, session.clientPort, session.clientHost);
      }
    }

    void ended(UdpSession session) {
      if (sessions != null) {
        sessions.remove(session.id, session);
      }
    }
  }

  /** One UDP client's flow to one backend. */
  private final class UdpSession {
    final UdpListener listener;
    final String id;
    final String clientHost;
    final int clientPort;
    final String backendHost;
    final int backendPort;
    DatagramSocket upstream;
    ArrayDeque<Buffer> pending = new ArrayDeque<>();
    long lastActivity;
    long timer = -1;
    boolean closed;

    UdpSession(
        UdpListener listener,
        String id,
        String clientHost,
        int clientPort,
        String backendHost,
        int backendPort) {
      this.listener = listener;
      this.id = id;
      this.clientHost = clientHost;
      this.clientPort = clientPort;
      this.backendHost = backendHost;
      this.backendPort = backendPort;
    }

    void open() {
      boolean v6 = backendHost.indexOf(':') >= 0;
      DatagramSocket s = vertx.createDatagramSocket(new DatagramSocketOptions().setIpV6(v6));
      upstream = s;
      s.handler(
          p -> {
            lastActivity = System.nanoTime();
            listener.reply(this, p.data());
          });
      s.exceptionHandler(
          e ->
              LOG.debug(
                  "{}: UDP session {} -> {} failed: {}",
                  listener.owner.prefix(),
                  id,
                  HealthChecks.hostPort(backendHost, backendPort),
                  message(e)));
      lastActivity = System.nanoTime();
      scheduleExpiry(options.getUdpSessionTimeout().toMillis());
      s.listen(0, v6 ? "::" : "0.0.0.0")
          .onComplete(
              ar -> {
                if (closed) {
                  s.close();
                  return;
                }
                if (ar.failed()) {
                  LOG.warn(
                      "{}: cannot open a UDP session socket for {}: {}",
                      listener.owner.prefix(),
                      id,
                      message(ar.cause()));
                  close();
                  return;
                }
                ArrayDeque<Buffer> queued = pending;
                pending = null;
                for (Buffer b : queued) {
                  s.send(b, backendPort, backendHost);
                }
              });
    }

    void send(Buffer data) {
      if (closed) {
        return;
      }
      lastActivity = System.nanoTime();
      if (pending != null) {
        if (pending.size() < UDP_PENDING_LIMIT) {
          pending.add(data);
        }
        return;
      }
      upstream.send(data, backendPort, backendHost);
    }

    private void scheduleExpiry(long delayMillis) {
      timer = vertx.setTimer(Math.max(1, delayMillis), t -> expire());
    }

    private void expire() {
      if (closed) {
        return;
      }
      long timeout = options.getUdpSessionTimeout().toMillis();
      long idle = (System.nanoTime() - lastActivity) / 1_000_000;
      if (idle >= timeout) {
        LOG.debug("{}: UDP session {} expired", listener.owner.prefix(), id);
        close();
      } else {
        scheduleExpiry(timeout - idle);
      }
    }

    void close() {
      if (closed) {
        return;
      }
      closed = true;
      vertx.cancelTimer(timer);
      pending = null;
      listener.ended(this);
      if (upstream != null) {
        upstream.close();
      }
    }
  }
}
