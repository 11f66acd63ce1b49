package dev.pier.faults;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

/**
 * An HTTP proxy in front of a provider's or PowerDNS's API that injects the faults a real API
 * brings: 429 with {@code Retry-After}, 500, a call that never answers, and one that answers a byte
 * every second and never ends. Without a fault it forwards each call and records it; a hook can act
 * right after the upstream answered a matching call and before the answer goes back (kill Pier
 * after the cloud created or deleted something, before Pier learned of it).
 */
final class FaultProxy implements AutoCloseable {
  enum Fault {
    NONE,
    TOO_MANY_REQUESTS,
    SERVER_ERROR,
    HANG,
    TRICKLE
  }

  /** One call as the proxy saw it, with the fault it answered (NONE: forwarded). */
  /**
   * @param started when the request's head arrived: a request a process began to send before it was
   *     frozen arrives, in part, before it is thawed
   * @param at when the whole request had arrived
   */
  record Call(Instant started, Instant at, String method, String path, String body, Fault fault) {}

  private record Hook(BiPredicate<String, String> when, Runnable action) {}

  private final Vertx vertx = Vertx.vertx();
  private final HttpClient client;
  private final HttpServer server;
  private final URI upstream;
  private final List<Call> calls = new ArrayList<>();
  private Fault fault = Fault.NONE;
  private Hook hook;
  private long delayMillis;

  private FaultProxy(URI upstream) {
    this.upstream = upstream;
    this.client = vertx.createHttpClient();
    this.server = vertx.createHttpServer().requestHandler(this::handle);
  }

  /** Starts on a free loopback port in front of {@code upstream} (scheme, host and port). */
  static FaultProxy start(String upstream) {
    FaultProxy proxy = new FaultProxy(URI.create(upstream));
    try {
      proxy
          .server
          .listen(0, "127.0.0.1")
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("fault proxy did not start", e);
    }
    return proxy;
  }

  /** The proxy's address with the upstream's path, e.g. {@code http://127.0.0.1:P/pier/v1}. */
  String url() {
    return "http://127.0.0.1:"
        + server.actualPort()
        + (upstream.getPath() == null ? "" : upstream.getPath());
  }

  /** The fault every call from now on gets; {@link Fault#NONE} forwards them again. */
  synchronized void fault(Fault f) {
    fault = f;
  }

  /** Every call forwarded from now on waits this long first: a slow cloud. */
  synchronized void delay(java.time.Duration d) {
    delayMillis = d.toMillis();
  }

  /**
   * Once, after the upstream answered a call whose path and body match {@code when}, runs {@code
   * action} (off the event loop) before the answer goes back.
   */
  synchronized void once(BiPredicate<String, String> when, Runnable action) {
    hook = new Hook(when, action);
  }

  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The calls whose path ends with {@code suffix}, e.g. "/ensure". */
  synchronized List<Call> calls(String suffix) {
    return calls.stream().filter(c -> c.path().endsWith(suffix)).toList();
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void handle(HttpServerRequest req) {
    Instant started = Instant.now();
    req.body()
        .onSuccess(
            body -> {
              Fault f;
              Hook h = null;
              long delay;
              synchronized (this) {
                f = fault;
                delay = delayMillis;
                calls.add(
                    new Call(
                        started,
                        Instant.now(),
                        req.method().name(),
                        req.path(),
                        body.toString(),
                        f));
                if (f == Fault.NONE
                    && hook != null
                    && hook.when().test(req.path(), body.toString())) {
                  h = hook;
                  hook = null;
                }
              }
              switch (f) {
                case TOO_MANY_REQUESTS ->
                    req.response()
                        .setStatusCode(429)
                        .putHeader("Retry-After", "1")
                        .putHeader("Content-Type", "application/json")
                        .end("{\"error\":{\"kind\":\"busy\",\"message\":\"injected 429\"}}");
                case SERVER_ERROR ->
                    req.response()
                        .setStatusCode(500)
                        .putHeader("Content-Type", "application/json")
                        .end("{\"error\":{\"kind\":\"internal\",\"message\":\"injected 500\"}}");
                case HANG -> {
                  // no answer; the connection stays open until the client gives up
                }
                case TRICKLE -> trickle(req);
                case NONE -> {
                  Hook hk = h;
                  if (delay > 0) {
                    vertx.setTimer(delay, id -> forward(req, body, hk));
                  } else {
                    forward(req, body, hk);
                  }
                }
              }
            });
  }

  /** 200 and a space every second, never the end of the body. */
  private void trickle(HttpServerRequest req) {
    req.response()
        .setStatusCode(200)
        .setChunked(true)
        .putHeader("Content-Type", "application/json");
    req.response().write(" ");
    long timer =
        vertx.setPeriodic(
            1000,
            id -> {
              if (!req.response().closed() && !req.response().ended()) {
                req.response().write(" ");
              }
            });
    req.response().closeHandler(v -> vertx.cancelTimer(timer));
  }

  private void forward(HttpServerRequest req, Buffer body, Hook hook) {
    RequestOptions options =
        new RequestOptions()
            .setMethod(req.method())
            .setHost(upstream.getHost())
            .setPort(upstream.getPort())
            .setURI(req.uri())
            .setHeaders(headers(req.headers()));
    client
        .request(options)
        .compose(r -> r.send(body))
        .compose(r -> r.body().map(b -> new Answer(r, b)))
        .compose(a -> hook == null ? Future.succeededFuture(a) : runHook(hook, a))
        .onSuccess(
            a -> {
              req.response().setStatusCode(a.response().statusCode());
              a.response().headers().forEach((k, v) -> copyHeader(req, k, v));
              req.response().end(a.body());
            })
        .onFailure(e -> req.response().setStatusCode(502).end("upstream: " + e));
  }

  private Future<Answer> runHook(Hook h, Answer a) {
    return vertx.executeBlocking(
        () -> {
          h.action().run();
          return a;
        },
        false);
  }

  private static void copyHeader(HttpServerRequest req, String name, String value) {
    String n = name.toLowerCase(java.util.Locale.ROOT);
    if (!n.equals("content-length") && !n.equals("transfer-encoding") && !n.equals("connection")) {
      req.response().putHeader(name, value);
    }
  }

  private static MultiMap headers(MultiMap in) {
    MultiMap out = MultiMap.caseInsensitiveMultiMap();
    in.forEach(
        (k, v) -> {
          String n = k.toLowerCase(java.util.Locale.ROOT);
          if (!n.equals("host") && !n.equals("content-length") && !n.equals("connection")) {
            out.add(k, v);
          }
        });
    return out;
  }

  private record Answer(HttpClientResponse response, Buffer body) {}
}
