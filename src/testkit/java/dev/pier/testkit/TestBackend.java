package dev.pier.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny HTTP backend: {@code GET /} answers {@code hello from <name>\n}, {@code GET /healthz}
 * answers 200 {@code ok}, anything else 404. Counts health checks apart from other requests.
 */
public final class TestBackend implements AutoCloseable {

  private final String name;
  private final HttpServer server;
  private final ExecutorService executor;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger healthChecks = new AtomicInteger();

  private TestBackend(String name, String host, int port) throws IOException {
    this.name = name;
    this.server = HttpServer.create(new InetSocketAddress(host, port), 64);
    this.executor =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "test-backend-" + name);
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** Starts a backend on {@code host:port}; port 0 picks a free port, see {@link #port()}. */
  public static TestBackend start(String name, String host, int port) {
    try {
      return new TestBackend(name, host, port);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot bind test backend " + name + " to " + host + ":" + port, e);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      boolean get = "GET".equals(exchange.getRequestMethod());
      int status;
      String body;
      if ("/healthz".equals(path)) {
        healthChecks.incrementAndGet();
        status = get ? 200 : 405;
        body = get ? "ok\n" : "method not allowed\n";
      } else {
        requests.incrementAndGet();
        if (!"/".equals(path)) {
          status = 404;
          body = "not found\n";
        } else {
          status = get ? 200 : 405;
          body = get ? "hello from " + name + "\n" : "method not allowed\n";
        }
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      exchange.getResponseHeaders().set("X-Backend", name);
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }

  public String name() {
    return name;
  }

  public String host() {
    return server.getAddress().getHostString();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** Requests other than {@code /healthz}. */
  public int requestCount() {
    return requests.get();
  }

  /** Requests to {@code /healthz}. */
  public int healthCheckCount() {
    return healthChecks.get();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
