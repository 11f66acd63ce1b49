package dev.pier.cloud.hetzner;

import dev.pier.cloud.hetzner.HetznerJson.Action;
import dev.pier.cloud.hetzner.HetznerJson.ActionError;
import dev.pier.cloud.hetzner.HetznerJson.Answer;
import dev.pier.cloud.hetzner.HetznerJson.ApiError;
import dev.pier.cloud.hetzner.HetznerJson.ErrorAnswer;
import dev.pier.cloud.hetzner.HetznerJson.LoadBalancer;
import dev.pier.cloud.hetzner.HetznerJson.Page;
import dev.pier.util.AnswerLimit;
import dev.pier.util.HttpAnswer;
import dev.pier.util.RequestFence;
import io.netty.handler.codec.http.QueryStringEncoder;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Hetzner Cloud API over Vert.x's HTTP client: JSON calls, pagination, Action polling on timers
 * and the account's rate limit. Nothing here blocks. An answer is read up to its {@link
 * AnswerLimit} (a page of {@code GET /load_balancers}: the inventory limit), and fails its call,
 * {@code answer_too_large}, past it.
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
  private final HttpClient client;
  private final AtomicLong blockedUntilMillis = new AtomicLong();
  private final RequestFence fence;

  HetznerApi(Vertx vertx, HetznerOptions options) {
    this(vertx, options, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each request goes (after any wait for the rate limit), for the
   *     term the request was made in
   */
  HetznerApi(Vertx vertx, HetznerOptions options, RequestFence fence) {
    this.vertx = vertx;
    this.options = options;
    this.fence = fence;
    this.client = HttpAnswer.client(vertx, timeout(), options.getMaxConnections());
  }

  private Duration timeout() {
    return options.getRequestTimeout();
  }

  Future<Answer> get(String path) {
    return call(HttpMethod.GET, path, Map.of(), null, Answer.class, options.getAnswerLimit());
  }

  Future<Answer> post(String path, Object body) {
    return call(HttpMethod.POST, path, Map.of(), body, Answer.class, options.getAnswerLimit());
  }

  Future<Answer> put(String path, Object body) {
    return call(HttpMethod.PUT, path, Map.of(), body, Answer.class, options.getAnswerLimit());
  }

  Future<Void> delete(String path) {
    return call(HttpMethod.DELETE, path, Map.of(), null, Answer.class, options.getAnswerLimit())
        .mapEmpty();
  }

  /**
   * Every load balancer {@code GET /load_balancers} lists for the query, following {@code
   * meta.pagination.next_page}.
   */
  Future<List<LoadBalancer>> loadBalancers(Map<String, String> query) {
    List<LoadBalancer> all = new ArrayList<>();
    return page(query, 1, all).map(v -> all);
  }

  private Future<Void> page(Map<String, String> query, int page, List<LoadBalancer> into) {
    Map<String, String> q = new LinkedHashMap<>(query);
    q.put("page", Integer.toString(page));
    q.put("per_page", Integer.toString(PER_PAGE));
    return call(HttpMethod.GET, "/load_balancers", q, null, Page.class, options.getInventoryLimit())
        .compose(
            body -> {
              into.addAll(body.loadBalancers());
              Integer next = body.nextPage();
              if (next == null || next <= page || body.loadBalancers().isEmpty()) {
                return Future.succeededFuture();
              }
              return page(query, next, into);
            });
  }

  /**
   * Polls the Action on timers until it succeeds (completes) or ends in error (fails with its code
   * and message); an Action running longer than the configured timeout fails too.
   */
  Future<Void> awaitAction(Action action) {
    Promise<Void> done = Promise.promise();
    long deadline = System.nanoTime() + options.getActionTimeout().toNanos();
    check(action, deadline, done);
    return done.future();
  }

  private void check(Action action, long deadline, Promise<Void> done) {
    if (action == null) {
      done.complete();
      return;
    }
    String status = action.status() == null ? "running" : action.status();
    long id = action.id();
    if (status.equals("success")) {
      done.complete();
      return;
    }
    if (status.equals("error")) {
      ActionError error = action.error();
      done.fail(
          new HetznerApiException(
              0,
              error.code() == null ? "action_failed" : error.code(),
              "Action "
                  + id
                  + " ("
                  + action.command()
                  + ") failed: "
                  + (error.message() == null ? "no message" : error.message()),
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
                  + action.command()
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
            get("/load_balancers/actions/" + id)
                .onSuccess(body -> check(body.action(), deadline, done))
                .onFailure(done::fail));
  }

  private <T> Future<T> call(
      HttpMethod method,
      String path,
      Map<String, String> query,
      Object body,
      Class<T> type,
      AnswerLimit limit) {
    long deadline = System.currentTimeMillis() + options.getRateLimitMaxWait().toMillis();
    return attempt(method, path, query, body, type, limit, deadline, fence.term());
  }

  private <T> Future<T> attempt(
      HttpMethod method,
      String path,
      Map<String, String> query,
      Object body,
      Class<T> type,
      AnswerLimit limit,
      long deadline,
      long term) {
    return waitForBudget(deadline)
        .compose(
            v -> {
              RuntimeException refused = fence.refusal(term, "Hetzner API " + method + " " + path);
              return refused != null
                  ? Future.failedFuture(refused)
                  : send(method, path, query, body, limit);
            })
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
                return attempt(method, path, query, body, type, limit, deadline, term);
              }
              if (status >= 400) {
                return Future.failedFuture(error(method, path, response));
              }
              try {
                return Future.succeededFuture(
                    HetznerJson.decode(status == 204 ? null : response.body(), type));
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

  private void noteRateLimit(HttpAnswer response) {
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

  /** One request; its answer is read up to {@code limit}. */
  private Future<HttpAnswer> send(
      HttpMethod method, String path, Map<String, String> query, Object body, AnswerLimit limit) {
    QueryStringEncoder uri = new QueryStringEncoder(options.getEndpoint() + path);
    query.forEach(uri::addParam);
    RequestOptions request =
        new RequestOptions()
            .setMethod(method)
            .setAbsoluteURI(uri.toString())
            .setTimeout(timeout().toMillis())
            .putHeader("Authorization", "Bearer " + options.getToken());
    if (body != null) {
      request.putHeader("Content-Type", "application/json");
    }
    return options
        .getEgress()
        .vet(request)
        .compose(
            vetted ->
                HttpAnswer.send(
                    client,
                    vetted,
                    body == null ? null : HetznerJson.encode(body),
                    limit,
                    "Hetzner API " + method + " " + path))
        .recover(
            e ->
                Future.failedFuture(
                    e instanceof AnswerLimit.Passed
                        ? new HetznerApiException(0, "answer_too_large", e.getMessage(), null, null)
                        : new HetznerApiException(
                            0,
                            "unavailable",
                            method
                                + " "
                                + path
                                + ": "
                                + (e.getMessage() == null ? e : e.getMessage()),
                            null,
                            null)));
  }

  private static HetznerApiException error(HttpMethod method, String path, HttpAnswer response) {
    ApiError error = null;
    try {
      error = HetznerJson.decode(response.body(), ErrorAnswer.class).error();
    } catch (RuntimeException ignored) {
      // A proxy's HTML error page: the status code alone says enough.
    }
    if (error == null) {
      error = new ApiError(null, null, null);
    }
    String code = error.code() == null ? "http_" + response.statusCode() : error.code();
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
            + (error.message() == null ? response.statusMessage() : error.message()),
        error.invalidFields(),
        null);
  }

  void close() {
    client.close();
  }
}
