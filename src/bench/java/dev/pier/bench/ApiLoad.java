package dev.pier.bench;

import dev.pier.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Raw API traffic against the benchmark's apiserver with the admin token: many requests in flight,
 * no client-side rate limit; HTTP/2 (streams on a few connections) or HTTP/1.1 (a connection per
 * request in flight).
 */
final class ApiLoad {
  private static final int ATTEMPTS = 5;

  // kube-apiserver allows 100 concurrent streams on one HTTP/2 connection (its default when
  // --http2-max-streams-per-connection is not set), and the JDK client fails a request beyond
  // that ("too many concurrent streams"): requests go round-robin over this many clients, each
  // with a connection of its own, so that up to 400 can be in flight.
  private static final int CONNECTIONS = 4;

  private final HttpClient[] clients = new HttpClient[CONNECTIONS];
  private final AtomicInteger next = new AtomicInteger();
  private final String base;
  private final String token;
  final AtomicLong retries = new AtomicLong();

  ApiLoad(KubeApiServer kube, HttpClient.Version version) {
    for (int i = 0; i < CONNECTIONS; i++) {
      clients[i] =
          HttpClient.newBuilder()
              .version(version)
              .sslContext(KubeApiServer.trustAllContext())
              .connectTimeout(Duration.ofSeconds(10))
              .build();
    }
    this.base = kube.url();
    this.token = kube.adminToken();
  }

  /** One request: method, path, content type (null for GET) and body. */
  record Call(String method, String path, String contentType, String body) {}

  HttpRequest request(Call c) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + c.path()))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token);
    if (c.contentType() != null) {
      b.header("Content-Type", c.contentType());
    }
    return b.method(
            c.method(),
            c.body() == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(c.body()))
        .build();
  }

  /** Sends one request and returns the body; fails on a non-2xx answer after retries. */
  CompletableFuture<String> send(Call c) {
    return send(c, 1);
  }

  private CompletableFuture<String> send(Call c, int attempt) {
    HttpClient http = clients[Math.floorMod(next.getAndIncrement(), CONNECTIONS)];
    return http.sendAsync(request(c), HttpResponse.BodyHandlers.ofString())
        .handle(
            (r, e) -> {
              if (e == null && r.statusCode() / 100 == 2) {
                return CompletableFuture.completedFuture(r.body());
              }
              if (e == null && r.statusCode() == 409 && c.method().equals("POST")) {
                return CompletableFuture.completedFuture(r.body());
              }
              if (attempt >= ATTEMPTS) {
                String why = e != null ? e.toString() : r.statusCode() + " " + r.body();
                return CompletableFuture.<String>failedFuture(
                    new IllegalStateException(c.method() + " " + c.path() + ": " + why));
              }
              retries.incrementAndGet();
              return send(c, attempt + 1);
            })
        .thenCompose(f -> f);
  }

  String get(String path) {
    return send(new Call("GET", path, null, null)).join();
  }

  /**
   * Runs {@code count} chains of calls (each chain's calls in order, like one reconcile's writes),
   * at most {@code inFlight} chains at once. Returns the elapsed nanoseconds.
   */
  long runChains(int count, int inFlight, IntFunction<List<Call>> chain)
      throws InterruptedException {
    Semaphore slots = new Semaphore(inFlight);
    CompletableFuture<?>[] all = new CompletableFuture<?>[count];
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      slots.acquire();
      CompletableFuture<String> f = CompletableFuture.completedFuture("");
      for (Call c : chain.apply(i)) {
        f = f.thenCompose(prev -> send(c));
      }
      all[i] = f.whenComplete((r, e) -> slots.release());
    }
    CompletableFuture.allOf(all).join();
    return System.nanoTime() - start;
  }
}
