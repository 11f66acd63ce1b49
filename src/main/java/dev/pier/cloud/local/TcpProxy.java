package dev.pier.cloud.local;

import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceRef;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.ConnectOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A TCP port of a load balancer: pipes each accepted connection to one backend's node port. */
final class TcpProxy extends PortListener {

  private static final Logger log = LoggerFactory.getLogger(TcpProxy.class);
  private static final ServiceLog serviceLog = ServiceLog.of(TcpProxy.class);

  private final NetClient client;
  private final int connectTimeoutMillis;
  private final Duration idleTimeout;
  private NetServer server;

  /** The open client connections, to close those outside narrowed source ranges. */
  private final Set<Connection> connections = new HashSet<>();

  TcpProxy(
      ServiceRef service,
      String ip,
      int port,
      Backends backends,
      LoadBalancerUsage usage,
      Vertx vertx,
      NetClient client,
      Duration connectTimeout,
      Duration idleTimeout) {
    super(vertx, service, ip, port, backends, usage);
    this.client = client;
    this.connectTimeoutMillis = (int) Math.max(1, connectTimeout.toMillis());
    this.idleTimeout = idleTimeout;
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
    NetServerOptions serverOptions = new NetServerOptions();
    if (idleTimeout.toMillis() > 0) {
      // Idle on the client's socket means no byte either way: everything relayed passes it.
      serverOptions
          .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, idleTimeout.toMillis()))
          .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    }
    NetServer s = vertx.createNetServer(serverOptions);
    s.connectHandler(this::accept);
    server = s;
    return s.listen(port, ip)
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
    connections.clear();
    NetServer s = server;
    server = null;
    return s == null ? Future.succeededFuture() : s.close();
  }

  @Override
  void setSourceRanges(SourceRanges ranges) {
    boolean unchanged = ranges.equals(sourceRanges());
    super.setSourceRanges(ranges);
    if (unchanged) {
      return;
    }
    for (Connection c : new ArrayList<>(connections)) {
      if (!ranges.admits(c.clientHost)) {
        serviceLog.debug(
            service,
            "closing the connection of {} on {}: outside spec.loadBalancerSourceRanges {}",
            c.clientHost,
            describe(),
            ranges);
        c.front.close();
      }
    }
  }

  private void accept(NetSocket front) {
    String clientHost = clientHost(front);
    if (!admits(clientHost) || !usage.admitConnection(clientHost, this)) {
      front.close();
      return;
    }
    front.pause();
    Connection connection = new Connection(front, clientHost);
    connections.add(connection);
    front.closeHandler(
        v -> {
          connections.remove(connection);
          usage.connectionClosed();
          connection.frontClosed();
        });
    // Until the pipes take over (they install their own), a reset by the client is expected.
    front.exceptionHandler(
        e -> serviceLog.debug(service, "client connection on {}: {}", describe(), message(e)));
    connect(connection, backends.candidates(), nodePort(), 0, null);
  }

  private void connect(
      Connection connection, String[] targets, int targetPort, int attempt, Throwable last) {
    if (connection.closed) {
      return;
    }
    if (attempt >= targets.length) {
      serviceLog.debug(
          service,
          "no backend accepted a connection on {}: {}",
          describe(),
          last == null ? "no backends" : message(last));
      connection.front.close();
      return;
    }
    String host = targets[attempt];
    client
        .connect(
            new ConnectOptions().setHost(host).setPort(targetPort).setTimeout(connectTimeoutMillis))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                serviceLog.debug(
                    service,
                    "backend {} refused a connection on {}: {}",
                    HealthChecks.hostPort(host, targetPort),
                    describe(),
                    message(ar.cause()));
                connect(connection, targets, targetPort, attempt + 1, ar.cause());
              } else {
                connection.connected(ar.result());
              }
            });
  }

  private static String clientHost(NetSocket front) {
    SocketAddress remote = front.remoteAddress();
    if (remote == null) {
      return null;
    }
    return remote.hostAddress() != null ? remote.hostAddress() : remote.host();
  }

  /** One proxied connection: the client's socket and, once connected, the backend's. */
  private static final class Connection {
    final NetSocket front;
    final String clientHost;
    NetSocket back;
    boolean closed;

    Connection(NetSocket front, String clientHost) {
      this.front = front;
      this.clientHost = clientHost;
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
}
