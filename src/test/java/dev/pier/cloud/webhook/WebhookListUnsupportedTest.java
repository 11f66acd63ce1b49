package dev.pier.cloud.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancers;
import dev.pier.model.ClusterIdentity;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A webhook without the optional list call (404) leaves the provider without the capability. */
class WebhookListUnsupportedTest {

  @Test
  void a404OnListMeansNoCapabilityAndNoFurtherCalls() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      AtomicInteger calls = new AtomicInteger();
      HttpServer server =
          vertx
              .createHttpServer()
              .requestHandler(
                  req -> {
                    calls.incrementAndGet();
                    req.response()
                        .setStatusCode(404)
                        .putHeader("Content-Type", "application/json")
                        .end("{\"error\":{\"kind\":\"not_found\",\"message\":\"no list\"}}");
                  })
              .listen(0, "127.0.0.1")
              .await(10, TimeUnit.SECONDS);
      WebhookLoadBalancerProvider provider =
          new WebhookLoadBalancerProvider(
              vertx,
              new WebhookOptions()
                  .setUrl("http://127.0.0.1:" + server.actualPort() + "/pier/v1")
                  .setRetries(2)
                  .setTimeout(Duration.ofSeconds(5)));
      provider.initialize(new ClusterIdentity("c", "uid-of-kube-system"), List.of());
      OwnedLoadBalancers owned = provider.ownedLoadBalancers().orElseThrow();

      assertThat(owned.list("c").await(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(calls.get()).as("404 is not retried").isEqualTo(1);
      assertThat(provider.ownedLoadBalancers()).isEmpty();
      assertThat(owned.list("c").await(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(calls.get()).as("not asked again").isEqualTo(1);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
