package dev.pier.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MinIntervalGateTest {
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void aKeyWaitsTheRestOfTheIntervalAfterItPassed() {
    MinIntervalGate<String> gate = new MinIntervalGate<>(Duration.ofSeconds(30), now::get);
    assertThat(gate.waitFor("a")).isZero();
    gate.passed("a");
    advance(Duration.ofSeconds(10));
    assertThat(gate.waitFor("a")).isEqualTo(Duration.ofSeconds(20));
    assertThat(gate.waitFor("b")).as("other keys are not held").isZero();
    advance(Duration.ofSeconds(20));
    assertThat(gate.waitFor("a")).isZero();
    gate.passed("a");
    assertThat(gate.waitFor("a")).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void aZeroIntervalNeverHoldsAndRemembersNothing() {
    MinIntervalGate<String> gate = new MinIntervalGate<>(Duration.ZERO, now::get);
    gate.passed("a");
    assertThat(gate.waitFor("a")).isZero();
    assertThat(gate.size()).isZero();
  }

  @Test
  void keysPastTheirIntervalAreForgottenAsTheMapGrows() {
    MinIntervalGate<Integer> gate = new MinIntervalGate<>(Duration.ofSeconds(1), now::get);
    for (int i = 0; i < 1000; i++) {
      gate.passed(i);
    }
    advance(Duration.ofSeconds(2));
    for (int i = 1000; i < 1100; i++) {
      gate.passed(i);
    }
    assertThat(gate.size()).isLessThanOrEqualTo(100);
    assertThat(gate.waitFor(1099)).isEqualTo(Duration.ofSeconds(1));
  }
}
