package dev.pier.admin;

import dev.pier.kube.AsyncKubeApi;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may read {@code /metrics}, decided the way controller-runtime's secure metrics do: the
 * request's bearer token goes to a TokenReview (naming the configured audiences, whose answer must
 * name one of them), the user it names to a SubjectAccessReview for {@code get} on the non-resource
 * URL {@code /metrics}. 401 without a token or with one the API server does not accept, 403 when
 * the user may not get {@code /metrics}, 200 when it may, 429 when the token is new and its source
 * (or all sources together) spent the budget of reviews the API server refused ({@link
 * ReviewBudget}). Answers are cached for {@link #CACHE_TTL}, keyed by the token's SHA-256 (the
 * token itself is never kept), the least recently used going first when the cache is full; a token
 * the API server accepted is remembered for {@link #KNOWN_TTL} and reviewed again without the
 * budget. A failed review is not cached. Both reviews go through the non-blocking {@link
 * AsyncKubeApi}, each with its deadline.
 */
public final class MetricsAuth {
  private static final Logger log = LoggerFactory.getLogger(MetricsAuth.class);

  /** {@code admin.metricsAuth}: {@code none} serves /metrics to anyone who reaches it. */
  public static final String NONE = "none";

  /** {@code admin.metricsAuth}: TokenReview and SubjectAccessReview against the API server. */
  public static final String KUBERNETES = "kubernetes";

  public static final String DEFAULT_MODE = NONE;

  /** {@code admin.metricsAudiences}: none, the API server's own. */
  public static final List<String> DEFAULT_AUDIENCES = List.of();

  /** How long an answer for one token holds. */
  public static final Duration CACHE_TTL = Duration.ofSeconds(10);

  /** How long a token the API server accepted skips the review budget. */
  static final Duration KNOWN_TTL = Duration.ofHours(1);

  /** Tokens remembered at most, in each of the two caches; the least recently used go first. */
  static final int CACHE_SIZE = 1024;

  /** Reviews of refused tokens from one source address: 5 a second, 10 at once. */
  static final ReviewBudget.Rate PER_SOURCE = new ReviewBudget.Rate(5, 10);

  /** Reviews of refused tokens from all sources together: 10 a second, 10 at once. */
  static final ReviewBudget.Rate OVERALL = new ReviewBudget.Rate(10, 10);

  /** Source addresses whose budget is kept. */
  static final int MAX_SOURCES = 4096;

  private static final Duration LIMIT_WARNING_INTERVAL = Duration.ofMinutes(1);

  static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
  static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

  private final AsyncKubeApi api;
  private final List<String> audiences;
  private final LongSupplier nanos;
  private final ReviewCache answers;
  private final ReviewCache known;
  private final ReviewBudget budget;
  private final MeterRegistry registry;
  private final Counter reviews;
  private long lastLimitWarning;
  private boolean warnedOfLimit;

  /**
   * @param audiences the audiences the TokenReview asks for (empty: the API server's own)
   * @param registry where the counters of reviews and refusals go
   */
  public MetricsAuth(AsyncKubeApi api, List<String> audiences, MeterRegistry registry) {
    this(api, audiences, registry, System::nanoTime);
  }

  MetricsAuth(
      AsyncKubeApi api, List<String> audiences, MeterRegistry registry, LongSupplier nanos) {
    this.api = api;
    this.audiences = List.copyOf(audiences);
    this.nanos = nanos;
    this.registry = registry;
    this.answers = new ReviewCache(CACHE_SIZE, CACHE_TTL, nanos);
    this.known = new ReviewCache(CACHE_SIZE, KNOWN_TTL, nanos);
    this.budget = new ReviewBudget(PER_SOURCE, OVERALL, MAX_SOURCES, nanos);
    this.reviews =
        Counter.builder("pier.metrics.auth.token.reviews")
            .description("TokenReviews sent for /metrics requests (admin.metricsAuth: kubernetes)")
            .register(registry);
    for (String reason : List.of("unauthorized", "forbidden", "limited")) {
      refusals(reason);
    }
  }

  /**
   * The status the request gets: 200, 401, 403 or 429; fails when the API server could not answer.
   * Called on {@code ctx} only.
   *
   * @param source the caller's address, whose budget a review of a new token takes
   */
  public Future<Integer> check(Context ctx, String authorization, String source) {
    String token = bearer(authorization);
    if (token == null) {
      return Future.succeededFuture(refused(401));
    }
    String key = sha256(token);
    Integer cached = answers.get(key);
    if (cached != null) {
      return Future.succeededFuture(refused(cached));
    }
    boolean good = known.get(key) != null;
    if (!good && !budget.tryTake(source)) {
      warnOfLimit(source);
      return Future.succeededFuture(refused(429));
    }
    reviews.increment();
    return review(ctx, token)
        .onSuccess(
            status -> {
              answers.put(key, status);
              if (status == 401) {
                // Revoked or expired since: from now on it needs the budget like any other.
                known.remove(key);
              } else {
                known.put(key, status);
                if (!good) {
                  budget.giveBack(source);
                }
              }
              refused(status);
            })
        .onFailure(e -> log.warn("Cannot authorize a /metrics request: {}", e.getMessage()));
  }

  private int refused(int status) {
    switch (status) {
      case 401 -> refusals("unauthorized").increment();
      case 403 -> refusals("forbidden").increment();
      case 429 -> refusals("limited").increment();
      default -> {}
    }
    return status;
  }

  private Counter refusals(String reason) {
    return Counter.builder("pier.metrics.auth.refused")
        .description("/metrics requests refused (admin.metricsAuth: kubernetes), by reason")
        .tag("reason", reason)
        .register(registry);
  }

  private void warnOfLimit(String source) {
    long now = nanos.getAsLong();
    if (!warnedOfLimit || now - lastLimitWarning >= LIMIT_WARNING_INTERVAL.toNanos()) {
      warnedOfLimit = true;
      lastLimitWarning = now;
      log.warn(
          "Refusing /metrics requests with new tokens (429) from {} or all sources: too many"
              + " tokens the API server did not accept (pier_metrics_auth_refused_total, reason"
              + " limited, counts them; logged at most once a minute)",
          source);
    }
  }

  private Future<Integer> review(Context ctx, String token) {
    JsonObject spec = new JsonObject().put("token", token);
    if (!audiences.isEmpty()) {
      spec.put("audiences", new JsonArray(audiences));
    }
    JsonObject tokenReview =
        new JsonObject()
            .put("apiVersion", "authentication.k8s.io/v1")
            .put("kind", "TokenReview")
            .put("spec", spec);
    return api.post(ctx, TOKEN_REVIEWS, tokenReview)
        .compose(
            answer -> {
              JsonObject status = object(answer, "status");
              if (!accepted(status, audiences)) {
                return Future.succeededFuture(401);
              }
              JsonObject user = object(status, "user");
              JsonObject access =
                  new JsonObject()
                      .put("apiVersion", "authorization.k8s.io/v1")
                      .put("kind", "SubjectAccessReview")
                      .put("spec", accessSpec(user));
              return api.post(ctx, ACCESS_REVIEWS, access)
                  .map(
                      a ->
                          Boolean.TRUE.equals(object(a, "status").getValue("allowed")) ? 200 : 403);
            });
  }

  /**
   * Whether a TokenReview's status accepts the token: authenticated and, when Pier asked for
   * audiences, naming at least one of them (as the API server's own webhook authenticator checks).
   */
  static boolean accepted(JsonObject status, List<String> audiences) {
    if (!Boolean.TRUE.equals(status.getValue("authenticated"))) {
      return false;
    }
    if (audiences.isEmpty()) {
      return true;
    }
    return status.getValue("audiences") instanceof JsonArray named
        && named.stream().anyMatch(audiences::contains);
  }

  private static JsonObject accessSpec(JsonObject user) {
    JsonObject spec =
        new JsonObject()
            .put("user", user.getValue("username"))
            .put(
                "nonResourceAttributes",
                new JsonObject().put("path", "/metrics").put("verb", "get"));
    copy(user, spec, "uid");
    copy(user, spec, "groups");
    copy(user, spec, "extra");
    return spec;
  }

  private static JsonObject object(JsonObject from, String field) {
    return from.getValue(field) instanceof JsonObject o ? o : new JsonObject();
  }

  private static void copy(JsonObject from, JsonObject to, String field) {
    Object v = from.getValue(field);
    if (v != null) {
      to.put(field, v);
    }
  }

  /** The token of an {@code Authorization: Bearer <token>} header, or null. */
  static String bearer(String authorization) {
    if (authorization == null) {
      return null;
    }
    String a = authorization.trim();
    if (a.length() <= 7 || !a.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String token = a.substring(7).trim();
    return token.isEmpty() ? null : token;
  }

  static String sha256(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
