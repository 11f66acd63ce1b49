package dev.pier.cloud.webhook;

import static dev.pier.cloud.webhook.NumberedServices.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.ClusterIdentity;
import dev.pier.testkit.HoldingHttpServer;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client keeps as many connections as {@code webhook.maxConnections} says: that many calls
 * against a slow webhook are in flight at once, not Vert.x's default of 5.
 */
class WebhookPoolSizeTest {
  private static final ClusterIdentity CLUSTER = new ClusterIdentity("c", "uid-of-cluster-c");
  private static final int CALLS = 40;
  // Each request is held this long unless all CALLS are in flight before.
  private static final Duration HOLD = Duration.ofSeconds(1);

  private HoldingHttpServer server;
  private Vertx vertx;

  @BeforeEach
  void setUp() throws Exception {
    server = HoldingHttpServer.start(HOLD, CALLS, 204, "", "");
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  private int peakOfConcurrentCalls(WebhookOptions options) throws Exception {
    WebhookLoadBalancerProvider provider =
        new WebhookLoadBalancerProvider(
            vertx, options.setUrl(server.url()).setRetries(0).setTimeout(Duration.ofSeconds(10)));
    provider.initialize(CLUSTER, List.of()).await(10, TimeUnit.SECONDS);
    return server.peakOf(CALLS, i -> provider.ensureLoadBalancerDeleted("c", numbered(i)));
  }

  @Test
  void asManyCallsAsTheOptionSaysAreInFlightAtOnce() throws Exception {
    assertThat(peakOfConcurrentCalls(new WebhookOptions().setMaxConnections(CALLS)))
        .as("requests the webhook held at once")
        .isEqualTo(CALLS);
  }

  @Test
  void optionsBuiltWithoutASizeStillRunManyCallsAtOnce() throws Exception {
    assertThat(peakOfConcurrentCalls(new WebhookOptions()))
        .as("requests the webhook held at once")
        .isEqualTo(CALLS);
  }
}
