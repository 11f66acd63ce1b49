package dev.pier.cloud.webhook;

import static dev.pier.cloud.webhook.NumberedServices.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.ClusterIdentity;
import dev.pier.testkit.HoldingHttpServer;
import dev.pier.util.RequestFence;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls queued behind the webhook's connections when the term they started in ends send nothing:
 * the fence is asked right before each request goes, not only when the call starts.
 */
class WebhookFenceTest {
  private static final ClusterIdentity CLUSTER = new ClusterIdentity("c", "uid-of-cluster-c");

  private HoldingHttpServer server;
  private Vertx vertx;

  @BeforeEach
  void setUp() throws Exception {
    // Each request held 500 ms: with one connection, the calls after the first wait for it.
    server = HoldingHttpServer.start(Duration.ofMillis(500), 1000, 204, "", "");
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  /** A fence whose term ends when the test says. */
  private static final class Term implements RequestFence {
    final AtomicLong current = new AtomicLong(1);

    @Override
    public long term() {
      return current.get();
    }

    @Override
    public RuntimeException refusal(long term, String what) {
      return term == current.get() ? null : new IllegalStateException("deposed: " + what);
    }
  }

  @Test
  void callsWaitingForAConnectionWhenTheTermEndsSendNothing() throws Exception {
    Term fence = new Term();
    WebhookLoadBalancerProvider provider =
        new WebhookLoadBalancerProvider(
            vertx,
            new WebhookOptions()
                .setUrl(server.url())
                .setRetries(2)
                .setRetryDelay(Duration.ofMillis(50))
                .setMaxConnections(1),
            fence);
    provider.initialize(CLUSTER, List.of()).await(10, TimeUnit.SECONDS);
    List<Future<Void>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(provider.ensureLoadBalancerDeleted("c", numbered(i)));
    }
    Thread.sleep(100);
    fence.current.incrementAndGet();
    Future.join(calls).otherwiseEmpty().await(10, TimeUnit.SECONDS);

    assertThat(server.received()).as("requests that reached the webhook").isEqualTo(1);
    assertThat(calls.get(0).succeeded()).isTrue();
    assertThat(calls.subList(1, 5))
        .allSatisfy(
            c ->
                assertThat(c.cause())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("deposed: webhook delete"));
  }
}
