package dev.pier.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeletionGuardTest {
  private final AtomicLong now = new AtomicLong(1_000_000);

  private DeletionGuard guard(boolean confirmed) {
    return new DeletionGuard(10, 50, Duration.ofMinutes(10), confirmed, now::get);
  }

  @Test
  void holdsDeletionsBeyondTenOrHalfOfWhatWasKnownWithinTheWindow() {
    DeletionGuard g = guard(false);
    for (int i = 0; i < 10; i++) {
      assertThat(g.allow("lb-" + i, 12)).as("deletion %d of 12 known", i).isTrue();
    }
    assertThat(g.allow("lb-10", 2)).isFalse();
    assertThat(g.allow("lb-11", 1)).isFalse();
    assertThat(g.allow("lb-11", 1)).as("asked again").isFalse();
    assertThat(g.held()).isEqualTo(2);
    assertThat(g.detail()).contains("2 deletion(s)").contains("deletionGuard.confirm");
  }

  @Test
  void halfOfAManyKnownAtTheWindowsStartIsTheLimit() {
    DeletionGuard g = guard(false);
    int allowed = 0;
    for (int i = 0; i < 100; i++) {
      if (g.allow("lb-" + i, 100 - allowed)) {
        allowed++;
      }
    }
    assertThat(allowed).isEqualTo(50);
  }

  @Test
  void theWindowSlides() {
    DeletionGuard g = guard(false);
    for (int i = 0; i < 10; i++) {
      g.allow("lb-" + i, 0);
    }
    assertThat(g.allow("late", 0)).isFalse();
    now.addAndGet(Duration.ofMinutes(10).toMillis() + 1);
    assertThat(g.allow("late", 0)).isTrue();
    assertThat(g.held()).isZero();
    assertThat(g.detail()).isNull();
  }

  @Test
  void theOperatorsConfirmationLetsThemGo() {
    DeletionGuard g = guard(true);
    for (int i = 0; i < 100; i++) {
      assertThat(g.allow("lb-" + i, 0)).isTrue();
    }
  }
}
