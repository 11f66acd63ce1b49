package dev.pier.dns.externaldns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.HoldingHttpServer;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client keeps as many connections as {@code dns.externalDns.maxConnections} says: that many
 * calls against a slow webhook provider are in flight at once, not Vert.x's default of 5. The calls
 * are domain filter reads ({@code GET /}), which are never shared as record listings are.
 */
class ExternalDnsPoolSizeTest {
  private static final int CALLS = 40;
  // Each request is held this long unless all CALLS are in flight before.
  private static final Duration HOLD = Duration.ofSeconds(1);

  private HoldingHttpServer server;
  private Vertx vertx;

  @BeforeEach
  void setUp() throws Exception {
    server =
        HoldingHttpServer.start(
            HOLD,
            CALLS,
            200,
            ExternalDnsWebhookProvider.MEDIA_TYPE,
            "{\"include\":[\"example.com\"]}");
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void asManyCallsAsTheOptionSaysAreInFlightAtOnce() throws Exception {
    ExternalDnsWebhookProvider provider =
        new ExternalDnsWebhookProvider(
            vertx,
            new ExternalDnsOptions()
                .setUrl(server.url())
                .setTimeout(Duration.ofSeconds(10))
                .setMaxConnections(CALLS));
    assertThat(server.peakOf(CALLS, i -> provider.zones()))
        .as("requests the provider held at once")
        .isEqualTo(CALLS);
    provider.close();
  }
}
