package dev.pier.kube;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The writes on Secrets of one namespace, without blocking: a Secret of Pier's own written whole,
 * deleted, and a finalizer put on or taken off another's Secret, based on the version read so that
 * nobody else's finalizers are lost.
 */
public final class SecretWriter {
  private static final int RELEASE_ATTEMPTS = 3;

  private final AsyncKubeApi api;
  private final String namespace;

  public SecretWriter(AsyncKubeApi api, String namespace) {
    this.api = api;
    this.namespace = namespace;
  }

  /** Creates the Secret; one that exists already is given this content. */
  public Future<Void> write(Context ctx, Secret secret) {
    JsonObject body = new JsonObject(Serialization.asJson(secret));
    return api.post(ctx, path(null), body)
        .recover(
            e ->
                e instanceof KubeApiException k && k.isConflict()
                    ? api.patch(
                        ctx, path(secret.getMetadata().getName()), AsyncKubeApi.MERGE_PATCH, body)
                    : Future.failedFuture(e))
        .mapEmpty();
  }

  /** Deletes the Secret; one that is gone already is fine. */
  public Future<Void> delete(Context ctx, String name) {
    return api.delete(ctx, path(name), null)
        .<Void>mapEmpty()
        .recover(
            e ->
                e instanceof KubeApiException k && k.isNotFound()
                    ? Future.succeededFuture()
                    : Future.failedFuture(e));
  }

  /**
   * Adds {@code finalizer} to the Secret as read; a conflict (a newer version, whose event follows)
   * or a Secret gone fails the future.
   */
  public Future<Void> addFinalizer(Context ctx, Secret secret, String finalizer) {
    List<String> finalizers = finalizers(secret);
    if (finalizers.contains(finalizer)) {
      return Future.succeededFuture();
    }
    List<String> next = new ArrayList<>(finalizers);
    next.add(finalizer);
    return patchFinalizers(ctx, secret, next);
  }

  /** Removes {@code finalizer} from the Secret, read fresh; a Secret gone is fine. */
  public Future<Void> removeFinalizer(Context ctx, String name, String finalizer) {
    return removeFinalizer(ctx, name, finalizer, RELEASE_ATTEMPTS);
  }

  private Future<Void> removeFinalizer(Context ctx, String name, String finalizer, int attempts) {
    return api.get(ctx, path(name))
        .map(json -> Serialization.unmarshal(json.encode(), Secret.class))
        .compose(
            secret -> {
              List<String> finalizers = new ArrayList<>(finalizers(secret));
              return finalizers.remove(finalizer)
                  ? patchFinalizers(ctx, secret, finalizers)
                  : Future.<Void>succeededFuture();
            })
        .recover(
            e -> {
              if (e instanceof KubeApiException k && k.isNotFound()) {
                return Future.succeededFuture();
              }
              if (e instanceof KubeApiException k && k.isConflict() && attempts > 1) {
                return removeFinalizer(ctx, name, finalizer, attempts - 1);
              }
              return Future.failedFuture(e);
            });
  }

  private Future<Void> patchFinalizers(Context ctx, Secret secret, List<String> finalizers) {
    JsonObject body =
        new JsonObject()
            .put(
                "metadata",
                new JsonObject()
                    .put("resourceVersion", secret.getMetadata().getResourceVersion())
                    .put("finalizers", new JsonArray(finalizers)));
    return api.patch(ctx, path(secret.getMetadata().getName()), AsyncKubeApi.MERGE_PATCH, body)
        .mapEmpty();
  }

  private String path(String name) {
    return AsyncKubeApi.corePath(namespace, "secrets", name);
  }

  private static List<String> finalizers(Secret s) {
    return s.getMetadata().getFinalizers() == null ? List.of() : s.getMetadata().getFinalizers();
  }
}
