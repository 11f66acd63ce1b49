package dev.pier.cloud.local;

import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceRef;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A UDP port of a load balancer: each client address gets a {@link UdpSession} to one backend, and
 * the backend's replies go back to the client from the listening socket.
 */
final class UdpProxy extends PortListener {

  private static final Logger log = LoggerFactory.getLogger(UdpProxy.class);
  private static final ServiceLog serviceLog = ServiceLog.of(UdpProxy.class);

  private final Duration sessionTimeout;
  private DatagramSocket socket;
  private Map<String, UdpSession> sessions;

  UdpProxy(
      ServiceRef service,
      String ip,
      int port,
      Backends backends,
      LoadBalancerUsage usage,
      Vertx vertx,
      Duration sessionTimeout) {
    super(vertx, service, ip, port, backends, usage);
    this.sessionTimeout = sessionTimeout;
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
  void retarget(String[] hosts, int healthCheckPort) {
    super.retarget(hosts, healthCheckPort);
    if (sessions == null) {
      return;
    }
    // Sessions to a backend that left (or to an old node port) end; their clients start anew.
    for (UdpSession session : new ArrayList<>(sessions.values())) {
      if (session.backendPort() != nodePort() || !backends.contains(session.backendHost())) {
        session.close();
      }
    }
  }

  @Override
  void setSourceRanges(SourceRanges ranges) {
    boolean unchanged = ranges.equals(sourceRanges());
    super.setSourceRanges(ranges);
    if (unchanged || sessions == null) {
      return;
    }
    // Sessions of clients the new ranges leave out end: no more replies reach them.
    for (UdpSession session : new ArrayList<>(sessions.values())) {
      if (!ranges.admits(session.clientHost())) {
        session.close();
      }
    }
  }

  @Override
  Future<Void> doBind() {
    DatagramSocket s =
        vertx.createDatagramSocket(new DatagramSocketOptions().setIpV6(ip.indexOf(':') >= 0));
    s.handler(this::receive);
    s.exceptionHandler(e -> serviceLog.debug(service, "error on {}: {}", describe(), message(e)));
    socket = s;
    return s.listen(port, ip)
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
    SocketAddress sender = packet.sender();
    String clientHost = sender.hostAddress() != null ? sender.hostAddress() : sender.host();
    if (!admits(clientHost)) {
      return;
    }
    int clientPort = sender.port();
    String client = HealthChecks.hostPort(clientHost, clientPort);
    UdpSession session = sessions == null ? null : sessions.get(client);
    if (session == null) {
      String[] candidates = backends.candidates();
      if (candidates.length == 0) {
        return;
      }
      session =
          new UdpSession(
              vertx,
              service,
              client,
              clientHost,
              candidates[0],
              nodePort(),
              sessionTimeout,
              (s, data) -> {
                usage.udpSessionUsed(s);
                reply(data, clientHost, clientPort);
              },
              this::ended);
      // May end this load balancer's other sessions, of this port or another, to make room.
      if (!usage.addUdpSession(session)) {
        return;
      }
      if (sessions == null) {
        sessions = new HashMap<>();
      }
      sessions.put(client, session);
      session.open();
    } else {
      usage.udpSessionUsed(session);
    }
    session.send(packet.data());
  }

  private void reply(Buffer data, String clientHost, int clientPort) {
    DatagramSocket s = socket;
    if (s != null) {
      s.send(data, clientPort, clientHost);
    }
  }

  private void ended(UdpSession session) {
    if (sessions != null) {
      sessions.remove(session.id(), session);
    }
    usage.udpSessionEnded(session);
  }
}
