package dev.pier.cloud.hetzner;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Hetzner Cloud API over Vert.x's web client: JSON calls, pagination, Action polling on timers
 * and the account's rate limit. Nothing here blocks.
 *
 * <p>Rate limit: every answer carries {@code RateLimit-Limit}, {@code RateLimit-Remaining} and
 * {@code RateLimit-Reset} (a Unix time in seconds). When the remaining budget is 0, or an answer is
 * 429 {@code rate_limit_exceeded}, calls wait until the reset; a wait longer than {@link
 * HetznerOptions#getRateLimitMaxWait()} fails the call with the wait, so that the Service is
 * rescheduled for that time instead of failing.
 */
final class HetznerApi {
  private static final Logger log = LoggerFactory.getLogger(HetznerApi.class);
  private static final int PER_PAGE = 50;

  private final Vertx vertx;
  private final HetznerOptions options;
  private final WebClient client;
  private final AtomicLong blockedUntilMillis = new AtomicLong();

  HetznerApi(Vertx vertx, HetznerOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.client =
        WebClient.create(
            vertx,
            new WebClientOptions()
                .setUserAgent("pier")
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeout().toMillis())));
  }

  private Duration timeout() {
    return options.getRequestTimeout();
  }

  Future<JsonObject> get(String path, Map<String, String> query) {
    return call(HttpMethod.GET, path, query, null);
  }

  Future<JsonObject> post(String path, JsonObject body) {
    return call(HttpMethod.POST, path, Map.of(), body);
  }

  Future<JsonObject> put(String path, JsonObject body) {
    return call(HttpMethod.PUT, path, Map.of(), body);
  }

  Future<Void> delete(String path) {
    return call(HttpMethod.DELETE, path, Map.of(), null).mapEmpty();
  }

  /** Every item of a paginated list, following {@code meta.pagination.next_page}. */
  Future<List<JsonObject>> list(String path, Map<String, String> query, String key) {
    List<JsonObject> all = new ArrayList<>();
    return page(path, query, key, 1, all).map(v -> all);
  }

  private Future<Void> page(
      String path, Map<String, String> query, String key, int page, List<JsonObject> into) {
    Map<String, String> q = new LinkedHashMap<>(query);
    q.put("page", Integer.toString(page));
    q.put("per_page", Integer.toString(PER_PAGE));
    return get(path, q)
        .compose(
            body -> {
              JsonArray items = body.getJsonArray(key, new JsonArray());
              for (int i = 0; i < items.size(); i++) {
                into.add(items.getJsonObject(i));
              }
              Integer next =
                  body.getJsonObject("meta", new JsonObject())
                      .getJsonObject("pagination", new JsonObject())
                      .getInteger("next_page");
              if (next == null || next <= page || items.isEmpty()) {
                return Future.succeededFuture();
              }
              return page(path, query, key, next, into);
            });
  }

  /**
   * Polls the Action on timers until it succeeds (completes) or ends in error (fails with its code
   * and message); an Action running longer than the configured timeout fails too.
   */
  Future<Void> awaitAction(JsonObject action) {
    Promise<Void> done = Promise.promise();
    long deadline = System.nanoTime() + options.getActionTimeout().toNanos();
    check(action, deadline, done);
    return done.future();
  }

  private void check(JsonObject action, long deadline, Promise<Void> done) {
    if (action == null) {
      done.complete();
      return;
    }
    String status = action.getString("status", "running");
    long id = action.getLong("id", 0L);
    if (status.equals("success")) {
      done.complete();
      return;
    }
    if (status.equals("error")) {
      JsonObject error = action.getJsonObject("error", new JsonObject());
      done.fail(
          new HetznerApiException(
              0,
              error.getString("code", "action_failed"),
              "Action "
                  + id
                  + " ("
                  + action.getString("command")
                  + ") failed: "
                  + error.getString("message", "no message"),
              null,
              null));
      return;
    }
    if (System.nanoTime() > deadline) {
      done.fail(
          new HetznerApiException(
              0,
              "timeout",
              "Action "
                  + id
                  + " ("
                  + action.getString("command")
                  + ") still running after "
                  + options.getActionTimeout().toSeconds()
                  + "s",
              null,
              null));
      return;
    }
    vertx.setTimer(
        Math.max(1, options.getActionPollInterval().toMillis()),
        t ->
            get("/load_balancers/actions/" + id, Map.of())
                .onSuccess(body -> check(body.getJsonObject("action"), deadline, done))
                .onFailure(done::fail));
  }

  private Future<JsonObject> call(
      HttpMethod method, String path, Map<String, String> query, JsonObject body) {
    long deadline = System.currentTimeMillis() + options.getRateLimitMaxWait().toMillis();
    return attempt(method, path, query, body, deadline);
  }

  private Future<JsonObject> attempt(
      HttpMethod method, String path, Map<String, String> query, JsonObject body, long deadline) {
    return waitForBudget(deadline)
        .compose(v -> send(method, path, query, body))
        .compose(
            response -> {
              noteRateLimit(response);
              int status = response.statusCode();
              if (status == 429) {
                long until = Math.max(blockedUntilMillis.get(), System.currentTimeMillis() + 1000);
                blockedUntilMillis.accumulateAndGet(until, Math::max);
                log.info(
                    "Hetzner API rate limit reached on {} {}: waiting {} ms",
                    method,
                    path,
                    until - System.currentTimeMillis());
                return attempt(method, path, query, body, deadline);
              }
              if (status >= 400) {
                return Future.failedFuture(error(method, path, response));
              }
              if (status == 204 || response.body() == null || response.body().length() == 0) {
                return Future.succeededFuture(new JsonObject());
              }
              try {
                return Future.succeededFuture(response.bodyAsJsonObject());
              } catch (RuntimeException e) {
                return Future.failedFuture(
                    new HetznerApiException(
                        status,
                        "json_error",
                        method + " " + path + ": answer is not JSON",
                        null,
                        null));
              }
            });
  }

  /** Waits on a timer while the rate limit's budget is spent; fails when the wait is too long. */
  private Future<Void> waitForBudget(long deadline) {
    long now = System.currentTimeMillis();
    long until = blockedUntilMillis.get();
    if (until <= now) {
      return Future.succeededFuture();
    }
    if (until > deadline) {
      Duration wait = Duration.ofMillis(until - now);
      return Future.failedFuture(
          new HetznerApiException(
              429,
              "rate_limit_exceeded",
              "Hetzner API rate limit reached; budget resets in " + wait.toMillis() + " ms",
              null,
              wait));
    }
    Promise<Void> p = Promise.promise();
    vertx.setTimer(Math.max(1, until - now), t -> p.complete());
    return p.future();
  }

  private void noteRateLimit(HttpResponse<Buffer> response) {
    String remaining = response.getHeader("RateLimit-Remaining");
    String reset = response.getHeader("RateLimit-Reset");
    if (reset == null) {
      return;
    }
    try {
      long resetMillis = Long.parseLong(reset.trim()) * 1000;
      if (response.statusCode() == 429
          || (remaining != null && Long.parseLong(remaining.trim()) <= 0)) {
        blockedUntilMillis.accumulateAndGet(resetMillis, Math::max);
      }
    } catch (NumberFormatException ignored) {
      // A malformed header is no reason to fail the call.
    }
  }

  private Future<HttpResponse<Buffer>> send(
      HttpMethod method, String path, Map<String, String> query, JsonObject body) {
    HttpRequest<Buffer> request =
        client
            .requestAbs(method, options.getEndpoint() + path)
            .timeout(timeout().toMillis())
            .bearerTokenAuthentication(options.getToken());
    query.forEach(request::addQueryParam);
    Future<HttpResponse<Buffer>> sent =
        body == null ? request.send() : request.sendJsonObject(body);
    return sent.recover(
        e ->
            Future.failedFuture(
                new HetznerApiException(
                    0,
                    "unavailable",
                    method + " " + path + ": " + (e.getMessage() == null ? e : e.getMessage()),
                    null,
                    null)));
  }

  private static HetznerApiException error(
      HttpMethod method, String path, HttpResponse<Buffer> response) {
    JsonObject error = new JsonObject();
    try {
      JsonObject body = response.bodyAsJsonObject();
      if (body != null && body.getJsonObject("error") != null) {
        error = body.getJsonObject("error");
      }
    } catch (RuntimeException ignored) {
      // A proxy's HTML error page: the status code alone says enough.
    }
    String code = error.getString("code", "http_" + response.statusCode());
    return new HetznerApiException(
        response.statusCode(),
        code,
        method
            + " "
            + path
            + ": "
            + response.statusCode()
            + " "
            + code
            + ": "
            + error.getString("message", response.statusMessage()),
        error.getJsonObject("details"),
        null);
  }

  void close() {
    client.close();
  }
}
