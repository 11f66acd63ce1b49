package dev.pier.kube;

import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.Views;
import dev.pier.policy.ServiceFilter;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * {@link ServiceWrites} as PATCH requests to the API server, without blocking. Its patches take any
 * finalizer, so that {@link FederationWriter}'s host writes are the same requests.
 */
public final class ServiceWriter implements ServiceWrites {

  private final AsyncKubeApi api;

  public ServiceWriter(AsyncKubeApi api) {
    this.api = api;
  }

  @Override
  public Future<String> addFinalizer(Context ctx, ServiceKey key, String resourceVersion) {
    return addFinalizer(ctx, key, ServiceFilter.LB_CLEANUP_FINALIZER, resourceVersion);
  }

  @Override
  public Future<String> removeFinalizer(Context ctx, ServiceKey key, String resourceVersion) {
    return removeFinalizer(
        ctx, key, removeFinalizer(ServiceFilter.LB_CLEANUP_FINALIZER), resourceVersion);
  }

  /** Adds {@code finalizer}, keeping other finalizers. */
  Future<String> addFinalizer(
      Context ctx, ServiceKey key, String finalizer, String resourceVersion) {
    return patch(
        ctx,
        key,
        AsyncKubeApi.STRATEGIC_MERGE_PATCH,
        addFinalizerPatch(finalizer),
        resourceVersion);
  }

  /**
   * Writes the metadata part of a strategic merge patch that removes a finalizer ({@link
   * #removeFinalizer(String)}, with whatever else goes with it); a Service that is already gone
   * counts as done.
   */
  Future<String> removeFinalizer(
      Context ctx, ServiceKey key, JsonObject metadata, String resourceVersion) {
    return orWhenGone(
        patch(
            ctx,
            key,
            AsyncKubeApi.STRATEGIC_MERGE_PATCH,
            new JsonObject().put("metadata", metadata),
            resourceVersion),
        null);
  }

  /** Patches the Service at {@code resourceVersion} (null: any) and returns the version it made. */
  Future<String> patch(
      Context ctx, ServiceKey key, String contentType, JsonObject body, String resourceVersion) {
    return api.patch(ctx, path(key), contentType, precondition(body, resourceVersion))
        .map(ServiceWriter::resourceVersion);
  }

  /**
   * Adds {@code metadata.resourceVersion} to a patch: the API server then applies it only to that
   * version of the object and answers 409 Conflict otherwise (merge and strategic merge patches).
   */
  static JsonObject precondition(JsonObject patch, String resourceVersion) {
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
  static String resourceVersion(JsonObject service) {
    JsonObject metadata = service.getJsonObject("metadata");
    return metadata == null ? null : metadata.getString("resourceVersion");
  }

  /** A strategic merge patch that adds {@code finalizer} to an object's finalizers. */
  static JsonObject addFinalizerPatch(String finalizer) {
    return new JsonObject()
        .put("metadata", new JsonObject().put("finalizers", new JsonArray().add(finalizer)));
  }

  /** The metadata part of a strategic merge patch that removes {@code finalizer}. */
  static JsonObject removeFinalizer(String finalizer) {
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
    return orWhenGone(
        patchStatus(ctx, key, LbStatus.EMPTY, resourceVersion).map(StatusWritten::resourceVersion),
        null);
  }

  /** The write's result, or {@code gone} when the object it was for does not exist (404). */
  static <T> Future<T> orWhenGone(Future<T> write, T gone) {
    return write.recover(
        e -> KubeApiException.notFound(e) ? Future.succeededFuture(gone) : Future.failedFuture(e));
  }

  static String path(ServiceKey key) {
    return AsyncKubeApi.corePath(key.namespace(), "services", key.name());
  }
}
