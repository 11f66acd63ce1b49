package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A GET whose answer is read only up to a limit, against a real HTTP server: a short answer whole,
 * a long one cut off where the limit is passed, however long it would go on, and an answer that
 * trickles ended at the timeout.
 */
class LimitedReadTest {
  private static final int LIMIT = 4096;
  private final Vertx server = Vertx.vertx();
  private final Vertx client = Vertx.vertx();
  private final AtomicLong written = new AtomicLong();
  private volatile boolean closed;
  private KubernetesClient kube;
  private AsyncKubeApi api;

  @BeforeEach
  void start() throws Exception {
    HttpServer http =
        server
            .createHttpServer()
            .requestHandler(this::answer)
            .listen(0, "127.0.0.1")
            .await(10, java.util.concurrent.TimeUnit.SECONDS);
    kube =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + http.actualPort())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .withHttpClientFactory(new Vertx5HttpClientFactory(client))
            .build();
    api = new AsyncKubeApi(kube);
  }

  @AfterEach
  void stop() {
    kube.close();
    client.close().await();
    server.close().await();
  }

  private void answer(HttpServerRequest req) {
    req.connection().closeHandler(v -> closed = true);
    var response = req.response();
    switch (req.path()) {
      case "/short" -> response.end("ok");
      case "/denied" -> response.setStatusCode(403).end("{\"message\": \"no\"}");
      case "/announced" -> {
        // Says 1 MiB is coming, then sends nothing: nothing needs reading to refuse it.
        response.putHeader("Content-Length", Integer.toString(1 << 20)).write("TOPSECRET");
      }
      case "/endless" -> {
        response.setChunked(true);
        endless(response);
      }
      case "/trickle" -> {
        response.setChunked(true);
        trickle(response);
      }
      default -> response.setStatusCode(404).end();
    }
  }

  /** Writes 1 KiB each millisecond for as long as the connection stays. */
  private void endless(io.vertx.core.http.HttpServerResponse response) {
    if (closed) {
      return;
    }
    response.write(Buffer.buffer(new byte[1024])).onSuccess(v -> written.addAndGet(1024));
    server.setTimer(1, t -> endless(response));
  }

  /** Writes one byte every 100 ms, never ending. */
  private void trickle(io.vertx.core.http.HttpServerResponse response) {
    if (closed) {
      return;
    }
    response.write("o");
    server.setTimer(100, t -> trickle(response));
  }

  private Future<AsyncKubeApi.LimitedAnswer> get(String path, Duration timeout) {
    return api.getLimited(client.getOrCreateContext(), path, timeout, LIMIT);
  }

  @Test
  void aShortAnswerIsReadWholeWhateverItsStatus() {
    AsyncKubeApi.LimitedAnswer ok = get("/short", Duration.ofSeconds(5)).await();
    assertThat(ok).isEqualTo(new AsyncKubeApi.LimitedAnswer(200, "ok", false));
    AsyncKubeApi.LimitedAnswer denied = get("/denied", Duration.ofSeconds(5)).await();
    assertThat(denied)
        .isEqualTo(new AsyncKubeApi.LimitedAnswer(403, "{\"message\": \"no\"}", false));
    await().atMost(Duration.ofSeconds(5)).until(() -> api.inFlight() == 0);
  }

  @Test
  void anAnswerLongerThanTheLimitIsCutOffThereNotReadToItsEnd() {
    long started = System.nanoTime();
    // The answer never ends: read whole, it would run into the timeout.
    AsyncKubeApi.LimitedAnswer endless = get("/endless", Duration.ofSeconds(20)).await();
    assertThat(endless).isEqualTo(new AsyncKubeApi.LimitedAnswer(200, "", true));
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    // The request was reset: the server stops writing soon after the limit.
    await().atMost(Duration.ofSeconds(5)).until(() -> closed);
    long afterClose = written.get();
    assertThat(afterClose).isLessThan(1 << 20);

    closed = false;
    AsyncKubeApi.LimitedAnswer announced = get("/announced", Duration.ofSeconds(20)).await();
    assertThat(announced).isEqualTo(new AsyncKubeApi.LimitedAnswer(200, "", true));
    await().atMost(Duration.ofSeconds(5)).until(() -> closed);
    await().atMost(Duration.ofSeconds(5)).until(() -> api.inFlight() == 0);
  }

  @Test
  void anAnswerThatTricklesEndsAtTheTimeout() {
    long started = System.nanoTime();
    Future<AsyncKubeApi.LimitedAnswer> trickle = get("/trickle", Duration.ofMillis(800));
    await().atMost(Duration.ofSeconds(5)).until(trickle::isComplete);
    assertThat(trickle.cause()).isInstanceOf(TimeoutException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(5)).until(() -> closed);
    await().atMost(Duration.ofSeconds(5)).until(() -> api.inFlight() == 0);
  }
}
