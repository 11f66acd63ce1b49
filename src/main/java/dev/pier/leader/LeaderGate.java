package dev.pier.leader;

import dev.pier.model.ServiceKey;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Whether this process may change anything now: open while it holds the Lease and its last renewal
 * is younger than the renew deadline (a standby may take the Lease only after the longer lease
 * duration), always open without leader election. A run checks it before each Kubernetes write and
 * each provider call, so that a leader that lost the Lease, or cannot tell whether it still holds
 * it, stops writing before another process may start.
 */
public final class LeaderGate implements WorkGate {
  private final boolean alwaysOpen;
  private final long validForNanos;
  private final LongSupplier clock;
  private volatile boolean leading;
  private volatile long renewedAt;
  // Counts the times this process became the leader: a call belongs to the term it started in.
  private volatile long term;

  private LeaderGate(boolean alwaysOpen, Duration validFor, LongSupplier clock) {
    this.alwaysOpen = alwaysOpen;
    this.validForNanos = validFor.toNanos();
    this.clock = clock;
    // Expired until the first renewal.
    this.renewedAt = clock.getAsLong() - validForNanos;
  }

  /** The gate of a process without leader election: always open. */
  public static LeaderGate alwaysOpen() {
    return new LeaderGate(true, Duration.ZERO, System::nanoTime);
  }

  /** A closed gate that each renewal keeps open for {@code validFor} (the renew deadline). */
  public static LeaderGate forLease(Duration validFor) {
    return forLease(validFor, System::nanoTime);
  }

  static LeaderGate forLease(Duration validFor, LongSupplier clock) {
    return new LeaderGate(false, validFor, clock);
  }

  /** The Lease was written with this process as holder, at {@code startNanos} or later. */
  public void renewed(long startNanos) {
    renewedAt = startNanos;
  }

  /** This process became the leader: a new term begins. */
  public void lead() {
    term++;
    leading = true;
  }

  /** This process lost, released or gave up the Lease. */
  public void close() {
    leading = false;
  }

  @Override
  public boolean isOpen(ServiceKey key) {
    return isOpen();
  }

  @Override
  public boolean isOpen() {
    return alwaysOpen || (leading && clock.getAsLong() - renewedAt < validForNanos);
  }

  @Override
  public long term() {
    return term;
  }

  /** Refused once the gate closed, or once a later term began, whatever this term's gate says. */
  @Override
  public RuntimeException refusal(long callTerm, String what) {
    if (alwaysOpen || (callTerm == term && isOpen())) {
      return null;
    }
    return new NotLeadingException(what);
  }

  @Override
  public <T> Future<T> guard(ServiceKey key, String what, Supplier<Future<T>> call) {
    return guard(what, call);
  }

  /** Fails with {@link NotLeadingException} when closed; else makes the call. */
  @Override
  public <T> Future<T> guard(String what, Supplier<Future<T>> call) {
    if (!isOpen()) {
      return Future.failedFuture(new NotLeadingException(what));
    }
    return call.get();
  }
}
