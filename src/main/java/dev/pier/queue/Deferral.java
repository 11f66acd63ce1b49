package dev.pier.queue;

import java.time.Duration;

/**
 * A gate's answer for work about to run: run now ({@link #NONE}), or wait {@code delay} for {@code
 * reason} (a metric label).
 */
public record Deferral(Duration delay, String reason) {
  public static final Deferral NONE = new Deferral(Duration.ZERO, "");

  public Deferral {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative, got " + delay);
    }
  }

  public static Deferral of(Duration delay, String reason) {
    return delay.isZero() ? NONE : new Deferral(delay, reason);
  }

  public boolean defers() {
    return !delay.isZero();
  }
}
