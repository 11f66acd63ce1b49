package dev.pier.cloud.webhook;

import static dev.pier.cloud.webhook.NumberedServices.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.ProviderException;
import dev.pier.model.ClusterIdentity;
import dev.pier.testkit.OversizedAnswerServer;
import dev.pier.testkit.OversizedAnswerServer.Answer;
import dev.pier.testkit.OversizedAnswerServer.Body;
import dev.pier.testkit.OversizedAnswerServer.Declared;
import dev.pier.testkit.OversizedAnswerServer.Huge;
import dev.pier.util.AnswerLimit;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A webhook that answers more than {@code http.maxAnswerBytes} (its {@code /list}: more than {@code
 * http.maxInventoryAnswerBytes}) fails the call at once, naming the limit, without being read to
 * its end: one member's webhook answering a gigabyte cannot fill Pier's heap.
 */
class WebhookAnswerLimitTest {
  private static final ClusterIdentity CLUSTER = new ClusterIdentity("c", "uid-of-cluster-c");
  private static final AnswerLimit INVENTORY =
      new AnswerLimit(2 << 20, "http.maxInventoryAnswerBytes");

  private Vertx vertx;
  private OversizedAnswerServer server;
  private volatile Answer answer;
  private WebhookLoadBalancerProvider provider;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    server = OversizedAnswerServer.start(req -> answer);
    provider =
        new WebhookLoadBalancerProvider(
            vertx,
            new WebhookOptions()
                .setUrl(server.url())
                .setTimeout(Duration.ofSeconds(30))
                .setRetries(3)
                .setRetryDelay(Duration.ofMillis(10))
                .setInventoryLimit(INVENTORY));
    provider.initialize(CLUSTER, List.of()).await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void aHugeAnswerFailsTheCallAtItsLimitWithoutRetriesAndClosesTheConnection() throws Exception {
    answer = new Huge("{\"status\": {\"ingress\": [{\"ip\": \"192.0.2.1\"}]}");

    Throwable thrown =
        catchThrowable(
            () ->
                provider
                    .ensureLoadBalancer("c", numbered(1), List.of())
                    .await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessage(
            "the answer of webhook ensure passed its limit of 1048576 bytes"
                + " (http.maxAnswerBytes)");
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
    // The same webhook would answer the same again: the Service's backoff retries, not the call.
    assertThat(server.requests()).isEqualTo(1);
  }

  @Test
  void anAnswerJustUnderTheLimitIsRead() throws Exception {
    String json = "{\"exists\": false}";
    answer = new Body(json + " ".repeat((1 << 20) - json.length() - 1));

    assertThat(provider.getLoadBalancer("c", numbered(1)).await(20, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void aDeclaredLengthAboveTheLimitFailsTheCallBeforeTheBodyIsRead() throws Exception {
    answer = new Declared(1L << 30);
    long start = System.nanoTime();

    Throwable thrown =
        catchThrowable(
            () -> provider.ensureLoadBalancerDeleted("c", numbered(1)).await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("passed its limit of 1048576 bytes (http.maxAnswerBytes)")
        .hasMessageContaining("Content-Length 1073741824");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void theListIsReadUpToTheInventoryLimit() throws Exception {
    // Over the answer limit, under the inventory limit: read.
    String listed =
        "{\"loadBalancers\": [{\"id\": \"lb-1\", \"name\": \"a\", \"serviceUid\": \"u-1\","
            + " \"serviceKey\": \"ns/s1\"}]}";
    answer = new Body(listed + " ".repeat((3 << 19) - listed.length()));
    List<OwnedLoadBalancer> owned =
        provider.ownedLoadBalancers().orElseThrow().list("c").await(20, TimeUnit.SECONDS);
    assertThat(owned).extracting(OwnedLoadBalancer::id).containsExactly("lb-1");

    answer = new Huge("{\"loadBalancers\": [");
    Throwable thrown =
        catchThrowable(
            () ->
                provider.ownedLoadBalancers().orElseThrow().list("c").await(20, TimeUnit.SECONDS));
    assertThat(thrown)
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessage(
            "the answer of webhook list passed its limit of 2097152 bytes"
                + " (http.maxInventoryAnswerBytes)");
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
  }
}
