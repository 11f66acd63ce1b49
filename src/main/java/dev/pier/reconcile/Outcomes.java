package dev.pier.reconcile;

import dev.pier.cloud.ProviderException;
import dev.pier.kube.KubeApiException;
import dev.pier.leader.NotLeadingException;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import java.time.Duration;
import java.util.Set;

/** Maps a failed reconcile step onto what the queue does next with the key. */
public final class Outcomes {
  /**
   * How long a key whose run was fenced waits before it is looked at again: the queue stops once
   * the loss of the Lease is handled, and the key then waits for this process to lead again.
   */
  public static final Duration FENCED_RECHECK = Duration.ofSeconds(1);

  private Outcomes() {}

  /** The result of a run that stopped because this process no longer leads. */
  public static WorkResult fenced(Set<WorkKind> kinds) {
    return WorkResult.fenced(FENCED_RECHECK, kinds);
  }

  /**
   * A failure that is no error to report with an Event: this process no longer leads, or the
   * Service changed since the run read it (409 on a write's resourceVersion precondition).
   */
  public static boolean quiet(Throwable error) {
    return error instanceof NotLeadingException
        || (error instanceof KubeApiException k && k.isConflict());
  }

  public static WorkResult forFailure(Throwable error, Set<WorkKind> kinds) {
    if (error instanceof NotLeadingException) {
      return fenced(kinds);
    }
    if (error instanceof ProviderException.InvalidInput) {
      return WorkResult.permanent();
    }
    if (error instanceof ProviderException.RetryAfter r) {
      return WorkResult.retryAfter(r.delay(), kinds);
    }
    if (error instanceof KubeApiException k && k.code() >= 400 && k.code() < 500) {
      // 404: the object is gone, its deletion brings a new event. 409/422/429 are transient or
      // answered by the next change; all but 404 go through backoff.
      return k.isNotFound() ? WorkResult.success() : WorkResult.retry(kinds);
    }
    return WorkResult.retry(kinds);
  }

  /** A one-line description of a failure for events and logs. */
  public static String describe(Throwable error) {
    String m = error.getMessage();
    return m == null || m.isEmpty() ? error.getClass().getSimpleName() : m;
  }
}
