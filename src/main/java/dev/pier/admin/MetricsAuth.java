package dev.pier.admin;

import dev.pier.kube.AsyncKubeApi;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may read {@code /metrics}, decided the way controller-runtime's secure metrics do: the
 * request's bearer token goes to a TokenReview, the user it names to a SubjectAccessReview for
 * {@code get} on the non-resource URL {@code /metrics}. 401 without a token or with one the API
 * server does not accept, 403 when the user may not get {@code /metrics}, 200 when it may. Answers
 * are cached for {@link #CACHE_TTL}, keyed by the token's SHA-256 (the token itself is never kept);
 * a failed review is not cached. Both reviews go through the non-blocking {@link AsyncKubeApi}.
 */
public final class MetricsAuth {
  private static final Logger log = LoggerFactory.getLogger(MetricsAuth.class);

  /** {@code admin.metricsAuth}: {@code none} serves /metrics to anyone who reaches it. */
  public static final String NONE = "none";

  /** {@code admin.metricsAuth}: TokenReview and SubjectAccessReview against the API server. */
  public static final String KUBERNETES = "kubernetes";

  public static final String DEFAULT_MODE = NONE;

  /** How long an answer for one token holds. */
  public static final Duration CACHE_TTL = Duration.ofSeconds(10);

  /** Tokens remembered at most; the cache is emptied when it is full. */
  static final int CACHE_SIZE = 1024;

  static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
  static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

  private final AsyncKubeApi api;
  private final LongSupplier nanos;
  private final Map<String, Cached> cache = new LinkedHashMap<>();

  private record Cached(int status, long expiresNanos) {}

  public MetricsAuth(AsyncKubeApi api) {
    this(api, System::nanoTime);
  }

  MetricsAuth(AsyncKubeApi api, LongSupplier nanos) {
    this.api = api;
    this.nanos = nanos;
  }

  /**
   * The status the request gets: 200, 401 or 403; fails when the API server could not answer.
   * Called on {@code ctx} only.
   */
  public Future<Integer> check(Context ctx, String authorization) {
    String token = bearer(authorization);
    if (token == null) {
      return Future.succeededFuture(401);
    }
    String key = sha256(token);
    long now = nanos.getAsLong();
    Cached c = cache.get(key);
    if (c != null && now - c.expiresNanos() < 0) {
      return Future.succeededFuture(c.status());
    }
    return review(ctx, token)
        .onSuccess(
            status -> {
              if (cache.size() >= CACHE_SIZE) {
                cache.clear();
              }
              cache.put(key, new Cached(status, nanos.getAsLong() + CACHE_TTL.toNanos()));
            })
        .onFailure(e -> log.warn("Cannot authorize a /metrics request: {}", e.getMessage()));
  }

  private Future<Integer> review(Context ctx, String token) {
    JsonObject tokenReview =
        new JsonObject()
            .put("apiVersion", "authentication.k8s.io/v1")
            .put("kind", "TokenReview")
            .put("spec", new JsonObject().put("token", token));
    return api.post(ctx, TOKEN_REVIEWS, tokenReview)
        .compose(
            answer -> {
              JsonObject status = answer.getJsonObject("status", new JsonObject());
              if (!status.getBoolean("authenticated", false)) {
                return Future.succeededFuture(401);
              }
              JsonObject user = status.getJsonObject("user", new JsonObject());
              JsonObject spec =
                  new JsonObject()
                      .put("user", user.getString("username"))
                      .put(
                          "nonResourceAttributes",
                          new JsonObject().put("path", "/metrics").put("verb", "get"));
              copy(user, spec, "uid");
              copy(user, spec, "groups");
              copy(user, spec, "extra");
              JsonObject access =
                  new JsonObject()
                      .put("apiVersion", "authorization.k8s.io/v1")
                      .put("kind", "SubjectAccessReview")
                      .put("spec", spec);
              return api.post(ctx, ACCESS_REVIEWS, access)
                  .map(
                      a ->
                          a.getJsonObject("status", new JsonObject()).getBoolean("allowed", false)
                              ? 200
                              : 403);
            });
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
