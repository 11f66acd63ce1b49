package dev.pier.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Node sync's coalescing: one action per key per window, driven by a hand-cranked scheduler. */
class DebouncerTest {
  private final List<Runnable> timers = new ArrayList<>();
  private final List<Duration> delays = new ArrayList<>();
  private final List<String> fired = new ArrayList<>();

  private void fireTimers() {
    List<Runnable> due = new ArrayList<>(timers);
    timers.clear();
    due.forEach(Runnable::run);
  }

  private Debouncer<String> debouncer(Duration window) {
    return new Debouncer<>(
        window,
        (delay, task) -> {
          delays.add(delay);
          timers.add(task);
        },
        fired::add);
  }

  @Test
  void aBurstWithinTheWindowYieldsOneAction() {
    Debouncer<String> d = debouncer(Duration.ofSeconds(1));
    for (int i = 0; i < 20; i++) {
      d.signal("east");
    }
    assertThat(fired).isEmpty();
    assertThat(d.pending("east")).isTrue();
    assertThat(timers).hasSize(1);
    assertThat(delays).containsExactly(Duration.ofSeconds(1));
    fireTimers();
    assertThat(fired).containsExactly("east");
    assertThat(d.pending("east")).isFalse();
  }

  @Test
  void aSignalAfterTheWindowOpensANewOne() {
    Debouncer<String> d = debouncer(Duration.ofSeconds(1));
    d.signal("east");
    fireTimers();
    d.signal("east");
    d.signal("east");
    fireTimers();
    assertThat(fired).containsExactly("east", "east");
  }

  @Test
  void aSteadyFlapGetsOneActionPerWindowAndIsNeverStarved() {
    Debouncer<String> d = debouncer(Duration.ofSeconds(1));
    for (int window = 0; window < 5; window++) {
      for (int i = 0; i < 10; i++) {
        d.signal("east");
      }
      fireTimers();
    }
    assertThat(fired).hasSize(5);
  }

  @Test
  void keysHaveTheirOwnWindows() {
    Debouncer<String> d = debouncer(Duration.ofSeconds(1));
    d.signal("east");
    d.signal("west");
    d.signal("east");
    fireTimers();
    assertThat(fired).containsExactlyInAnyOrder("east", "west");
  }

  @Test
  void aZeroWindowActsOnEverySignal() {
    Debouncer<String> d = debouncer(Duration.ZERO);
    d.signal("east");
    d.signal("east");
    assertThat(fired).containsExactly("east", "east");
    assertThat(timers).isEmpty();
  }
}
