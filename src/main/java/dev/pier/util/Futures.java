package dev.pier.util;

import dev.pier.config.Durations;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.function.Supplier;

/** Small helpers for code that returns futures. */
public final class Futures {
  private Futures() {}

  /**
   * Calls {@code call} and returns its future; a call that throws instead of returning a failed
   * future gives a failed future, so that callers handle both the same way.
   */
  public static <T> Future<T> call(Supplier<Future<T>> call) {
    try {
      Future<T> f = call.get();
      return f == null ? Future.failedFuture(new NullPointerException("no future returned")) : f;
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * {@code future}, or a failure with {@link DeadlineExceeded} naming {@code what} and the deadline
   * when it has not completed within {@code deadline}. Never blocks: a Vert.x timer fails the
   * returned future; the call itself goes on, and its late result is dropped.
   */
  public static <T> Future<T> withDeadline(
      Vertx vertx, Future<T> future, Duration deadline, String what) {
    if (future.isComplete()) {
      return future;
    }
    Promise<T> bounded = Promise.promise();
    long timer =
        vertx.setTimer(
            Math.max(1, deadline.toMillis()),
            id -> bounded.tryFail(new DeadlineExceeded(what, deadline)));
    future.onComplete(
        ar -> {
          vertx.cancelTimer(timer);
          if (ar.succeeded()) {
            bounded.tryComplete(ar.result());
          } else {
            bounded.tryFail(ar.cause());
          }
        });
    return bounded.future();
  }

  /** A call did not finish within its deadline; retryable, as a timeout is. */
  public static final class DeadlineExceeded extends RuntimeException {
    private final Duration deadline;

    public DeadlineExceeded(String what, Duration deadline) {
      super(what + " did not finish within its deadline of " + Durations.format(deadline));
      this.deadline = deadline;
    }

    public Duration deadline() {
      return deadline;
    }
  }
}
