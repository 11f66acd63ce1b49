package dev.pier.bench;

import dev.pier.testkit.KubeApiServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Watches the Services of one namespace (a plain watch stream) and records, per Service, when it
 * first had {@code status.loadBalancer.ingress} with at least {@code minIngresses} entries (one by
 * default; a federated Service's aggregate over two members needs two), in seconds since {@link
 * #startClock()}.
 */
final class IngressWatch implements AutoCloseable {
  private final Set<String> done = ConcurrentHashMap.newKeySet();
  private final Map<String, Double> byName = new ConcurrentHashMap<>();
  private final double[] times;
  private final int minIngresses;
  private final Thread reader;
  private volatile long t0;
  private volatile boolean closed;
  private volatile Stream<String> lines;
  // Held for the watch's life: an unreferenced JDK HttpClient shuts down and closes its streams.
  private final HttpClient http;

  private final String base;
  private final String token;

  IngressWatch(KubeApiServer kube, String namespace, int n) {
    this(kube, namespace, n, 1);
  }

  IngressWatch(KubeApiServer kube, String namespace, int n, int minIngresses) {
    this.times = new double[n];
    this.minIngresses = minIngresses;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(KubeApiServer.trustAllContext())
            .build();
    this.base = kube.url() + "/api/v1/namespaces/" + namespace + "/services";
    this.token = "Bearer " + kube.adminToken();
    lines = open(list());
    reader = new Thread(this::read, "ingress-watch");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Lists the Services, counts those that already have an ingress (a watch that broke may have
   * missed them; they count as converged now, which can only make Pier look slower), and returns
   * the list's resourceVersion.
   */
  private String list() {
    try {
      String body =
          http.send(
                  HttpRequest.newBuilder(URI.create(base)).header("Authorization", token).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      JsonObject list = new JsonObject(body);
      for (Object item : list.getJsonArray("items", new JsonArray())) {
        seen((JsonObject) item);
      }
      return list.getJsonObject("metadata").getString("resourceVersion");
    } catch (Exception e) {
      throw new IllegalStateException("cannot list " + base, e);
    }
  }

  private Stream<String> open(String rv) {
    try {
      HttpResponse<Stream<String>> watch =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(base + "?watch=1&timeoutSeconds=3600&resourceVersion=" + rv))
                  .header("Authorization", token)
                  .timeout(Duration.ofHours(1))
                  .build(),
              HttpResponse.BodyHandlers.ofLines());
      if (watch.statusCode() != 200) {
        throw new IllegalStateException("watch of " + base + " failed: " + watch.statusCode());
      }
      return watch.body();
    } catch (Exception e) {
      throw new IllegalStateException("cannot watch " + base, e);
    }
  }

  void startClock() {
    t0 = System.nanoTime();
  }

  private void read() {
    while (!closed) {
      try {
        lines.forEach(
            line -> {
              if (line.startsWith("{\"type\":\"ERROR\"")) {
                throw new IllegalStateException("watch error: " + line);
              }
              if (t0 != 0 && line.contains("\"ingress\"")) {
                seen(new JsonObject(line).getJsonObject("object"));
              }
            });
      } catch (RuntimeException e) {
        if (closed) {
          return;
        }
        System.err.println("ingress watch ended, listing again: " + e);
      }
      if (!closed) {
        // The apiserver closes watchers that fall behind (on a busy 2-core machine, this one).
        lines = open(list());
      }
    }
  }

  private void seen(JsonObject svc) {
    if (t0 == 0) {
      return;
    }
    JsonObject lb = svc.getJsonObject("status", new JsonObject()).getJsonObject("loadBalancer");
    JsonArray ingress = lb == null ? null : lb.getJsonArray("ingress");
    if (ingress != null && ingress.size() >= minIngresses) {
      String name = svc.getJsonObject("metadata").getString("name");
      synchronized (this) {
        if (done.add(name) && done.size() <= times.length) {
          double t = (System.nanoTime() - t0) / 1e9;
          times[done.size() - 1] = t;
          byName.put(name, t);
          notifyAll();
        }
      }
    }
  }

  /**
   * Drops the current watch stream: the reader lists again and re-watches. For a stream that went
   * silent without closing.
   */
  void restart() {
    Stream<String> current = lines;
    if (current != null) {
      current.close();
    }
  }

  synchronized int converged() {
    return done.size();
  }

  /** Waits up to {@code millis} for another Service to converge. */
  synchronized void awaitChange(long millis) throws InterruptedException {
    wait(millis);
  }

  /** Seconds since {@link #startClock()} until the named Service converged, or -1 (not yet). */
  double time(String name) {
    return byName.getOrDefault(name, -1.0);
  }

  /** Seconds since {@link #startClock()}, now: to time an action against the same clock. */
  double now() {
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Convergence times so far, sorted. */
  synchronized double[] times() {
    double[] t = Arrays.copyOf(times, Math.min(done.size(), times.length));
    Arrays.sort(t);
    return t;
  }

  @Override
  public void close() {
    closed = true;
    if (lines != null) {
      lines.close();
    }
    reader.interrupt();
  }
}
