package dev.pier.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FuturesTest {
  private Vertx vertx;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() {
    vertx.close().await();
  }

  @Test
  void aCallThatNeverEndsFailsAtItsDeadlineNamingTheCallAndTheDeadline() throws Exception {
    long start = System.nanoTime();
    Future<String> f =
        Futures.withDeadline(
            vertx, Promise.<String>promise().future(), Duration.ofMillis(200), "provider call x");
    Throwable e =
        f.toCompletionStage().toCompletableFuture().handle((v, t) -> t).get(5, TimeUnit.SECONDS);
    assertThat(e)
        .isInstanceOf(Futures.DeadlineExceeded.class)
        .hasMessage("provider call x did not finish within its deadline of 200ms");
    assertThat(((Futures.DeadlineExceeded) e).deadline()).isEqualTo(Duration.ofMillis(200));
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(200);
  }

  @Test
  void aCallThatEndsInTimeKeepsItsResultOrFailure() throws Exception {
    Promise<String> p = Promise.promise();
    Future<String> f = Futures.withDeadline(vertx, p.future(), Duration.ofMillis(300), "x");
    p.complete("done");
    assertThat(f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS))
        .isEqualTo("done");
    Thread.sleep(500);
    assertThat(f.result()).isEqualTo("done");

    IllegalStateException boom = new IllegalStateException("boom");
    Future<String> failed =
        Futures.withDeadline(vertx, Future.failedFuture(boom), Duration.ofMillis(300), "x");
    assertThat(failed.cause()).isSameAs(boom);
  }
}
