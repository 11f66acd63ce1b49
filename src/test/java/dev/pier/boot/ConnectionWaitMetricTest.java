package dev.pier.boot;

import static dev.pier.cloud.webhook.NumberedServices.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.webhook.WebhookLoadBalancerProvider;
import dev.pier.cloud.webhook.WebhookOptions;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.ClusterIdentity;
import dev.pier.testkit.HoldingHttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With Pier's metrics set-up, the time a provider call waits for a pooled connection is on the
 * Prometheus endpoint, one series per service the client talks to: calls beyond the pool's size
 * wait for a held request to finish, and the wait shows.
 */
class ConnectionWaitMetricTest {
  private static final ClusterIdentity CLUSTER = new ClusterIdentity("c", "uid-of-cluster-c");
  private static final int POOL = 2;
  private static final int CALLS = 6;
  // Each request is held this long: calls 3 to 6 wait at least one hold for a connection.
  private static final Duration HOLD = Duration.ofSeconds(1);

  private HoldingHttpServer small;
  private HoldingHttpServer large;
  private PrometheusMeterRegistry registry;
  private Vertx vertx;

  @BeforeEach
  void setUp() throws Exception {
    small = HoldingHttpServer.start(HOLD, Integer.MAX_VALUE, 204, "", "");
    large = HoldingHttpServer.start(HOLD, CALLS, 204, "", "");
    registry = PierMetrics.newRegistry();
    vertx = Components.vertx(registry);
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    small.close();
    large.close();
  }

  @Test
  void callsBeyondThePoolWaitForAConnectionAndTheWaitIsAMetricPerService() throws Exception {
    runCalls(small, POOL);
    runCalls(large, CALLS);

    String scrape = registry.scrape();
    String smallPool = address(small);
    String largePool = address(large);
    assertThat(value(scrape, "vertx_pool_queue_time_seconds_count", smallPool))
        .as("calls that asked the small pool for a connection")
        .isEqualTo(CALLS);
    assertThat(value(scrape, "vertx_pool_queue_time_seconds_max", smallPool))
        .as("the longest wait for a connection of the small pool, seconds")
        .isGreaterThanOrEqualTo(HOLD.toMillis() / 1000.0 / 2);
    assertThat(value(scrape, "vertx_pool_queue_time_seconds_count", largePool))
        .as("calls that asked the other client's pool for a connection")
        .isEqualTo(CALLS);
    assertThat(value(scrape, "vertx_pool_queue_pending", smallPool))
        .as("calls waiting for a connection once all are done")
        .isZero();
  }

  private void runCalls(HoldingHttpServer server, int pool) throws Exception {
    WebhookLoadBalancerProvider provider =
        new WebhookLoadBalancerProvider(
            vertx,
            new WebhookOptions()
                .setUrl(server.url())
                .setRetries(0)
                .setTimeout(Duration.ofSeconds(30))
                .setMaxConnections(pool));
    provider.initialize(CLUSTER, List.of()).await(10, TimeUnit.SECONDS);
    List<Future<Void>> calls = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      calls.add(provider.ensureLoadBalancerDeleted("c", numbered(i)));
    }
    Future.all(calls).await(30, TimeUnit.SECONDS);
    assertThat(server.received()).as("requests the server got").isEqualTo(CALLS);
  }

  /** The pool's name: the host and port of the server the client talks to. */
  private static String address(HoldingHttpServer server) {
    URI uri = URI.create(server.url());
    return uri.getHost() + ":" + uri.getPort();
  }

  private static double value(String scrape, String name, String pool) {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$").matcher(scrape);
    while (m.find()) {
      String labels = m.group(1);
      if (labels.contains("pool_name=\"" + pool + "\"") && labels.contains("pool_type=\"http\"")) {
        return Double.parseDouble(m.group(2));
      }
    }
    throw new AssertionError(
        "no " + name + " for pool " + pool + " in the scrape:\n" + grep(scrape, "vertx_pool"));
  }

  private static String grep(String text, String word) {
    return String.join(
        "\n", text.lines().filter(l -> l.contains(word) && !l.startsWith("#")).toList());
  }
}
