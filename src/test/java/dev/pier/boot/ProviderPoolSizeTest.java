package dev.pier.boot;

import static dev.pier.cloud.webhook.NumberedServices.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.pier.cloud.hetzner.HetznerApiForTests;
import dev.pier.cloud.hetzner.HetznerOptions;
import dev.pier.cloud.webhook.WebhookLoadBalancerProvider;
import dev.pier.cloud.webhook.WebhookOptions;
import dev.pier.dns.externaldns.ExternalDnsOptions;
import dev.pier.dns.externaldns.ExternalDnsWebhookProvider;
import dev.pier.dns.powerdns.ApiKey;
import dev.pier.dns.powerdns.PowerDnsOptions;
import dev.pier.dns.powerdns.PowerDnsProvider;
import dev.pier.model.ClusterIdentity;
import dev.pier.testkit.HoldingHttpServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each cloud and DNS client keeps as many connections as its {@code maxConnections} option says
 * ({@code hetzner.}, {@code webhook.}, {@code dns.powerdns.}, {@code dns.externalDns.}): that many
 * calls against a slow API are in flight at once, not Vert.x's default of 5. Webhook options built
 * in code without a size still run that many calls at once.
 */
class ProviderPoolSizeTest {
  private static final int CALLS = 40;
  // Each request is held this long unless all CALLS are in flight before: long enough that on a
  // loaded machine the last of them arrives while the first is still held (1 s saw 36 of 40 in CI).
  private static final Duration HOLD = Duration.ofSeconds(8);
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final ClusterIdentity CLUSTER = new ClusterIdentity("c", "uid-of-cluster-c");

  /** A client of the slow API: its call number {@code i}, and how it is closed. */
  private record Client(IntFunction<Future<?>> call, Runnable close) {}

  /** Opens a client of the API at {@code url}. */
  private interface Opener {
    Client open(Vertx vertx, String url) throws Exception;
  }

  /** What the slow API answers every call with, and the client to open against it. */
  private record Api(int status, String contentType, String body, Opener opener) {}

  static Stream<Arguments> providers() {
    return Stream.of(
        arguments(
            "hetzner",
            new Api(
                200,
                "application/json",
                "{}",
                (vertx, url) -> {
                  HetznerApiForTests api =
                      new HetznerApiForTests(
                          vertx,
                          new HetznerOptions()
                              .setEndpoint(url)
                              .setToken("pool-test-token")
                              .setRequestTimeout(TIMEOUT)
                              .setMaxConnections(CALLS));
                  return new Client(i -> api.get("/load_balancers/" + i), api::close);
                })),
        arguments(
            "webhook",
            new Api(
                204,
                "",
                "",
                (vertx, url) ->
                    webhook(vertx, url, new WebhookOptions().setMaxConnections(CALLS)))),
        arguments(
            "webhook, options built without a size",
            new Api(204, "", "", (vertx, url) -> webhook(vertx, url, new WebhookOptions()))),
        arguments(
            "powerdns",
            new Api(
                200,
                "application/json",
                "[]",
                (vertx, url) -> {
                  PowerDnsProvider provider =
                      new PowerDnsProvider(
                          vertx,
                          new PowerDnsOptions()
                              .setUrl(url)
                              .setTimeout(TIMEOUT)
                              .setApiKey(ApiKey.of("pool-test-key", "the test"))
                              .setMaxConnections(CALLS));
                  return new Client(i -> provider.zones(), provider::close);
                })),
        // The calls are domain filter reads (GET /), which are never shared as record listings
        // are.
        arguments(
            "externaldns",
            new Api(
                200,
                ExternalDnsWebhookProvider.MEDIA_TYPE,
                "{\"include\":[\"example.com\"]}",
                (vertx, url) -> {
                  ExternalDnsWebhookProvider provider =
                      new ExternalDnsWebhookProvider(
                          vertx,
                          new ExternalDnsOptions()
                              .setUrl(url)
                              .setTimeout(TIMEOUT)
                              .setMaxConnections(CALLS));
                  return new Client(i -> provider.zones(), provider::close);
                })));
  }

  /** A webhook provider with {@code options}, initialized as Pier does for cluster {@code c}. */
  private static Client webhook(Vertx vertx, String url, WebhookOptions options) throws Exception {
    WebhookLoadBalancerProvider provider =
        new WebhookLoadBalancerProvider(
            vertx, options.setUrl(url).setRetries(0).setTimeout(TIMEOUT));
    provider.initialize(CLUSTER, List.of()).await(10, TimeUnit.SECONDS);
    return new Client(i -> provider.ensureLoadBalancerDeleted("c", numbered(i)), provider::close);
  }

  private Vertx vertx;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("providers")
  void asManyCallsAsTheOptionSaysAreInFlightAtOnce(String provider, Api api) throws Exception {
    try (HoldingHttpServer server =
        HoldingHttpServer.start(HOLD, CALLS, api.status(), api.contentType(), api.body())) {
      Client client = api.opener().open(vertx, server.url());
      assertThat(server.peakOf(CALLS, client.call()))
          .as("requests the %s API held at once", provider)
          .isEqualTo(CALLS);
      client.close().run();
    }
  }
}
