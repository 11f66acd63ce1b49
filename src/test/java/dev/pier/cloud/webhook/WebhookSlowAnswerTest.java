package dev.pier.cloud.webhook;

import static dev.pier.cloud.webhook.NumberedServices.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.pier.cloud.ProviderException;
import dev.pier.model.ClusterIdentity;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code webhook.timeout} bounds a whole call: a webhook that answers a byte a second and never
 * finishes (which an idle timeout never ends) fails the call at the timeout and gives its
 * connection back, so that later calls are not stuck behind the slow ones.
 */
class WebhookSlowAnswerTest {
  private static final ClusterIdentity CLUSTER = new ClusterIdentity("c", "uid-of-cluster-c");
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final int MAX_CONNECTIONS = 5;

  private Vertx vertx;
  private HttpServer server;
  private volatile boolean trickle = true;
  private WebhookLoadBalancerProvider provider;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(this::answer);
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
                .setRetries(0)
                .setTimeout(TIMEOUT)
                .setMaxConnections(MAX_CONNECTIONS));
    provider.initialize(CLUSTER, List.of()).await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private void answer(HttpServerRequest req) {
    req.body()
        .onSuccess(
            b -> {
              if (!trickle) {
                req.response().setStatusCode(204).end();
                return;
              }
              req.response().setStatusCode(200).setChunked(true).write(" ");
              long timer =
                  vertx.setPeriodic(
                      200,
                      id -> {
                        if (!req.response().closed()) {
                          req.response().write(" ");
                        }
                      });
              req.response().closeHandler(v -> vertx.cancelTimer(timer));
            });
  }

  @Test
  void aTricklingAnswerFailsTheCallAtTheTimeout() {
    long start = System.nanoTime();
    Throwable thrown =
        catchThrowable(
            () -> provider.ensureLoadBalancerDeleted("c", numbered(0)).await(10, TimeUnit.SECONDS));
    assertThat(thrown).as(String.valueOf(thrown)).isInstanceOf(ProviderException.Retry.class);
    assertThat(thrown).hasMessageContaining("no complete answer within 1000 ms");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.multipliedBy(5));
  }

  @Test
  void callsAbandonedAtTheTimeoutGiveTheirConnectionsBack() throws Exception {
    // More slow calls at once than the client keeps connections per server.
    List<Future<Void>> slow = new ArrayList<>();
    for (int i = 0; i < MAX_CONNECTIONS * 2 + 2; i++) {
      slow.add(provider.ensureLoadBalancerDeleted("c", numbered(i)));
    }
    for (Future<Void> f : slow) {
      assertThatThrownBy(() -> f.await(10, TimeUnit.SECONDS))
          .isInstanceOf(ProviderException.Retry.class);
    }
    trickle = false;
    // The server is well again: the next call goes through at once.
    provider.ensureLoadBalancerDeleted("c", numbered(99)).await(5, TimeUnit.SECONDS);
  }
}
