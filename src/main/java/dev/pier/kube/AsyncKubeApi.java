package dev.pier.kube;

import dev.pier.util.RequestFence;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The few API writes Pier makes, and its one read outside informers (the cluster identity), sent
 * without blocking through the fabric8 client's own HTTP client (so authentication, TLS and token
 * refresh are fabric8's), completing on the caller's Vert.x context.
 */
public final class AsyncKubeApi {
  public static final String MERGE_PATCH = "application/merge-patch+json";
  public static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

  /** Server-side apply; JSON is YAML, so the body is JSON. */
  public static final String APPLY_PATCH = "application/apply-patch+yaml";

  private static final String JSON = "application/json";

  /** Every request's total deadline: a black-holed API server never holds a key for long. */
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http;
  private final String base;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final RequestFence fence;
  private final RequestSlots slots;
  private final ServerWarnings warnings = new ServerWarnings();

  public AsyncKubeApi(KubernetesClient client) {
    this(client, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each write is sent (a Service write, an Event, a federation
   *     write, after any wait for a connection or a slot), for the term current then: a refusal
   *     fails the write and nothing is sent. This is the leadership gate at the request.
   */
  public AsyncKubeApi(KubernetesClient client, RequestFence fence) {
    this(client, fence, RequestSlots.of(client.getHttpClient()));
  }

  AsyncKubeApi(KubernetesClient client, RequestFence fence, RequestSlots slots) {
    this.slots = slots;
    this.http = client.getHttpClient();
    String master = client.getConfiguration().getMasterUrl();
    this.base = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
    this.fence = fence;
  }

  /** The path of a core/v1 namespaced object, e.g. services or events. */
  public static String corePath(String namespace, String plural, String name) {
    return "/api/v1/namespaces/"
        + encode(namespace)
        + "/"
        + plural
        + (name == null ? "" : "/" + encode(name));
  }

  public Future<JsonObject> patch(Context ctx, String path, String contentType, JsonObject body) {
    return send(ctx, "PATCH", path, contentType, body);
  }

  public Future<JsonObject> post(Context ctx, String path, JsonObject body) {
    return send(ctx, "POST", path, JSON, body);
  }

  public Future<JsonObject> get(Context ctx, String path) {
    return send(ctx, "GET", path, null, null);
  }

  public Future<JsonObject> put(Context ctx, String path, JsonObject body) {
    return send(ctx, "PUT", path, JSON, body);
  }

  /** DELETE, with optional delete options (preconditions, propagation policy). */
  public Future<JsonObject> delete(Context ctx, String path, JsonObject options) {
    return send(ctx, "DELETE", path, JSON, options == null ? new JsonObject() : options);
  }

  /**
   * A GET whose body is text (health endpoints such as {@code /readyz}), within {@code timeout}.
   * Fails with a {@link KubeApiException} on a non-2xx answer.
   */
  public Future<String> getText(Context ctx, String path, Duration timeout) {
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(base + path)
            .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .build();
    return Future.fromCompletionStage(sendAsync(request), ctx)
        .compose(
            response ->
                response.isSuccessful()
                    ? Future.succeededFuture(response.body() == null ? "" : response.body())
                    : Future.failedFuture(
                        new KubeApiException(
                            response.code(),
                            "GET "
                                + path
                                + ": "
                                + response.code()
                                + " "
                                + reason(response.body()))));
  }

  /**
   * An answer of which at most a limit was read.
   *
   * @param body the whole body as text when it was within the limit, else empty
   * @param tooLong whether the body was longer than the limit (said or found), and cut off there
   */
  public record LimitedAnswer(int code, String body, boolean tooLong) {}

  /**
   * A GET whose answer is read only up to {@code maxBytes} (a health endpoint, {@code /version},
   * asked of a server that a member Secret names), whatever its status, within {@code timeout} as a
   * whole: an answer that trickles in ends there too. A longer answer is not read further; its
   * request is reset. Fails only when no answer came (a network or TLS failure, the timeout).
   */
  public Future<LimitedAnswer> getLimited(
      Context ctx, String path, Duration timeout, int maxBytes) {
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(base + path)
            .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .build();
    LimitedRead read = new LimitedRead(maxBytes);
    inFlight.incrementAndGet();
    CompletableFuture<LimitedAnswer> answer;
    try {
      answer = read.send(http, request);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((r, e) -> inFlight.decrementAndGet());
    long timer =
        ctx.owner()
            .setTimer(
                Math.max(1, timeout.toMillis()),
                id ->
                    read.abandon(
                        new TimeoutException(
                            "GET "
                                + path
                                + ": no whole answer within "
                                + timeout.toMillis()
                                + " ms")));
    return Future.fromCompletionStage(answer, ctx).andThen(ar -> ctx.owner().cancelTimer(timer));
  }

  /** Requests sent through this API and not answered yet; safe to read from any thread. */
  public int inFlight() {
    return inFlight.get();
  }

  private Future<JsonObject> send(
      Context ctx, String method, String path, String contentType, JsonObject body) {
    return slots
        .acquire(ctx)
        .compose(
            v -> {
              Future<JsonObject> sent;
              try {
                sent = sendNow(ctx, method, path, contentType, body);
              } catch (RuntimeException e) {
                sent = Future.failedFuture(e);
              }
              return sent.andThen(ar -> slots.release());
            });
  }

  /** Sends with a slot held: the fence is asked now, right before the request goes. */
  private Future<JsonObject> sendNow(
      Context ctx, String method, String path, String contentType, JsonObject body) {
    if (!"GET".equals(method)) {
      RuntimeException refused = fence.refusal(fence.term(), method + " " + path);
      if (refused != null) {
        return Future.failedFuture(refused);
      }
    }
    HttpRequest.Builder builder =
        http.newHttpRequestBuilder()
            .uri(base + path)
            .timeout(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    HttpRequest request =
        body == null ? builder.build() : builder.method(method, contentType, body.encode()).build();
    return Future.fromCompletionStage(sendAsync(request), ctx)
        .compose(
            response -> {
              warnings.note(method + " " + path, response.headers("Warning"));
              String text = response.body();
              if (response.isSuccessful()) {
                return Future.succeededFuture(
                    text == null || text.isEmpty() ? new JsonObject() : new JsonObject(text));
              }
              return Future.failedFuture(
                  new KubeApiException(
                      response.code(),
                      method + " " + path + ": " + response.code() + " " + reason(text),
                      KubeApiException.fieldConflicts(text)));
            });
  }

  /**
   * Sends, counted in flight until answered. A client closed at shutdown throws; that is a failed
   * request here, never an exception into the caller's event loop.
   */
  private CompletableFuture<HttpResponse<String>> sendAsync(HttpRequest request) {
    inFlight.incrementAndGet();
    try {
      return http.sendAsync(request, String.class)
          .whenComplete((r, e) -> inFlight.decrementAndGet());
    } catch (RuntimeException e) {
      inFlight.decrementAndGet();
      return CompletableFuture.failedFuture(e);
    }
  }

  private static String reason(String body) {
    if (body == null || body.isEmpty()) {
      return "";
    }
    try {
      String message = new JsonObject(body).getString("message");
      return message == null ? body : message;
    } catch (RuntimeException e) {
      return body.length() > 200 ? body.substring(0, 200) : body;
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
