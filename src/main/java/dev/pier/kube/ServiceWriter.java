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
  public Future<String> addFinalizer(Context ctx, ServiceKey key, String resourceVersion) {
    return api.patch(
            ctx,
            path(key),
            AsyncKubeApi.STRATEGIC_MERGE_PATCH,
            precondition(addFinalizerPatch(ServiceFilter.LB_CLEANUP_FINALIZER), resourceVersion))
        .map(ServiceWriter::resourceVersion);
  }

  @Override
  public Future<String> removeFinalizer(Context ctx, ServiceKey key, String resourceVersion) {
    JsonObject body =
        new JsonObject().put("metadata", removeFinalizer(ServiceFilter.LB_CLEANUP_FINALIZER));
    return ignoreNotFound(
        api.patch(
                ctx,
                path(key),
                AsyncKubeApi.STRATEGIC_MERGE_PATCH,
                precondition(body, resourceVersion))
            .map(ServiceWriter::resourceVersion));
  }

  /**
   * Adds {@code metadata.resourceVersion} to a patch: the API server then applies it only to that
   * version of the object and answers 409 Conflict otherwise (merge and strategic merge patches).
   */
  public static JsonObject precondition(JsonObject patch, String resourceVersion) {
    if (resourceVersion == null || resourceVersion.isEmpty()) {
      return patch;
    }
    JsonObject metadata = patch.getJsonObject("metadata");
    if (metadata == null) {
      metadata = new JsonObject();
      patch.put("metadata", metadata);
    }
    metadata.put("resourceVersion", resourceVersion);
    return patch;
  }

  /** The {@code metadata.resourceVersion} of a Service as the API server answered a write. */
  public static String resourceVersion(JsonObject service) {
    JsonObject metadata = service.getJsonObject("metadata");
    return metadata == null ? null : metadata.getString("resourceVersion");
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
  public Future<StatusWritten> patchStatus(
      Context ctx, ServiceKey key, LbStatus status, String resourceVersion) {
    JsonObject body =
        new JsonObject()
            .put("status", new JsonObject().put("loadBalancer", Views.statusJson(status)));
    return api.patch(
            ctx,
            path(key) + "/status",
            AsyncKubeApi.MERGE_PATCH,
            precondition(body, resourceVersion))
        .map(json -> new StatusWritten(Views.statusFromServiceJson(json), resourceVersion(json)));
  }

  @Override
  public Future<String> clearStatus(Context ctx, ServiceKey key, String resourceVersion) {
    return ignoreNotFound(
        patchStatus(ctx, key, LbStatus.EMPTY, resourceVersion).map(StatusWritten::resourceVersion));
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
