package dev.pier.kube;

import dev.pier.model.FederationKeys;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link FederationWrites} as requests to the API server, without blocking. Member writes go under
 * Pier's field manager; host writes are {@link ServiceWriter}'s patches with the federation's
 * finalizer and annotation.
 */
public final class FederationWriter implements FederationWrites {
  private final AsyncKubeApi api;
  private final KubernetesSerialization serialization;
  private final ServiceWriter services;

  /**
   * @param serialization how a copy becomes the body of a replace (the cluster client's)
   */
  public FederationWriter(AsyncKubeApi api, KubernetesSerialization serialization) {
    this.api = api;
    this.serialization = serialization;
    this.services = new ServiceWriter(api);
  }

  @Override
  public Future<Void> ensureNamespace(Context ctx, String namespace, String federation) {
    JsonObject body =
        new JsonObject()
            .put("apiVersion", "v1")
            .put("kind", "Namespace")
            .put(
                "metadata",
                new JsonObject()
                    .put("name", namespace)
                    .put(
                        "labels",
                        new JsonObject().put(FederationKeys.FEDERATION_LABEL, federation)));
    return api.post(ctx, "/api/v1/namespaces", body)
        .<Void>mapEmpty()
        .recover(
            e -> KubeApiException.conflict(e) ? Future.succeededFuture() : Future.failedFuture(e));
  }

  @Override
  public Future<String> create(Context ctx, JsonObject config) {
    return api.post(
            ctx, withManager(AsyncKubeApi.corePath(namespace(config), "services", null)), config)
        .map(created -> created.getJsonObject("metadata").getString("uid"));
  }

  @Override
  public Future<String> apply(Context ctx, JsonObject config, String uid) {
    JsonObject body = config.copy();
    body.getJsonObject("metadata").put("uid", uid);
    String name = config.getJsonObject("metadata").getString("name");
    return api.patch(
            ctx,
            withManager(AsyncKubeApi.corePath(namespace(config), "services", name)),
            AsyncKubeApi.APPLY_PATCH,
            body)
        .map(ServiceWriter::resourceVersion);
  }

  @Override
  public Future<JsonObject> read(Context ctx, Service copy) {
    return api.get(ctx, path(copy));
  }

  @Override
  public Future<Void> migrate(Context ctx, JsonObject copy, JsonArray managedFields) {
    JsonObject read = copy.getJsonObject("metadata");
    JsonObject metadata =
        new JsonObject()
            .put("resourceVersion", read.getString("resourceVersion"))
            .put("managedFields", managedFields);
    return api.patch(
            ctx,
            withManager(
                AsyncKubeApi.corePath(
                    read.getString("namespace"), "services", read.getString("name"))),
            AsyncKubeApi.MERGE_PATCH,
            new JsonObject().put("metadata", metadata))
        .mapEmpty();
  }

  @Override
  public Future<Void> replace(Context ctx, Service copy) {
    return api.put(ctx, withManager(path(copy)), new JsonObject(serialization.asJson(copy)))
        .mapEmpty();
  }

  @Override
  public Future<Boolean> delete(Context ctx, Service copy) {
    JsonObject options =
        new JsonObject()
            .put("apiVersion", "v1")
            .put("kind", "DeleteOptions")
            .put("preconditions", new JsonObject().put("uid", copy.getMetadata().getUid()));
    return ServiceWriter.orWhenGone(api.delete(ctx, path(copy), options).map(true), false);
  }

  @Override
  public Future<String> addFinalizer(
      Context ctx, ServiceKey key, String copyRecord, String resourceVersion) {
    JsonObject body = ServiceWriter.addFinalizerPatch(FederationKeys.FINALIZER);
    body.getJsonObject("metadata")
        .put("annotations", new JsonObject().put(FederationKeys.COPY_UIDS_ANNOTATION, copyRecord));
    return services.patch(ctx, key, AsyncKubeApi.STRATEGIC_MERGE_PATCH, body, resourceVersion);
  }

  @Override
  public Future<String> release(Context ctx, ServiceKey key, String resourceVersion) {
    JsonObject metadata =
        ServiceWriter.removeFinalizer(FederationKeys.FINALIZER)
            .put(
                "annotations",
                new JsonObject()
                    .putNull(FederationKeys.INGRESSES_ANNOTATION)
                    .putNull(FederationKeys.NAMES_HELD_ANNOTATION)
                    .putNull(FederationKeys.COPY_UIDS_ANNOTATION));
    return services.removeFinalizer(ctx, key, metadata, resourceVersion);
  }

  @Override
  public Future<String> annotate(
      Context ctx, ServiceKey key, Map<String, String> changes, String resourceVersion) {
    JsonObject annotations = new JsonObject();
    // A JSON null removes the annotation in a merge patch.
    changes.forEach(annotations::put);
    JsonObject body = JsonObject.of("metadata", JsonObject.of("annotations", annotations));
    return services.patch(ctx, key, AsyncKubeApi.MERGE_PATCH, body, resourceVersion);
  }

  @Override
  public Future<String> status(
      Context ctx, ServiceKey key, LbStatus status, String resourceVersion) {
    return services
        .patchStatus(ctx, key, status, resourceVersion)
        .map(ServiceWrites.StatusWritten::resourceVersion);
  }

  @Override
  public Future<Map<String, String>> readLeftCopies(Context ctx, String namespace, String name) {
    return ServiceWriter.orWhenGone(
        api.get(ctx, AsyncKubeApi.corePath(namespace, "secrets", name))
            .map(FederationWriter::decoded),
        Map.of());
  }

  @Override
  public Future<Void> writeLeftCopies(
      Context ctx,
      String namespace,
      String name,
      Map<String, String> labels,
      Map<String, String> changes) {
    JsonObject data = new JsonObject();
    changes.forEach(
        (k, v) ->
            data.put(
                k,
                v == null
                    ? null
                    : Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    String path = AsyncKubeApi.corePath(namespace, "secrets", name);
    return api.patch(ctx, path, AsyncKubeApi.MERGE_PATCH, new JsonObject().put("data", data.copy()))
        .compose(secret -> deleteIfEmpty(ctx, path, secret))
        .recover(
            e -> {
              if (!KubeApiException.notFound(e)) {
                return Future.failedFuture(e);
              }
              if (!data.stream().anyMatch(en -> en.getValue() != null)) {
                return Future.succeededFuture();
              }
              JsonObject secret =
                  new JsonObject()
                      .put("apiVersion", "v1")
                      .put("kind", "Secret")
                      .put(
                          "metadata",
                          new JsonObject()
                              .put("name", name)
                              .put("namespace", namespace)
                              .put("labels", new JsonObject(new HashMap<>(labels))))
                      .put("type", "Opaque")
                      .put("data", withoutRemovals(data));
              return api.post(ctx, AsyncKubeApi.corePath(namespace, "secrets", null), secret)
                  .mapEmpty();
            });
  }

  /** A Secret left with no data goes, unless it changed since (its version as a precondition). */
  private Future<Void> deleteIfEmpty(Context ctx, String path, JsonObject secret) {
    JsonObject data = secret.getJsonObject("data");
    if (data != null && !data.isEmpty()) {
      return Future.succeededFuture();
    }
    JsonObject options =
        new JsonObject()
            .put("apiVersion", "v1")
            .put("kind", "DeleteOptions")
            .put(
                "preconditions",
                new JsonObject().put("resourceVersion", ServiceWriter.resourceVersion(secret)));
    return api.delete(ctx, path, options)
        .<Void>mapEmpty()
        .recover(
            e ->
                KubeApiException.conflict(e) || KubeApiException.notFound(e)
                    ? Future.succeededFuture()
                    : Future.failedFuture(e));
  }

  private static JsonObject withoutRemovals(JsonObject data) {
    JsonObject kept = new JsonObject();
    data.forEach(
        e -> {
          if (e.getValue() != null) {
            kept.put(e.getKey(), e.getValue());
          }
        });
    return kept;
  }

  private static Map<String, String> decoded(JsonObject secret) {
    JsonObject data = secret.getJsonObject("data");
    Map<String, String> out = new HashMap<>();
    if (data != null) {
      data.forEach(
          e ->
              out.put(
                  e.getKey(),
                  new String(
                      Base64.getDecoder().decode(String.valueOf(e.getValue())),
                      StandardCharsets.UTF_8)));
    }
    return out;
  }

  private static String withManager(String path) {
    return path + "?fieldManager=" + FederationKeys.COPY_FIELD_MANAGER;
  }

  private static String path(Service s) {
    return AsyncKubeApi.corePath(
        s.getMetadata().getNamespace(), "services", s.getMetadata().getName());
  }

  private static String namespace(JsonObject config) {
    return config.getJsonObject("metadata").getString("namespace");
  }
}
