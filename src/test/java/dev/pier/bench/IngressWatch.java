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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Watches the Services of one namespace (a plain watch stream) and records, per Service, when it
 * first had {@code status.loadBalancer.ingress}, in seconds since {@link #startClock()}.
 */
final class IngressWatch implements AutoCloseable {
  private final Set<String> done = ConcurrentHashMap.newKeySet();
  private final double[] times;
  private final Thread reader;
  private volatile long t0;
  private volatile boolean closed;
  private volatile Stream<String> lines;
  // Held for the watch's life: an unreferenced JDK HttpClient shuts down and closes its streams.
  private final HttpClient http;

  IngressWatch(KubeApiServer kube, String namespace, int n) {
    this.times = new double[n];
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(KubeApiServer.trustAllContext())
            .build();
    String base = kube.url() + "/api/v1/namespaces/" + namespace + "/services";
    String token = "Bearer " + kube.adminToken();
    try {
      String list =
          http.send(
                  HttpRequest.newBuilder(URI.create(base + "?limit=1"))
                      .header("Authorization", token)
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      String rv = new JsonObject(list).getJsonObject("metadata").getString("resourceVersion");
      HttpResponse<Stream<String>> watch =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          base
                              + "?watch=1&timeoutSeconds=3600&allowWatchBookmarks=false&resourceVersion="
                              + rv))
                  .header("Authorization", token)
                  .timeout(Duration.ofHours(1))
                  .build(),
              HttpResponse.BodyHandlers.ofLines());
      if (watch.statusCode() != 200) {
        throw new IllegalStateException("watch of " + base + " failed: " + watch.statusCode());
      }
      lines = watch.body();
    } catch (Exception e) {
      throw new IllegalStateException("cannot watch " + base, e);
    }
    reader = new Thread(this::read, "ingress-watch");
    reader.setDaemon(true);
    reader.start();
  }

  void startClock() {
    t0 = System.nanoTime();
  }

  private void read() {
    try {
      lines.forEach(
          line -> {
            if (t0 == 0 || !line.contains("\"ingress\"")) {
              return;
            }
            JsonObject obj = new JsonObject(line).getJsonObject("object");
            JsonObject lb =
                obj.getJsonObject("status", new JsonObject()).getJsonObject("loadBalancer");
            JsonArray ingress = lb == null ? null : lb.getJsonArray("ingress");
            if (ingress != null && !ingress.isEmpty()) {
              String name = obj.getJsonObject("metadata").getString("name");
              synchronized (this) {
                if (done.add(name) && done.size() <= times.length) {
                  times[done.size() - 1] = (System.nanoTime() - t0) / 1e9;
                  notifyAll();
                }
              }
            }
          });
    } catch (RuntimeException e) {
      if (!closed) {
        System.err.println("ingress watch ended: " + e);
      }
    }
  }

  synchronized int converged() {
    return done.size();
  }

  /** Waits up to {@code millis} for another Service to converge. */
  synchronized void awaitChange(long millis) throws InterruptedException {
    wait(millis);
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
