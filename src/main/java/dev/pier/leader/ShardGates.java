package dev.pier.leader;

import dev.pier.model.ServiceKey;
import dev.pier.shards.ShardMap;
import dev.pier.util.RequestFence;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The leadership gate of a replica that shares the work with others (scale-out): one gate per
 * shard, open while this replica holds the shard's Lease and its last renewal is younger than the
 * renew deadline. Shard {@link ShardMap#CLUSTER_WIDE} also opens the cluster-wide jobs.
 *
 * <p>Terms. A call {@link #guard guarded} for a key belongs to the term of the key's shard: each of
 * its requests that asks the fence while the call starts (a provider call's first request, an API
 * write) or that captured {@link #term()} then (the webhook and Hetzner clients do) goes only while
 * that shard's term is current and open. A request that asks later, outside any guarded start,
 * belongs to the replica's term: it goes only while no shard was lost since it asked for the term
 * and the replica holds some shard with a fresh renewal. docs/scale-out.md says what that leaves.
 */
public final class ShardGates implements WorkGate {
  private static final int SHARD_BITS = 16;
  private static final long VALUE_MASK = (1L << (64 - SHARD_BITS)) - 1;

  private final ShardMap shards;
  private final long validForNanos;
  private final LongSupplier clock;
  private final boolean[] held;
  private final long[] renewedAt;
  private final long[] terms;
  // Counts shards lost: a term taken outside a guarded start is refused after any loss.
  private long losses;
  // The shard whose guarded call is starting on this thread, or -1.
  private final ThreadLocal<int[]> starting = ThreadLocal.withInitial(() -> new int[] {-1});

  public ShardGates(ShardMap shards, Duration validFor) {
    this(shards, validFor, System::nanoTime);
  }

  ShardGates(ShardMap shards, Duration validFor, LongSupplier clock) {
    if (shards.count() >= (1 << SHARD_BITS) - 1) {
      throw new IllegalArgumentException("too many shards: " + shards.count());
    }
    this.shards = shards;
    this.validForNanos = validFor.toNanos();
    this.clock = clock;
    this.held = new boolean[shards.count()];
    this.renewedAt = new long[shards.count()];
    this.terms = new long[shards.count()];
  }

  public ShardMap shards() {
    return shards;
  }

  /** This replica took the shard's Lease: a new term of the shard begins, renewed as of now. */
  public synchronized void took(int shard, long startNanos) {
    terms[shard]++;
    held[shard] = true;
    renewedAt[shard] = startNanos;
  }

  /** The shard's Lease was written with this replica as holder at {@code startNanos} or later. */
  public synchronized void renewed(int shard, long startNanos) {
    if (held[shard]) {
      renewedAt[shard] = startNanos;
    }
  }

  /** This replica lost, released or gave up the shard. */
  public synchronized void lost(int shard) {
    if (held[shard]) {
      held[shard] = false;
      losses++;
    }
  }

  /** Whether this replica holds the shard (its renewal may have gone stale). */
  public synchronized boolean holds(int shard) {
    return held[shard];
  }

  public synchronized boolean isOpen(int shard) {
    return held[shard] && clock.getAsLong() - renewedAt[shard] < validForNanos;
  }

  @Override
  public boolean inShard(ServiceKey key, int shard) {
    return shards.of(key) == shard;
  }

  @Override
  public boolean owns(ServiceKey key) {
    return holds(shards.of(key));
  }

  @Override
  public boolean isOpen(ServiceKey key) {
    return isOpen(shards.of(key));
  }

  @Override
  public boolean isOpen() {
    return isOpen(ShardMap.CLUSTER_WIDE);
  }

  @Override
  public synchronized long term() {
    int shard = starting.get()[0];
    return shard < 0 ? encode(-1, losses) : encode(shard, terms[shard]);
  }

  @Override
  public synchronized RuntimeException refusal(long term, String what) {
    int shard = (int) (term >>> (64 - SHARD_BITS)) - 1;
    long value = term & VALUE_MASK;
    boolean open =
        shard < 0
            ? value == (losses & VALUE_MASK) && anyOpen()
            : value == (terms[shard] & VALUE_MASK) && isOpen(shard);
    return open ? null : new NotLeadingException(what);
  }

  /**
   * The fence of the cluster-wide jobs' requests (the host side of the federation): each goes only
   * while shard {@link ShardMap#CLUSTER_WIDE} is held with a fresh renewal, in the term it asked
   * in.
   */
  public RequestFence clusterWide() {
    return fence(ShardMap.CLUSTER_WIDE);
  }

  /**
   * The fence of one shard's requests that are sent outside a guarded call (a federation member's
   * writes, fenced by its member shard): each goes only while the shard is held with a fresh
   * renewal, in the term it asked in.
   */
  public RequestFence fence(int shard) {
    return new RequestFence() {
      @Override
      public long term() {
        synchronized (ShardGates.this) {
          return encode(shard, terms[shard]);
        }
      }

      @Override
      public RuntimeException refusal(long term, String what) {
        return ShardGates.this.refusal(term, what);
      }
    };
  }

  @Override
  public <T> Future<T> guard(ServiceKey key, String what, Supplier<Future<T>> call) {
    return guard(shards.of(key), what, call);
  }

  @Override
  public <T> Future<T> guard(String what, Supplier<Future<T>> call) {
    return guard(ShardMap.CLUSTER_WIDE, what, call);
  }

  private <T> Future<T> guard(int shard, String what, Supplier<Future<T>> call) {
    if (!isOpen(shard)) {
      return Future.failedFuture(new NotLeadingException(what));
    }
    int[] slot = starting.get();
    int outer = slot[0];
    slot[0] = shard;
    try {
      return call.get();
    } finally {
      slot[0] = outer;
    }
  }

  private boolean anyOpen() {
    long now = clock.getAsLong();
    for (int s = 0; s < held.length; s++) {
      if (held[s] && now - renewedAt[s] < validForNanos) {
        return true;
      }
    }
    return false;
  }

  private static long encode(int shard, long value) {
    return ((long) (shard + 1) << (64 - SHARD_BITS)) | (value & VALUE_MASK);
  }
}
