package dev.pier.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.client.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClientPoolsTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** A redirect never carries the API token to the host it names. */
  @Test
  void aRedirectIsNotFollowed() throws Exception {
    AtomicInteger reached = new AtomicInteger();
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
                req ->
                    req.response()
                        .setStatusCode(302)
                        .putHeader(
                            "Location", "http://127.0.0.1:" + elsewhere.actualPort() + "/steal")
                        .end())
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);

    HttpResponse<?> answer =
        ClientPools.webClient(vertx, Duration.ofSeconds(5), 0)
            .getAbs("http://127.0.0.1:" + api.actualPort() + "/v1/zones")
            .putHeader("Authorization", "Bearer secret-token")
            .send()
            .await(10, TimeUnit.SECONDS);

    assertThat(answer.statusCode()).isEqualTo(302);
    assertThat(reached).hasValue(0);
  }
}
