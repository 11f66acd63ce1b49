package dev.pier.cloud.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.ProviderException;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How the webhook client maps answers onto the SPI's failure kinds, and its retries. */
class WebhookErrorsTest {
  private record Scripted(int status, String retryAfter, JsonObject body) {}

  private Vertx vertx;
  private HttpServer server;
  private final Deque<Scripted> script = new ArrayDeque<>();
  private final AtomicInteger calls = new AtomicInteger();
  private final List<JsonObject> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
  private WebhookLoadBalancerProvider provider;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req ->
                    req.body()
                        .onSuccess(
                            b -> {
                              calls.incrementAndGet();
                              bodies.add(b.length() == 0 ? new JsonObject() : b.toJsonObject());
                              Scripted s;
                              synchronized (script) {
                                s =
                                    script.isEmpty()
                                        ? new Scripted(204, null, null)
                                        : script.poll();
                              }
                              var r = req.response().setStatusCode(s.status());
                              if (s.retryAfter() != null) {
                                r.putHeader("Retry-After", s.retryAfter());
                              }
                              if (s.body() == null) {
                                r.end();
                              } else {
                                r.end(s.body().encode());
                              }
                            }));
    server
        .listen(0, "127.0.0.1")
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    provider =
        new WebhookLoadBalancerProvider(
            vertx,
            new WebhookOptions()
                .setUrl("http://127.0.0.1:" + server.actualPort())
                .setRetries(2)
                .setRetryDelay(Duration.ofMillis(10))
                .setTimeout(Duration.ofSeconds(5)));
    provider.initialize(CLUSTER, List.of()).await(10, TimeUnit.SECONDS);
  }

  private static final ClusterIdentity CLUSTER = new ClusterIdentity("c", "uid-of-cluster-c");

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private void answer(int status, String retryAfter, JsonObject body) {
    synchronized (script) {
      script.add(new Scripted(status, retryAfter, body));
    }
  }

  private static JsonObject error(String kind, String message) {
    return new JsonObject()
        .put("error", new JsonObject().put("kind", kind).put("message", message));
  }

  private static final LbService SVC =
      new LbService(
          new ServiceKey("c", "ns", "s"),
          "u-1",
          List.of(new LbPort("a", "TCP", 80, 30080)),
          null,
          "Cluster",
          0,
          "None",
          List.of(),
          Map.of(),
          List.of(),
          LbStatus.EMPTY);

  @Test
  void serverErrorsAreRetriedInsideTheCallThenReportedAsRetry() throws Exception {
    answer(500, null, error("internal", "one"));
    answer(502, null, null);
    provider.ensureLoadBalancerDeleted("c", SVC).await(30, TimeUnit.SECONDS);
    assertThat(calls.get()).isEqualTo(3);
    calls.set(0);
    for (int i = 0; i < 3; i++) {
      answer(500, null, error("internal", "boom"));
    }
    assertThatThrownBy(
            () -> provider.ensureLoadBalancerDeleted("c", SVC).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("boom");
    assertThat(calls.get()).isEqualTo(3);
  }

  @Test
  void retryAfterIsHonouredExactlyAndNotRetriedInside() {
    answer(503, "7", error("busy", "maintenance"));
    assertThatThrownBy(
            () -> provider.ensureLoadBalancerDeleted("c", SVC).await(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            ProviderException.RetryAfter.class,
            e -> assertThat(e.delay()).isEqualTo(Duration.ofSeconds(7)));
    assertThat(calls.get()).isEqualTo(1);
    answer(429, null, null);
    assertThatThrownBy(() -> provider.getLoadBalancer("c", SVC).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.RetryAfter.class);
  }

  @Test
  void invalidInputAndImplementedElsewhere() {
    answer(
        422,
        null,
        new JsonObject()
            .put(
                "error",
                new JsonObject()
                    .put("kind", "invalid_input")
                    .put("field", "metadata.annotations[x/y]")
                    .put("value", "z")
                    .put("message", "x/y=z: no such pool")));
    assertThatThrownBy(
            () -> provider.ensureLoadBalancer("c", SVC, List.of()).await(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("metadata.annotations[x/y]");
              assertThat(e.value()).isEqualTo("z");
              assertThat(e.getMessage()).contains("no such pool");
            });
    answer(409, null, error("implemented_elsewhere", "k3s does it"));
    assertThatThrownBy(
            () -> provider.ensureLoadBalancer("c", SVC, List.of()).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.ImplementedElsewhere.class);
    // Never ImplementedElsewhere on delete (SPI contract).
    answer(409, null, error("implemented_elsewhere", "k3s does it"));
    assertThatThrownBy(
            () -> provider.ensureLoadBalancerDeleted("c", SVC).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class);
  }

  @Test
  void malformedSuccessAnswersAreRetries() {
    answer(
        200,
        null,
        new JsonObject()
            .put(
                "status",
                new JsonObject()
                    .put("ingress", new io.vertx.core.json.JsonArray().add(new JsonObject()))));
    assertThatThrownBy(
            () -> provider.ensureLoadBalancer("c", SVC, List.of()).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("neither ip nor hostname");
  }

  @Test
  void everyRequestCarriesTheClusterUid() throws Exception {
    answer(200, null, new JsonObject().put("exists", false));
    provider.getLoadBalancer("c", SVC).await(30, TimeUnit.SECONDS);
    provider.updateLoadBalancerHosts("c", SVC, List.of()).await(30, TimeUnit.SECONDS);
    provider.ensureLoadBalancerDeleted("c", SVC).await(30, TimeUnit.SECONDS);
    assertThat(bodies).hasSize(3);
    assertThat(bodies)
        .allSatisfy(
            b -> {
              assertThat(b.getString("cluster")).isEqualTo("c");
              assertThat(b.getString("clusterUid")).isEqualTo(CLUSTER.uid());
            });
  }

  @Test
  void withoutTheClusterIdentityNothingIsSent() {
    WebhookLoadBalancerProvider fresh =
        new WebhookLoadBalancerProvider(
            vertx, new WebhookOptions().setUrl("http://127.0.0.1:" + server.actualPort()));
    assertThatThrownBy(() -> fresh.ensureLoadBalancerDeleted("c", SVC).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("identity");
    assertThat(calls.get()).isZero();
  }
}
