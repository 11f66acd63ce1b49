package dev.pier.admin;

import dev.pier.retry.TokenBucket;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How many TokenReviews of tokens not known to be good Pier may send: each takes a token from its
 * source address's bucket and from one bucket for all sources, and gives both back when the API
 * server accepted the token. So tokens the API server refuses (random ones, a flood) cost at most
 * the buckets' rates in reviews, however many arrive, while good tokens are never held back by
 * their own reviews. The per-source buckets are kept for the {@code maxSources} most recent
 * sources. Not thread-safe: used from one Vert.x context.
 *
 * @param perSource the rate and burst of each source's bucket
 * @param overall the rate and burst of the bucket all sources share
 */
final class ReviewBudget {
  /** A bucket's refill rate a second and its burst. */
  record Rate(double perSecond, int burst) {}

  private final Rate perSource;
  private final LongSupplier nanos;
  private final TokenBucket overall;
  private final Map<String, TokenBucket> sources;

  ReviewBudget(Rate perSource, Rate overall, int maxSources, LongSupplier nanos) {
    this.perSource = perSource;
    this.nanos = nanos;
    this.overall = new TokenBucket(overall.perSecond(), overall.burst(), nanos);
    this.sources =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, TokenBucket> eldest) {
            return size() > maxSources;
          }
        };
  }

  /**
   * Takes a review from {@code source}'s budget and the overall one; false when either is spent.
   */
  boolean tryTake(String source) {
    TokenBucket own =
        sources.computeIfAbsent(
            source, s -> new TokenBucket(perSource.perSecond(), perSource.burst(), nanos));
    if (!own.tryTake()) {
      return false;
    }
    if (!overall.tryTake()) {
      own.giveBack();
      return false;
    }
    return true;
  }

  /** Gives back a review taken for {@code source} that authenticated its token. */
  void giveBack(String source) {
    overall.giveBack();
    TokenBucket own = sources.get(source);
    if (own != null) {
      own.giveBack();
    }
  }
}
