package dev.pier.kube;

import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.Views;
import dev.pier.policy.ServiceFilter;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** {@link ServiceWrites} as PATCH requests to the API server, without blocking. */
public final class ServiceWriter implements ServiceWrites {

  private final AsyncKubeApi api;

  public ServiceWriter(AsyncKubeApi api) {
    this.api = api;
  }

  @Override
  public Future<Void> addFinalizer(Context ctx, ServiceKey key) {
    return api.patch(
            ctx,
            path(key),
            AsyncKubeApi.STRATEGIC_MERGE_PATCH,
            addFinalizerPatch(ServiceFilter.LB_CLEANUP_FINALIZER))
        .mapEmpty();
  }

  @Override
  public Future<Void> removeFinalizer(Context ctx, ServiceKey key) {
    JsonObject body =
        new JsonObject().put("metadata", removeFinalizer(ServiceFilter.LB_CLEANUP_FINALIZER));
    return ignoreNotFound(api.patch(ctx, path(key), AsyncKubeApi.STRATEGIC_MERGE_PATCH, body))
        .mapEmpty();
  }

  /** A strategic merge patch that adds {@code finalizer} to an object's finalizers. */
  public static JsonObject addFinalizerPatch(String finalizer) {
    return new JsonObject()
        .put("metadata", new JsonObject().put("finalizers", new JsonArray().add(finalizer)));
  }

  /** The metadata part of a strategic merge patch that removes {@code finalizer}. */
  public static JsonObject removeFinalizer(String finalizer) {
    return new JsonObject()
        .put("$deleteFromPrimitiveList/finalizers", new JsonArray().add(finalizer));
  }

  @Override
  public Future<LbStatus> patchStatus(Context ctx, ServiceKey key, LbStatus status) {
    JsonObject body =
        new JsonObject()
            .put("status", new JsonObject().put("loadBalancer", Views.statusJson(status)));
    return api.patch(ctx, path(key) + "/status", AsyncKubeApi.MERGE_PATCH, body)
        .map(Views::statusFromServiceJson);
  }

  @Override
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
