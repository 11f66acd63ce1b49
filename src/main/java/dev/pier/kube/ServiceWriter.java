package dev.pier.kube;

import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.Views;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** The Service writes of a reconcile: the cleanup finalizer and the load balancer status. */
public final class ServiceWriter {
  public static final String LB_CLEANUP_FINALIZER = "service.kubernetes.io/load-balancer-cleanup";

  private final AsyncKubeApi api;

  public ServiceWriter(AsyncKubeApi api) {
    this.api = api;
  }

  /** Adds the cleanup finalizer (a strategic merge keeps other finalizers). */
  public Future<Void> addFinalizer(Context ctx, ServiceKey key) {
    JsonObject body =
        new JsonObject()
            .put(
                "metadata",
                new JsonObject().put("finalizers", new JsonArray().add(LB_CLEANUP_FINALIZER)));
    return api.patch(ctx, path(key), AsyncKubeApi.STRATEGIC_MERGE_PATCH, body).mapEmpty();
  }

  /** Removes the cleanup finalizer; a Service that is already gone counts as done. */
  public Future<Void> removeFinalizer(Context ctx, ServiceKey key) {
    JsonObject body =
        new JsonObject()
            .put(
                "metadata",
                new JsonObject()
                    .put(
                        "$deleteFromPrimitiveList/finalizers",
                        new JsonArray().add(LB_CLEANUP_FINALIZER)));
    return ignoreNotFound(api.patch(ctx, path(key), AsyncKubeApi.STRATEGIC_MERGE_PATCH, body))
        .mapEmpty();
  }

  /**
   * Writes {@code status.loadBalancer} through the status subresource and returns the status as the
   * server stored it (older servers drop fields they do not know, such as ipMode).
   */
  public Future<LbStatus> patchStatus(Context ctx, ServiceKey key, LbStatus status) {
    JsonObject body =
        new JsonObject()
            .put("status", new JsonObject().put("loadBalancer", Views.statusJson(status)));
    return api.patch(ctx, path(key) + "/status", AsyncKubeApi.MERGE_PATCH, body)
        .map(Views::statusFromServiceJson);
  }

  /** Clears the status; a Service that is already gone counts as done. */
  public Future<Void> clearStatus(Context ctx, ServiceKey key) {
    return ignoreNotFound(patchStatus(ctx, key, LbStatus.EMPTY).mapEmpty()).mapEmpty();
  }

  private static <T> Future<T> ignoreNotFound(Future<T> f) {
    return f.recover(
        e ->
            e instanceof KubeApiException k && k.isNotFound()
                ? Future.succeededFuture()
                : Future.failedFuture(e));
  }

  private static String path(ServiceKey key) {
    return AsyncKubeApi.corePath(key.namespace(), "services", key.name());
  }
}
