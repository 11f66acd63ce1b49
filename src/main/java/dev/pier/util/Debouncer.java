package dev.pier.util;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Coalesces signals per key: the first signal of a key opens a window, the signals within it join
 * it, and the action runs once for the key when the window ends. A key that keeps signalling gets
 * one action per window, never none (unlike a debounce that restarts its timer on every signal). A
 * zero window runs the action at every signal. Not thread-safe: used from one Vert.x context.
 */
public final class Debouncer<K> {
  /** Runs a task after a delay: a Vert.x timer outside tests. */
  public interface Scheduler {
    void schedule(Duration delay, Runnable task);
  }

  private final Duration window;
  private final Scheduler scheduler;
  private final Consumer<K> action;
  private final Set<K> open = new HashSet<>();

  public Debouncer(Duration window, Scheduler scheduler, Consumer<K> action) {
    if (window.isNegative()) {
      throw new IllegalArgumentException("window must not be negative, got " + window);
    }
    this.window = window;
    this.scheduler = scheduler;
    this.action = action;
  }

  /** A change of {@code key}: its action runs at the end of its open window, or of a new one. */
  public void signal(K key) {
    if (window.isZero()) {
      action.accept(key);
      return;
    }
    if (open.add(key)) {
      scheduler.schedule(
          window,
          () -> {
            open.remove(key);
            action.accept(key);
          });
    }
  }

  /** Whether a window of {@code key} is open: its action is still to run. */
  public boolean pending(K key) {
    return open.contains(key);
  }
}
