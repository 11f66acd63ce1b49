package dev.pier.cloud.local;

import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceRef;
import dev.pier.util.Ip;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One UDP client's flow to one backend through its own socket, ended after a quiet period. The
 * socket relays back to the client only datagrams whose sender is that backend's address and port;
 * any other sender's datagrams are dropped (counted, logged at debug).
 */
final class UdpSession {

  private static final Logger log = LoggerFactory.getLogger(UdpSession.class);
  private static final ServiceLog serviceLog = ServiceLog.of(UdpSession.class);

  /** Datagrams buffered while the session's socket binds. */
  private static final int PENDING_LIMIT = 64;

  private final Vertx vertx;
  private final ServiceRef service;
  private final String id;
  private final String clientHost;
  private final String backendHost;
  private final int backendPort;

  /** The backend's address as a number, to recognise its datagrams; null if not a literal. */
  private final Ip backendIp;

  private final long idleTimeoutMillis;
  private final BiConsumer<UdpSession, Buffer> onReply;
  private final Consumer<UdpSession> onEnd;
  private DatagramSocket upstream;
  private ArrayDeque<Buffer> pending = new ArrayDeque<>();
  private long lastActivity;
  private long timer = -1;
  private boolean closed;
  private long dropped;

  /**
   * @param id the client's {@code host:port}
   * @param clientHost the client's address
   * @param onReply receives each datagram the backend sends back, with this session
   * @param onEnd told once when the session closes
   */
  UdpSession(
      Vertx vertx,
      ServiceRef service,
      String id,
      String clientHost,
      String backendHost,
      int backendPort,
      Duration idleTimeout,
      BiConsumer<UdpSession, Buffer> onReply,
      Consumer<UdpSession> onEnd) {
    this.vertx = vertx;
    this.service = service;
    this.id = id;
    this.clientHost = clientHost;
    this.backendHost = backendHost;
    this.backendPort = backendPort;
    this.backendIp = Ip.parse(backendHost);
    this.idleTimeoutMillis = idleTimeout.toMillis();
    this.onReply = onReply;
    this.onEnd = onEnd;
  }

  String id() {
    return id;
  }

  String clientHost() {
    return clientHost;
  }

  String backendHost() {
    return backendHost;
  }

  int backendPort() {
    return backendPort;
  }

  void open() {
    boolean v6 = backendHost.indexOf(':') >= 0;
    DatagramSocket s = vertx.createDatagramSocket(new DatagramSocketOptions().setIpV6(v6));
    upstream = s;
    s.handler(
        p -> {
          // The socket listens on a wildcard address and an ephemeral port: anyone who finds the
          // port can write to it. Only the backend's own datagrams go back to the client.
          if (!fromBackend(p.sender())) {
            dropped++;
            serviceLog.debug(
                service,
                "UDP session {} -> {} dropped a datagram from {} ({} so far)",
                id,
                HealthChecks.hostPort(backendHost, backendPort),
                p.sender(),
                dropped);
            return;
          }
          lastActivity = System.nanoTime();
          onReply.accept(this, p.data());
        });
    s.exceptionHandler(
        e ->
            serviceLog.debug(
                service,
                "UDP session {} -> {} failed: {}",
                id,
                HealthChecks.hostPort(backendHost, backendPort),
                PortListener.message(e)));
    lastActivity = System.nanoTime();
    scheduleExpiry(idleTimeoutMillis);
    s.listen(0, v6 ? "::" : "0.0.0.0")
        .onComplete(
            ar -> {
              if (closed) {
                s.close();
                return;
              }
              if (ar.failed()) {
                serviceLog.warn(
                    service,
                    "cannot open a UDP session socket for {}: {}",
                    id,
                    PortListener.message(ar.cause()));
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

  /** How many datagrams from senders other than the backend were dropped. */
  long dropped() {
    return dropped;
  }

  /** Whether a datagram's sender is the backend address and port this session was opened for. */
  boolean fromBackend(SocketAddress sender) {
    if (sender == null || sender.port() != backendPort) {
      return false;
    }
    String host = sender.hostAddress() != null ? sender.hostAddress() : sender.host();
    if (host == null) {
      return false;
    }
    int scope = host.indexOf('%');
    if (scope >= 0) {
      host = host.substring(0, scope);
    }
    if (backendIp == null) {
      return host.equalsIgnoreCase(backendHost);
    }
    return backendIp.equals(Ip.parse(host));
  }

  void send(Buffer data) {
    if (closed) {
      return;
    }
    lastActivity = System.nanoTime();
    if (pending != null) {
      if (pending.size() < PENDING_LIMIT) {
        pending.add(data);
      }
      return;
    }
    upstream.send(data, backendPort, backendHost);
  }

  void close() {
    if (closed) {
      return;
    }
    closed = true;
    vertx.cancelTimer(timer);
    pending = null;
    onEnd.accept(this);
    if (upstream != null) {
      upstream.close();
    }
  }

  private void scheduleExpiry(long delayMillis) {
    timer = vertx.setTimer(Math.max(1, delayMillis), t -> expire());
  }

  private void expire() {
    if (closed) {
      return;
    }
    long idle = (System.nanoTime() - lastActivity) / 1_000_000;
    if (idle >= idleTimeoutMillis) {
      serviceLog.debug(service, "UDP session {} expired", id);
      close();
    } else {
      scheduleExpiry(idleTimeoutMillis - idle);
    }
  }
}
