package dev.pier.cloud.hetzner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.HoldingHttpServer;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The API client keeps as many connections as {@code hetzner.maxConnections} says: that many calls
 * against a slow API are in flight at once, not Vert.x's default of 5.
 */
class HetznerPoolSizeTest {
  private static final int CALLS = 40;
  // Each request is held this long unless all CALLS are in flight before.
  private static final Duration HOLD = Duration.ofSeconds(1);

  private HoldingHttpServer server;
  private Vertx vertx;

  @BeforeEach
  void setUp() throws Exception {
    server = HoldingHttpServer.start(HOLD, CALLS, 200, "application/json", "{}");
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void asManyCallsAsTheOptionSaysAreInFlightAtOnce() throws Exception {
    HetznerApi api =
        new HetznerApi(
            vertx,
            new HetznerOptions()
                .setEndpoint(server.url())
                .setToken("pool-test-token")
                .setRequestTimeout(Duration.ofSeconds(10))
                .setMaxConnections(CALLS));
    assertThat(server.peakOf(CALLS, i -> api.get("/load_balancers/" + i)))
        .as("requests the API held at once")
        .isEqualTo(CALLS);
    api.close();
  }
}
