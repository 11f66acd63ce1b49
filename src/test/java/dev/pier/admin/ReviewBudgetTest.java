package dev.pier.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReviewBudgetTest {
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private ReviewBudget budget() {
    return new ReviewBudget(
        new ReviewBudget.Rate(5, 10), new ReviewBudget.Rate(10, 10), 100, now::get);
  }

  private static int taken(ReviewBudget budget, String source, int tries) {
    int n = 0;
    for (int i = 0; i < tries; i++) {
      if (budget.tryTake(source)) {
        n++;
      }
    }
    return n;
  }

  @Test
  void oneSourceGetsItsBurstThenItsRate() {
    ReviewBudget budget = budget();
    assertThat(taken(budget, "10.0.0.1", 10_000)).isEqualTo(10);
    for (int second = 0; second < 10; second++) {
      now.addAndGet(Duration.ofSeconds(1).toNanos());
      assertThat(taken(budget, "10.0.0.1", 1_000)).as("second %d", second + 1).isEqualTo(5);
    }
  }

  @Test
  void allSourcesTogetherGetTheOverallRate() {
    ReviewBudget budget = budget();
    int first = 0;
    for (int s = 0; s < 1_000; s++) {
      first += taken(budget, "10.0.%d.%d".formatted(s / 250, s % 250), 3);
    }
    assertThat(first).isEqualTo(10);
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    int next = 0;
    for (int s = 0; s < 1_000; s++) {
      next += taken(budget, "10.1.%d.%d".formatted(s / 250, s % 250), 3);
    }
    assertThat(next).isEqualTo(10);
  }

  @Test
  void aSourceRefusedOverallKeepsItsOwnToken() {
    ReviewBudget budget = budget();
    assertThat(taken(budget, "a", 10)).isEqualTo(10);
    // The overall bucket is empty: b is refused, and its own bucket is left as it was.
    assertThat(budget.tryTake("b")).isFalse();
    now.addAndGet(Duration.ofMillis(100).toNanos());
    assertThat(budget.tryTake("b")).isTrue();
  }

  @Test
  void reviewsThatAuthenticatedAreGivenBack() {
    ReviewBudget budget = budget();
    for (int i = 0; i < 1_000; i++) {
      assertThat(budget.tryTake("scraper")).as("review %d", i + 1).isTrue();
      budget.giveBack("scraper");
    }
  }
}
