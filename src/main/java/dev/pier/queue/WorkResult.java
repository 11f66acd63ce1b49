package dev.pier.queue;

import java.time.Duration;
import java.util.Set;

/** How a run of a key ended, and so what the queue does next with the key. */
public record WorkResult(Outcome outcome, Duration delay, Set<WorkKind> retryKinds) {

  public enum Outcome {
    /** Done; the key's backoff is reset. */
    SUCCESS,
    /** Failed; retried after the key's next exponential backoff delay. */
    RETRY,
    /** Failed; retried after the given delay, backoff unchanged. */
    RETRY_AFTER,
    /** Failed for good (bad input); not retried until the key is added again. */
    PERMANENT
  }

  private static final WorkResult SUCCESS =
      new WorkResult(Outcome.SUCCESS, Duration.ZERO, Set.of());
  private static final WorkResult PERMANENT =
      new WorkResult(Outcome.PERMANENT, Duration.ZERO, Set.of());

  public static WorkResult success() {
    return SUCCESS;
  }

  public static WorkResult permanent() {
    return PERMANENT;
  }

  public static WorkResult retry(Set<WorkKind> kinds) {
    return new WorkResult(Outcome.RETRY, Duration.ZERO, kinds);
  }

  public static WorkResult retryAfter(Duration delay, Set<WorkKind> kinds) {
    return new WorkResult(Outcome.RETRY_AFTER, delay, kinds);
  }
}
