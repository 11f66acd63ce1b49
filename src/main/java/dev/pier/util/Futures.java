package dev.pier.util;

import io.vertx.core.Future;
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
}
