package dev.pier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExponentialBackoffTest {

  @Test
  void doublesFromFiveSecondsToFiveMinutesPerKey() {
    ExponentialBackoff<String> b =
        new ExponentialBackoff<>(Duration.ofSeconds(5), Duration.ofSeconds(300));
    long[] expected = {5, 10, 20, 40, 80, 160, 300, 300};
    for (long seconds : expected) {
      assertThat(b.next("a")).isEqualTo(Duration.ofSeconds(seconds));
    }
    assertThat(b.next("b")).isEqualTo(Duration.ofSeconds(5));
    assertThat(b.failures("a")).isEqualTo(8);
  }

  @Test
  void forgetResetsTheKey() {
    ExponentialBackoff<String> b =
        new ExponentialBackoff<>(Duration.ofMillis(100), Duration.ofSeconds(1));
    b.next("a");
    b.next("a");
    b.forget("a");
    assertThat(b.failures("a")).isZero();
    assertThat(b.next("a")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void manyFailuresNeverOverflowPastTheCap() {
    ExponentialBackoff<String> b =
        new ExponentialBackoff<>(Duration.ofSeconds(5), Duration.ofSeconds(300));
    for (int i = 0; i < 200; i++) {
      assertThat(b.next("a")).isLessThanOrEqualTo(Duration.ofSeconds(300)).isPositive();
    }
  }

  @Test
  void rejectsBoundsInTheWrongOrder() {
    assertThatThrownBy(
            () -> new ExponentialBackoff<>(Duration.ofSeconds(10), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theFormulaAloneMatchesThePerKeyDelays() {
    Duration min = Duration.ofMillis(500);
    Duration max = Duration.ofSeconds(3);
    assertThat(ExponentialBackoff.delay(min, max, 1)).isEqualTo(Duration.ofMillis(500));
    assertThat(ExponentialBackoff.delay(min, max, 3)).isEqualTo(Duration.ofSeconds(2));
    assertThat(ExponentialBackoff.delay(min, max, 4)).isEqualTo(max);
    assertThat(ExponentialBackoff.delay(min, max, 100)).isEqualTo(max);
  }
}
