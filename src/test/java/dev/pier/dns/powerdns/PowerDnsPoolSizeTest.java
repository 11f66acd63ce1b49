package dev.pier.dns.powerdns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.HoldingHttpServer;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client keeps as many connections as {@code dns.powerdns.maxConnections} says: that many calls
 * against a slow API are in flight at once, not Vert.x's default of 5.
 */
class PowerDnsPoolSizeTest {
  private static final int CALLS = 40;
  // Each request is held this long unless all CALLS are in flight before.
  private static final Duration HOLD = Duration.ofSeconds(1);

  private HoldingHttpServer server;
  private Vertx vertx;

  @BeforeEach
  void setUp() throws Exception {
    server = HoldingHttpServer.start(HOLD, CALLS, 200, "application/json", "[]");
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void asManyCallsAsTheOptionSaysAreInFlightAtOnce() throws Exception {
    PowerDnsProvider provider =
        new PowerDnsProvider(
            vertx,
            new PowerDnsOptions()
                .setUrl(server.url())
                .setTimeout(Duration.ofSeconds(10))
                .setApiKey(ApiKey.of("pool-test-key", "the test"))
                .setMaxConnections(CALLS));
    assertThat(server.peakOf(CALLS, i -> provider.zones()))
        .as("requests the API held at once")
        .isEqualTo(CALLS);
    provider.close();
  }
}
