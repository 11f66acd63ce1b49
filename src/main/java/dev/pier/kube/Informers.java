package dev.pier.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starting informers the one way Pier does: errors are logged and retried, except a 403 before the
 * first list, which fails the start naming the missing permission (RBAC does not fix itself), and
 * no watch lives longer than {@link WatchLifetime} allows, so no cache stays stale for a minute.
 */
public final class Informers {
  private static final Logger log = LoggerFactory.getLogger(Informers.class);

  private Informers() {}

  /**
   * Starts {@code informer}; completes on {@code context} once its first list arrived.
   *
   * @param what names the informer in log lines, e.g. "Services"
   * @param rbac the shipped manifest that grants the informer's list and watch ({@link RbacFiles})
   */
  public static Future<Void> start(
      SharedIndexInformer<?> informer, String cluster, String what, String rbac, Context context) {
    return Future.fromCompletionStage(start(informer, cluster, what, rbac, true), context);
  }

  /**
   * Starts {@code informer}; with {@code forbiddenIsFatal} false a 403 is logged and retried like
   * any other error (a federation member, whose RBAC may be fixed while Pier runs: one member never
   * stops Pier).
   */
  public static CompletionStage<Void> start(
      SharedIndexInformer<?> informer,
      String cluster,
      String what,
      String rbac,
      boolean forbiddenIsFatal) {
    return start(informer, cluster, what, rbac, forbiddenIsFatal, t -> {});
  }

  /**
   * As {@link #start(SharedIndexInformer, String, String, String, boolean)}; {@code failed} is told
   * each error the informer retries after.
   */
  public static CompletionStage<Void> start(
      SharedIndexInformer<?> informer,
      String cluster,
      String what,
      String rbac,
      boolean forbiddenIsFatal,
      Consumer<Throwable> failed) {
    WatchLifetime.bound(informer);
    informer.exceptionHandler(
        (isStarted, t) -> {
          if (forbiddenIsFatal && !isStarted && forbidden(t)) {
            return false;
          }
          failed.accept(t);
          log.warn("Cluster {}: {} informer error, retrying: {}", cluster, what, t.toString());
          return true;
        });
    return informer
        .start()
        .exceptionallyCompose(
            t ->
                CompletableFuture.failedStage(
                    forbidden(t)
                        ? new IllegalStateException(
                            forbiddenMessage(informer, cluster, what, rbac), t)
                        : t));
  }

  private static boolean forbidden(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof KubernetesClientException k && k.getCode() == 403) {
        return true;
      }
    }
    return false;
  }

  private static String forbiddenMessage(
      SharedIndexInformer<?> informer, String cluster, String what, String rbac) {
    Class<?> raw = informer.getApiTypeClass();
    Class<? extends HasMetadata> type =
        raw != null
                && HasMetadata.class.isAssignableFrom(raw)
                && !GenericKubernetesResource.class.isAssignableFrom(raw)
            ? raw.asSubclass(HasMetadata.class)
            : null;
    String resource = type == null ? what : HasMetadata.getPlural(type);
    String group = type == null ? "" : HasMetadata.getGroup(type);
    return "cluster "
        + cluster
        + ": cannot list/watch "
        + resource
        + ": forbidden; Pier's RBAC must allow list and watch on "
        + resource
        + (group == null || group.isEmpty() ? "" : " in API group " + group)
        + " (see "
        + rbac
        + ")";
  }
}
