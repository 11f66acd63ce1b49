package dev.pier.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReviewCacheTest {
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  @Test
  void anAnswerHoldsForItsTtlOnly() {
    ReviewCache cache = new ReviewCache(4, Duration.ofSeconds(10), now::get);
    cache.put("a", 200);
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertThat(cache.get("a")).isEqualTo(200);
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(cache.get("a")).isNull();
    assertThat(cache.size()).isZero();
  }

  @Test
  void aFullCacheDropsOnlyTheLeastRecentlyUsedEntry() {
    ReviewCache cache = new ReviewCache(3, Duration.ofMinutes(1), now::get);
    cache.put("good", 200);
    cache.put("b", 401);
    cache.put("c", 401);
    // Reading "good" makes it the most recently used.
    assertThat(cache.get("good")).isEqualTo(200);
    for (int i = 0; i < 100; i++) {
      cache.put("random-" + i, 401);
      assertThat(cache.size()).isLessThanOrEqualTo(3);
    }
    assertThat(cache.get("random-99")).isEqualTo(401);
    cache.remove("random-99");
    assertThat(cache.get("random-99")).isNull();
    assertThat(cache.get("random-98")).isEqualTo(401);
    assertThat(cache.get("b")).isNull();
  }

  @Test
  void aFloodOfNewKeysKeepsTheEntriesInUse() {
    ReviewCache cache = new ReviewCache(3, Duration.ofMinutes(1), now::get);
    cache.put("good", 200);
    for (int i = 0; i < 100; i++) {
      cache.put("random-" + i, 401);
      assertThat(cache.get("good")).as("after %d new keys", i + 1).isEqualTo(200);
    }
  }
}
