package dev.pier.reconcile;

import dev.pier.cloud.ProviderException;
import dev.pier.kube.KubeApiException;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import java.util.Set;

/** Maps a failed reconcile step onto what the queue does next with the key. */
public final class Outcomes {
  private Outcomes() {}

  public static WorkResult forFailure(Throwable error, Set<WorkKind> kinds) {
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
