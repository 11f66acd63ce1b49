package dev.pier.cloud.hetzner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.pier.testkit.OversizedAnswerServer;
import dev.pier.testkit.OversizedAnswerServer.Answer;
import dev.pier.testkit.OversizedAnswerServer.Body;
import dev.pier.testkit.OversizedAnswerServer.Declared;
import dev.pier.testkit.OversizedAnswerServer.Huge;
import dev.pier.util.AnswerLimit;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Hetzner API client reads an answer up to {@code http.maxAnswerBytes}, a page of {@code GET
 * /load_balancers} up to {@code http.maxInventoryAnswerBytes}; past it the call fails naming the
 * limit and the connection is closed. The stand-in answers with Hetzner's shapes; no Hetzner API
 * can be made to send 64 MiB.
 */
class HetznerAnswerLimitTest {
  private static final AnswerLimit INVENTORY =
      new AnswerLimit(2 << 20, "http.maxInventoryAnswerBytes");

  private Vertx vertx;
  private OversizedAnswerServer server;
  private volatile Answer answer;
  private HetznerApi api;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    server = OversizedAnswerServer.start(req -> answer);
    api =
        new HetznerApi(
            vertx,
            new HetznerOptions()
                .setEndpoint(server.url() + "/v1")
                .setToken("t")
                .setRequestTimeout(Duration.ofSeconds(30))
                .setInventoryLimit(INVENTORY));
  }

  @AfterEach
  void tearDown() throws Exception {
    api.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void aHugeAnswerFailsTheCallAtItsLimitAndClosesTheConnection() throws Exception {
    answer = new Huge("{\"load_balancer\": {\"id\": 1, \"name\": \"");

    Throwable thrown =
        catchThrowable(() -> api.get("/load_balancers/1").await(20, TimeUnit.SECONDS));

    assertThat(thrown).isInstanceOf(HetznerApiException.class);
    assertThat(((HetznerApiException) thrown).code()).isEqualTo("answer_too_large");
    assertThat(thrown)
        .hasMessage(
            "the answer of Hetzner API GET /load_balancers/1 passed its limit of 1048576 bytes"
                + " (http.maxAnswerBytes)");
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
  }

  @Test
  void anAnswerJustUnderTheLimitIsRead() throws Exception {
    String json = "{\"load_balancer\": {\"id\": 7, \"name\": \"lb\"}}";
    answer = new Body(json + " ".repeat((1 << 20) - json.length() - 1));

    assertThat(api.get("/load_balancers/7").await(20, TimeUnit.SECONDS).loadBalancer().id())
        .isEqualTo(7);
  }

  @Test
  void aDeclaredLengthAboveTheLimitFailsBeforeTheBodyIsRead() throws Exception {
    answer = new Declared(1L << 30);
    long start = System.nanoTime();

    Throwable thrown =
        catchThrowable(() -> api.delete("/load_balancers/1").await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(HetznerApiException.class)
        .hasMessageContaining("passed its limit of 1048576 bytes (http.maxAnswerBytes)")
        .hasMessageContaining("Content-Length 1073741824");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void aPageOfLoadBalancersIsReadUpToTheInventoryLimit() throws Exception {
    // Over the answer limit, under the inventory limit: read.
    String page =
        "{\"load_balancers\": [{\"id\": 3, \"name\": \"lb\"}],"
            + " \"meta\": {\"pagination\": {\"next_page\": null}}}";
    answer = new Body(page + " ".repeat((3 << 19) - page.length()));
    assertThat(api.loadBalancers(Map.of("label_selector", "a=b")).await(20, TimeUnit.SECONDS))
        .extracting(HetznerJson.LoadBalancer::id)
        .containsExactly(3L);

    answer = new Huge("{\"load_balancers\": [");
    Throwable thrown =
        catchThrowable(
            () -> api.loadBalancers(Map.of("label_selector", "a=b")).await(20, TimeUnit.SECONDS));
    assertThat(thrown)
        .isInstanceOf(HetznerApiException.class)
        .hasMessage(
            "the answer of Hetzner API GET /load_balancers passed its limit of 2097152 bytes"
                + " (http.maxInventoryAnswerBytes)");
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
  }
}
