package dev.pier.federation;

/**
 * A member's readiness with KubeFed's thresholds: it turns ready after {@code successThreshold}
 * probes in a row succeed and unready after {@code failureThreshold} in a row fail; in between it
 * keeps what it was. It starts unready. Not thread-safe.
 */
public final class ClusterHealthState {
  private final int successThreshold;
  private final int failureThreshold;
  private boolean ready;
  private int successes;
  private int failures;

  /**
   * @throws IllegalArgumentException when a threshold is below 1
   */
  public ClusterHealthState(int successThreshold, int failureThreshold) {
    if (successThreshold < 1 || failureThreshold < 1) {
      throw new IllegalArgumentException(
          "health thresholds must be at least 1, got success "
              + successThreshold
              + " and failure "
              + failureThreshold);
    }
    this.successThreshold = successThreshold;
    this.failureThreshold = failureThreshold;
  }

  /** Records one probe; true when {@link #ready()} changed because of it. */
  public boolean record(boolean ok) {
    if (ok) {
      failures = 0;
      successes = Math.min(successes + 1, successThreshold);
      if (!ready && successes >= successThreshold) {
        ready = true;
        return true;
      }
    } else {
      successes = 0;
      failures = Math.min(failures + 1, failureThreshold);
      if (ready && failures >= failureThreshold) {
        ready = false;
        return true;
      }
    }
    return false;
  }

  public boolean ready() {
    return ready;
  }
}
