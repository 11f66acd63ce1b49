package dev.pier.policy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Holds back mass deletions that Pier starts on its own (orphan sweeps; never a deletion a user
 * asked for by deleting a Service or changing its type): within a sliding window, at most
 * max(minimum, percent of the load balancers known when the window started) go through; the rest
 * are held and reported until the operator confirms with {@code deletionGuard.confirm}. A wrong
 * class list, a wrong cluster identity or an empty cache then costs a few load balancers, not all.
 * Thread-safe.
 */
public final class DeletionGuard {
  public static final int DEFAULT_MIN_DELETIONS = 10;
  public static final int DEFAULT_MAX_PERCENT = 50;
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(10);

  private final int minDeletions;
  private final int maxPercent;
  private final long windowMillis;
  private final boolean confirmed;
  private final LongSupplier clock;
  private final ArrayDeque<Long> recent = new ArrayDeque<>();
  private final Set<String> held = new LinkedHashSet<>();
  private int knownAtWindowStart;
  private long heldSince;

  /**
   * @param confirmed the operator confirmed: nothing is held
   * @param clock milliseconds
   */
  public DeletionGuard(
      int minDeletions, int maxPercent, Duration window, boolean confirmed, LongSupplier clock) {
    this.minDeletions = minDeletions;
    this.maxPercent = maxPercent;
    this.windowMillis = window.toMillis();
    this.confirmed = confirmed;
    this.clock = clock;
  }

  /**
   * Asks to delete one load balancer.
   *
   * @param what names the load balancer, for the report of held deletions
   * @param known how many load balancers Pier knows of now (counted when a window starts)
   * @return true when the deletion may go ahead (and is counted); false when it is held
   */
  public synchronized boolean allow(String what, int known) {
    long now = clock.getAsLong();
    while (!recent.isEmpty() && now - recent.peekFirst() > windowMillis) {
      recent.pollFirst();
    }
    if (!held.isEmpty() && now - heldSince > windowMillis) {
      held.clear();
    }
    if (recent.isEmpty()) {
      knownAtWindowStart = known;
    }
    if (!confirmed && recent.size() >= limit()) {
      if (held.isEmpty()) {
        heldSince = now;
      }
      held.add(what);
      return false;
    }
    held.remove(what);
    recent.addLast(now);
    return true;
  }

  private int limit() {
    return Math.max(minDeletions, (int) ((long) knownAtWindowStart * maxPercent / 100));
  }

  /** Deletions held now (each load balancer once). */
  public synchronized int held() {
    return held.size();
  }

  /** What /readyz reports while deletions are held, else null. */
  public synchronized String detail() {
    if (held.isEmpty()) {
      return null;
    }
    return held.size()
        + " deletion(s) held by the deletion guard (more than "
        + limit()
        + " within "
        + windowMillis / 1000
        + " s), e.g. "
        + held.iterator().next()
        + "; check them, then set deletionGuard.confirm=true to let them go";
  }
}
