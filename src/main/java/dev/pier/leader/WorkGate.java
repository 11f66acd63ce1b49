package dev.pier.leader;

import dev.pier.model.ServiceKey;
import dev.pier.util.RequestFence;
import io.vertx.core.Future;
import java.util.function.Supplier;

/**
 * Whether this process may change anything now, for one Service or for the cluster-wide jobs (the
 * orphan sweep, the federation). With one Lease ({@link LeaderGate}) the answer is the same for
 * every key; with scale-out ({@link ShardGates}) it is the answer of the key's shard. It is also
 * the {@link RequestFence} every request that leaves the process asks right before it goes.
 */
public interface WorkGate extends RequestFence {
  /** Whether a run for {@code key} may write or call out now. */
  boolean isOpen(ServiceKey key);

  /**
   * Whether work on {@code key} is this process's to queue (its shard is held, its renewal fresh or
   * not); always with one Lease, where a standby's queue is paused instead.
   */
  default boolean owns(ServiceKey key) {
    return true;
  }

  /** Whether {@code key} belongs to {@code shard}; with one Lease every key belongs to every. */
  default boolean inShard(ServiceKey key, int shard) {
    return true;
  }

  /** Whether the cluster-wide jobs may write or call out now. */
  boolean isOpen();

  /**
   * Fails with {@link NotLeadingException} when closed for {@code key}; else makes the call, whose
   * requests belong to the term of the key's gate as the call starts.
   */
  <T> Future<T> guard(ServiceKey key, String what, Supplier<Future<T>> call);

  /** {@link #guard(ServiceKey, String, Supplier)} for a cluster-wide job. */
  <T> Future<T> guard(String what, Supplier<Future<T>> call);
}
