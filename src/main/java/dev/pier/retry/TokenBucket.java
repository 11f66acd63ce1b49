package dev.pier.retry;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A token bucket that hands out reservations: {@code burst} tokens at most, refilled at {@code
 * ratePerSecond}. A reservation always succeeds and says how long its holder must wait; the tokens
 * may go negative, so that callers queue up for the next tokens in turn instead of all waking at
 * once (client-go's BucketRateLimiter does the same through {@code rate.Limiter.Reserve}). Not
 * thread-safe: used from one Vert.x context.
 */
public final class TokenBucket {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final double nanosPerToken;
  private final double burst;
  private final LongSupplier nanoClock;
  private double tokens;
  private long updatedAt;

  /**
   * @param ratePerSecond tokens added a second, above zero
   * @param burst most tokens held, at least 1; the bucket starts full
   * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
   */
  public TokenBucket(double ratePerSecond, int burst, LongSupplier nanoClock) {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond) || burst < 1) {
      throw new IllegalArgumentException(
          "a token bucket needs rate > 0 and burst >= 1, got " + ratePerSecond + ", " + burst);
    }
    this.nanosPerToken = NANOS_PER_SECOND / ratePerSecond;
    this.burst = burst;
    this.nanoClock = nanoClock;
    this.tokens = burst;
    this.updatedAt = nanoClock.getAsLong();
  }

  /** Takes a token now, or reserves the next free one: how long to wait for it (zero: none). */
  public Duration reserve() {
    refill();
    tokens -= 1;
    if (tokens >= 0) {
      return Duration.ZERO;
    }
    return Duration.ofNanos((long) Math.ceil(-tokens * nanosPerToken));
  }

  /**
   * Takes a token if one is there now, without reserving a later one: false when the bucket is
   * empty (a caller that refuses instead of waiting).
   */
  public boolean tryTake() {
    refill();
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }

  /** Returns a token taken for work that turned out not to count, up to the burst. */
  public void giveBack() {
    refill();
    tokens = Math.min(burst, tokens + 1);
  }

  /** Tokens available now; negative when reservations wait for tokens still to come. */
  public double available() {
    refill();
    return tokens;
  }

  private void refill() {
    long now = nanoClock.getAsLong();
    long elapsed = now - updatedAt;
    if (elapsed > 0) {
      tokens = Math.min(burst, tokens + elapsed / nanosPerToken);
      updatedAt = now;
    }
  }
}
