package dev.pier.kube;

import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starting informers the one way Pier does: errors are logged and retried, never fatal. */
public final class Informers {
  private static final Logger log = LoggerFactory.getLogger(Informers.class);

  private Informers() {}

  /**
   * Starts {@code informer}; completes on {@code context} once its first list arrived.
   *
   * @param what names the informer in log lines, e.g. "Services"
   */
  public static Future<Void> start(
      SharedIndexInformer<?> informer, String cluster, String what, Context context) {
    return Future.fromCompletionStage(start(informer, cluster, what), context);
  }

  /** Starts {@code informer}; the stage completes once its first list arrived. */
  public static java.util.concurrent.CompletionStage<Void> start(
      SharedIndexInformer<?> informer, String cluster, String what) {
    informer.exceptionHandler(
        (isStarted, t) -> {
          log.warn("Cluster {}: {} informer error, retrying: {}", cluster, what, t.toString());
          return true;
        });
    return informer.start();
  }
}
