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
    PERMANENT,
    /**
     * Not done: this process stopped leading during the run. Not a failure: the backoff is
     * unchanged and the key runs again after the given delay (once the queue runs again).
     */
    FENCED
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

  /** The run stopped because this process no longer leads; the key is looked at again later. */
  public static WorkResult fenced(Duration recheck, Set<WorkKind> kinds) {
    return new WorkResult(Outcome.FENCED, recheck, kinds);
  }

  public static WorkResult retryAfter(Duration delay, Set<WorkKind> kinds) {
    return new WorkResult(Outcome.RETRY_AFTER, delay, kinds);
  }
}
