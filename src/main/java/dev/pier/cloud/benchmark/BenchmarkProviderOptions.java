package dev.pier.cloud.benchmark;

import java.time.Duration;

/** Options of the {@code benchmark} provider, with defaults as constants. */
public final class BenchmarkProviderOptions {

  public static final Duration DEFAULT_DELAY = Duration.ofMillis(100);

  private Duration delay = DEFAULT_DELAY;

  /** How long every provider call takes (0: completes at once). */
  public Duration getDelay() {
    return delay;
  }

  public BenchmarkProviderOptions setDelay(Duration delay) {
    if (delay == null || delay.isNegative()) {
      throw new IllegalArgumentException("benchmark.delay must be >= 0, got " + delay);
    }
    this.delay = delay;
    return this;
  }
}
