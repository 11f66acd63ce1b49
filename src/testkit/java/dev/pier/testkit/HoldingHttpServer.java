package dev.pier.testkit;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * An HTTP server on 127.0.0.1 that holds every request for a while before answering it with a fixed
 * status and body, and records the most requests it held at once: how many calls a client really
 * has in flight together. Once {@code releaseAt} requests are held, all of them are answered at
 * once, so a client that reaches it is not kept waiting. Runs on a Vert.x instance of its own, so
 * that the client's event loops cannot slow it down; its handler runs on one event loop.
 */
public final class HoldingHttpServer implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final Duration hold;
  private final int releaseAt;
  private final int status;
  private final String contentType;
  private final String body;
  // Held request -> its timer; touched on the server's event loop only.
  private final Map<HttpServerRequest, Long> held = new HashMap<>();
  private volatile int peak;
  private volatile int received;
  private final HttpServer server;

  private HoldingHttpServer(
      Duration hold, int releaseAt, int status, String contentType, String body) {
    this.hold = hold;
    this.releaseAt = releaseAt;
    this.status = status;
    this.contentType = contentType;
    this.body = body;
    this.server = vertx.createHttpServer().requestHandler(this::handle);
  }

  /**
   * Starts a server that answers every request after {@code hold}, or as soon as {@code releaseAt}
   * requests are held, with {@code status} and {@code body} (sent as {@code contentType}; an empty
   * body is sent without one).
   */
  public static HoldingHttpServer start(
      Duration hold, int releaseAt, int status, String contentType, String body)
      throws TimeoutException {
    HoldingHttpServer s = new HoldingHttpServer(hold, releaseAt, status, contentType, body);
    s.server.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    return s;
  }

  private void handle(HttpServerRequest req) {
    req.body()
        .onComplete(
            read -> {
              received++;
              long timer = vertx.setTimer(Math.max(1, hold.toMillis()), t -> answer(req));
              held.put(req, timer);
              peak = Math.max(peak, held.size());
              if (held.size() >= releaseAt) {
                for (var e : Map.copyOf(held).entrySet()) {
                  vertx.cancelTimer(e.getValue());
                  answer(e.getKey());
                }
              }
            });
  }

  private void answer(HttpServerRequest req) {
    if (held.remove(req) == null) {
      return;
    }
    var response = req.response().setStatusCode(status);
    if (body.isEmpty()) {
      response.end();
    } else {
      response.putHeader("Content-Type", contentType).end(body);
    }
  }

  /** The base URL, {@code http://127.0.0.1:<port>}. */
  public String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /**
   * Starts {@code n} calls at once ({@code call} gets 0 to n-1) and waits for all of them; returns
   * the most requests the server held at the same time. Fails unless every call succeeded with
   * exactly one request each (no retry inflated the count).
   */
  public int peakOf(int n, IntFunction<Future<?>> call) throws TimeoutException {
    List<Future<?>> calls = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      calls.add(call.apply(i));
    }
    Future.join(calls).otherwiseEmpty().await(30, TimeUnit.SECONDS);
    for (Future<?> f : calls) {
      if (!f.succeeded()) {
        throw new IllegalStateException("a call did not succeed: " + f.cause());
      }
    }
    if (received != n) {
      throw new IllegalStateException(n + " calls sent " + received + " requests");
    }
    return peak;
  }

  /** The most requests held at the same time so far. */
  public int peakInFlight() {
    return peak;
  }

  /** Requests received so far. */
  public int received() {
    return received;
  }

  @Override
  public void close() throws TimeoutException {
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
