package dev.pier.testkit;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on loopback in front of a server (TLS passes through untouched) that can make every
 * connection open so far go silent: from {@link #stallOpenConnections()} on, nothing the server
 * sends on them reaches the client, and nothing closes them, as a watch that a server or a network
 * leaves open and silent. Connections made afterwards flow normally.
 */
public final class StallingTcpProxy implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final NetServer server;
  private final NetClient client;
  private final String host;
  private final int port;
  private final List<NetSocket[]> open = new CopyOnWriteArrayList<>();

  private StallingTcpProxy(URI upstream) {
    this.host = upstream.getHost();
    this.port = upstream.getPort();
    this.client = vertx.createNetClient();
    this.server = vertx.createNetServer().connectHandler(this::accept);
  }

  /** Starts on a free loopback port in front of {@code upstream} (an https URL with a port). */
  public static StallingTcpProxy start(String upstream) {
    StallingTcpProxy proxy = new StallingTcpProxy(URI.create(upstream));
    try {
      proxy
          .server
          .listen(0, "127.0.0.1")
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      proxy.close();
      throw new IllegalStateException("cannot start the proxy", e);
    }
    return proxy;
  }

  /** The proxy's URL, with the upstream's scheme. */
  public String url() {
    return "https://127.0.0.1:" + server.actualPort();
  }

  /** How many connections are open through the proxy. */
  public int connections() {
    return open.size();
  }

  /** Every connection open now stops delivering what the server sends; none is closed. */
  public void stallOpenConnections() {
    for (NetSocket[] pair : open) {
      pair[1].pause();
    }
  }

  private void accept(NetSocket downstream) {
    downstream.pause();
    client
        .connect(port, host)
        .onFailure(e -> downstream.close())
        .onSuccess(
            upstream -> {
              NetSocket[] pair = {downstream, upstream};
              open.add(pair);
              downstream.handler(upstream::write);
              upstream.handler(downstream::write);
              downstream.closeHandler(
                  v -> {
                    open.remove(pair);
                    upstream.close();
                  });
              upstream.closeHandler(
                  v -> {
                    open.remove(pair);
                    downstream.close();
                  });
              downstream.resume();
            });
  }

  @Override
  public void close() {
    vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS);
  }
}
