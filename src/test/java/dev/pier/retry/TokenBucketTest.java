package dev.pier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void aFullBucketGivesItsBurstAtOnce() {
    TokenBucket bucket = new TokenBucket(10, 3, now::get);
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void reservationsQueueUpOneTokenApart() {
    TokenBucket bucket = new TokenBucket(10, 1, now::get);
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(100));
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(200));
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(300));
    assertThat(bucket.available()).isEqualTo(-3.0);
    advance(Duration.ofMillis(300));
    // The three reservations are served by then; the next one waits for its own token.
    assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void tokensRefillAtTheRateUpToTheBurst() {
    TokenBucket bucket = new TokenBucket(2, 4, now::get);
    for (int i = 0; i < 4; i++) {
      assertThat(bucket.reserve()).isZero();
    }
    advance(Duration.ofSeconds(1));
    assertThat(bucket.available()).isEqualTo(2.0);
    advance(Duration.ofMinutes(10));
    assertThat(bucket.available()).isEqualTo(4.0);
  }

  @Test
  void aRateBelowOneASecondSpacesTokensFurther() {
    TokenBucket bucket = new TokenBucket(0.5, 1, now::get);
    assertThat(bucket.reserve()).isZero();
    assertThat(bucket.reserve()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aSteadyStreamAtTheRateNeverWaits() {
    TokenBucket bucket = new TokenBucket(10, 1, now::get);
    for (int i = 0; i < 50; i++) {
      assertThat(bucket.reserve()).isZero();
      advance(Duration.ofMillis(100));
    }
  }

  @Test
  void tryTakeRefusesWhenEmptyAndNeverReservesAhead() {
    TokenBucket bucket = new TokenBucket(10, 2, now::get);
    assertThat(bucket.tryTake()).isTrue();
    assertThat(bucket.tryTake()).isTrue();
    assertThat(bucket.tryTake()).isFalse();
    assertThat(bucket.tryTake()).isFalse();
    assertThat(bucket.available()).isEqualTo(0.0);
    advance(Duration.ofMillis(100));
    assertThat(bucket.tryTake()).isTrue();
    assertThat(bucket.tryTake()).isFalse();
  }

  @Test
  void aTokenGivenBackCanBeTakenAgainButNeverAboveTheBurst() {
    TokenBucket bucket = new TokenBucket(1, 1, now::get);
    assertThat(bucket.tryTake()).isTrue();
    assertThat(bucket.tryTake()).isFalse();
    bucket.giveBack();
    assertThat(bucket.tryTake()).isTrue();
    bucket.giveBack();
    bucket.giveBack();
    assertThat(bucket.available()).isEqualTo(1.0);
  }

  @Test
  void nonsenseIsRefused() {
    assertThatThrownBy(() -> new TokenBucket(0, 1, now::get))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TokenBucket(1, 0, now::get))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
