package dev.pier.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.pier.testkit.OversizedAnswerServer;
import dev.pier.testkit.OversizedAnswerServer.Answer;
import dev.pier.testkit.OversizedAnswerServer.Body;
import dev.pier.testkit.OversizedAnswerServer.Declared;
import dev.pier.testkit.OversizedAnswerServer.Huge;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An answer is read into memory only up to its limit: past it the call fails naming the limit and
 * its option, and the connection is closed, so the server is not read on.
 */
class AnswerLimitTest {
  private static final AnswerLimit LIMIT = new AnswerLimit(1 << 20, "http.maxAnswerBytes");

  private Vertx vertx;
  private HttpClient client;
  private OversizedAnswerServer server;
  private volatile Answer answer;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    server = OversizedAnswerServer.start(req -> answer);
    client = HttpAnswer.client(vertx, Duration.ofSeconds(5), 0);
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  private Future<HttpAnswer> get(String url) {
    return HttpAnswer.send(
        client,
        new RequestOptions().setAbsoluteURI(url).setTimeout(30_000),
        null,
        LIMIT,
        "test GET /x");
  }

  private Future<HttpAnswer> get() {
    return get(server.url() + "/x");
  }

  @Test
  void aHugeAnswerFailsAtTheLimitAndItsConnectionIsClosedEarly() throws Exception {
    answer = new Huge("{\"a\": \"");

    Throwable thrown = catchThrowable(() -> get().await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(AnswerLimit.Passed.class)
        .hasMessage(
            "the answer of test GET /x passed its limit of 1048576 bytes (http.maxAnswerBytes)");
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
  }

  @Test
  void anAnswerOfExactlyTheLimitIsReadWholeAndOneByteMoreIsNot() throws Exception {
    answer = new Body(Buffer.buffer(new byte[(int) LIMIT.bytes()]));
    assertThat(get().await(20, TimeUnit.SECONDS).body().length()).isEqualTo(1 << 20);

    answer = new Body(Buffer.buffer(new byte[(int) LIMIT.bytes() + 1]));
    assertThat(catchThrowable(() -> get().await(20, TimeUnit.SECONDS)))
        .isInstanceOf(AnswerLimit.Passed.class);
  }

  @Test
  void aDeclaredLengthAboveTheLimitFailsBeforeTheBodyIsRead() throws Exception {
    answer = new Declared(2L << 30);
    long start = System.nanoTime();

    Throwable thrown = catchThrowable(() -> get().await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(AnswerLimit.Passed.class)
        .hasMessage(
            "the answer of test GET /x passed its limit of 1048576 bytes (http.maxAnswerBytes)"
                + ": Content-Length 2147483648");
    // The server sent 1 KiB and holds the rest: only the header can have ended the call.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void theClientServesTheNextCallAfterAnAnswerItCutOff() throws Exception {
    answer = new Huge("");
    assertThat(catchThrowable(() -> get().await(20, TimeUnit.SECONDS)))
        .isInstanceOf(AnswerLimit.Passed.class);

    answer = new Body("{}");
    HttpAnswer ok = get().await(20, TimeUnit.SECONDS);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.bodyAsString()).isEqualTo("{}");
  }

  /** A redirect would carry the API token to the host it names. */
  @Test
  void aRedirectIsNotFollowedAndPiersUserAgentIsSent() throws Exception {
    AtomicInteger reached = new AtomicInteger();
    AtomicReference<String> agent = new AtomicReference<>();
    HttpServer elsewhere =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  reached.incrementAndGet();
                  req.response().end();
                })
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    HttpServer api =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  agent.set(req.getHeader("User-Agent"));
                  req.response()
                      .setStatusCode(302)
                      .putHeader(
                          "Location", "http://127.0.0.1:" + elsewhere.actualPort() + "/steal")
                      .end();
                })
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);

    HttpAnswer redirect =
        get("http://127.0.0.1:" + api.actualPort() + "/v1/zones").await(10, TimeUnit.SECONDS);

    assertThat(redirect.statusCode()).isEqualTo(302);
    assertThat(reached).hasValue(0);
    assertThat(agent).hasValue("pier");
  }
}
