package dev.pier.cloud.local;

import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Backends, clients and Service builders for the provider's real-traffic tests. */
final class LbTestSupport {

  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private LbTestSupport() {}

  /** The failure of a future that must fail. */
  static Throwable awaitFailure(Future<?> future) {
    try {
      future
          .toCompletionStage()
          .toCompletableFuture()
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out after " + TIMEOUT, e);
    }
    throw new AssertionError("expected a failure, but the future succeeded");
  }

  /** A port that is free on 127.0.0.1 right now. */
  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static ServiceKey key(String name) {
    return new ServiceKey("test", "default", name);
  }

  static LbService service(String name, List<LbPort> ports) {
    return service(name, ports, null, LbStatus.EMPTY);
  }

  static LbService service(
      String name, List<LbPort> ports, String loadBalancerIp, LbStatus status) {
    return new LbService(
        key(name),
        "uid-" + name,
        ports,
        loadBalancerIp,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of("IPv4"),
        status);
  }

  /** A Service with {@code spec.loadBalancerSourceRanges}. */
  static LbService serviceWithSourceRanges(
      String name, List<LbPort> ports, List<String> sourceRanges) {
    return new LbService(
        key(name),
        "uid-" + name,
        ports,
        null,
        "Cluster",
        0,
        "None",
        sourceRanges,
        Map.of(),
        List.of("IPv4"),
        LbStatus.EMPTY);
  }

  static LbService localTrafficService(String name, List<LbPort> ports, int healthCheckNodePort) {
    return new LbService(
        key(name),
        "uid-" + name,
        ports,
        null,
        "Local",
        healthCheckNodePort,
        "None",
        List.of(),
        Map.of(),
        List.of("IPv4"),
        LbStatus.EMPTY);
  }

  static LbStatus statusWithIp(String ip) {
    return new LbStatus(List.of(LbIngress.ip(ip)));
  }

  static LbNode node(String name, String ip) {
    return new LbNode(name, "", ip, null, Map.of());
  }

  static LbPort tcp(int port, int nodePort) {
    return new LbPort("tcp-" + port, "TCP", port, nodePort);
  }

  static LbPort udp(int port, int nodePort) {
    return new LbPort("udp-" + port, "UDP", port, nodePort);
  }

  /** A TCP backend that answers each chunk it reads with {@code name:chunk}. */
  static NetServer nameServer(Vertx vertx, String host, int port, String name) throws Exception {
    NetServer server =
        vertx
            .createNetServer()
            .connectHandler(
                so -> so.handler(b -> so.write(Buffer.buffer(name + ":").appendBuffer(b))));
    return server.listen(port, host).await(10, TimeUnit.SECONDS);
  }

  /** A UDP backend that echoes each datagram with a {@code name:} prefix. */
  static DatagramSocket udpEchoServer(Vertx vertx, String host, int port, String name)
      throws Exception {
    DatagramSocket socket = vertx.createDatagramSocket();
    socket.handler(
        p ->
            socket.send(
                Buffer.buffer(name + ":").appendBuffer(p.data()),
                p.sender().port(),
                p.sender().host()));
    return socket.listen(port, host).await(10, TimeUnit.SECONDS);
  }

  /** An HTTP server answering {@code GET /healthz} with a status the test can change. */
  static final class Healthz {
    volatile int status = 200;
    final HttpServer server;

    Healthz(Vertx vertx, String host, int port) throws Exception {
      server =
          vertx
              .createHttpServer()
              .requestHandler(
                  req -> {
                    int code = req.path().equals("/healthz") ? status : 404;
                    req.response().setStatusCode(code).end("status " + code);
                  })
              .listen(port, host)
              .await(10, TimeUnit.SECONDS);
    }
  }

  /** Connects, sends one line and returns the backend's one-line answer. */
  static String request(NetClient client, String host, int port, String line) throws Exception {
    Promise<String> reply = Promise.promise();
    client
        .connect(port, host)
        .onFailure(reply::tryFail)
        .onSuccess(
            so -> {
              Buffer acc = Buffer.buffer();
              so.handler(
                  b -> {
                    acc.appendBuffer(b);
                    String text = acc.toString();
                    if (text.endsWith("\n")) {
                      reply.tryComplete(text.trim());
                      so.close();
                    }
                  });
              so.closeHandler(v -> reply.tryFail("closed before a reply, got: " + acc));
              so.write(line + "\n");
            });
    return reply.future().await(10, TimeUnit.SECONDS);
  }

  /** Sends one datagram to {@code host:port} and returns the one datagram answering it. */
  static String udpRequest(Vertx vertx, String host, int port, String text) throws Exception {
    boolean v6 = host.contains(":");
    DatagramSocket socket = vertx.createDatagramSocket(new DatagramSocketOptions().setIpV6(v6));
    try {
      Promise<String> reply = Promise.promise();
      socket.handler(p -> reply.tryComplete(p.data().toString()));
      socket.listen(0, v6 ? "::" : "0.0.0.0").await(10, TimeUnit.SECONDS);
      socket.send(text, port, host).await(10, TimeUnit.SECONDS);
      return reply.future().await(10, TimeUnit.SECONDS);
    } finally {
      socket.close();
    }
  }

  /** Opens a connection and keeps it, for tests that watch it being closed. */
  static NetSocket open(NetClient client, String host, int port) throws Exception {
    return client.connect(port, host).await(10, TimeUnit.SECONDS);
  }
}
