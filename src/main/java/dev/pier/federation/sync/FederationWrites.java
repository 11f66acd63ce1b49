package dev.pier.federation.sync;

import dev.pier.federation.CopyApply;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.Cluster;
import dev.pier.kube.KubeApiException;
import dev.pier.kube.ServiceWriter;
import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** The API writes of federation, without blocking: member copies, namespaces, host marks. */
final class FederationWrites {
  private final Context ctx;

  FederationWrites(Context ctx) {
    this.ctx = ctx;
  }

  /**
   * Creates the namespace in a member, labelled as made by the federation; an existing one is fine.
   */
  Future<Void> ensureNamespace(Cluster member, String namespace, String federation) {
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
    return member
        .api()
        .post(ctx, "/api/v1/namespaces", body)
        .<Void>mapEmpty()
        .recover(e -> isConflict(e) ? Future.succeededFuture() : Future.failedFuture(e));
  }

  /**
   * Creates a copy. A create cannot be an apply: an apply would merge into a Service of the same
   * name that someone made since the cache last looked, and Pier changes only what it made. The
   * create's fields are owned by an Update entry of Pier's manager, which its first apply moves.
   */
  Future<Void> create(Cluster member, JsonObject config) {
    return member
        .api()
        .post(ctx, withManager(AsyncKubeApi.corePath(namespace(config), "services", null)), config)
        .mapEmpty();
  }

  /**
   * Applies the configuration to the copy with this uid, server-side, under Pier's manager and
   * without force: a field another manager owns at another value fails with 409 and names it
   * ({@link KubeApiException#fieldConflicts()}); a copy that is gone, or is another object now, is
   * not touched.
   */
  Future<String> apply(Cluster member, JsonObject config, String uid) {
    JsonObject body = config.copy();
    body.getJsonObject("metadata").put("uid", uid);
    return member
        .api()
        .patch(ctx, withManager(copyPath(config)), AsyncKubeApi.APPLY_PATCH, body)
        .map(ServiceWriter::resourceVersion);
  }

  /** The copy as the member's API server has it now, managed fields and all. */
  Future<JsonObject> read(Cluster member, Service copy) {
    return member.api().get(ctx, AsyncKubeApi.corePath(ns(copy), "services", name(copy)));
  }

  /**
   * Replaces the copy's managed fields with {@code managedFields} (Pier's earlier Update ownership
   * moved to its apply manager), if the copy is still at the version read: the list was computed
   * from that read, every other manager's entry included.
   */
  Future<Void> migrate(Cluster member, JsonObject copy, JsonArray managedFields) {
    JsonObject read = copy.getJsonObject("metadata");
    JsonObject metadata =
        new JsonObject()
            .put("resourceVersion", read.getString("resourceVersion"))
            .put("managedFields", managedFields);
    return member
        .api()
        .patch(
            ctx,
            withManager(
                AsyncKubeApi.corePath(
                    read.getString("namespace"), "services", read.getString("name"))),
            AsyncKubeApi.MERGE_PATCH,
            new JsonObject().put("metadata", metadata))
        .mapEmpty();
  }

  /** Replaces a copy; the resourceVersion it carries makes a concurrent change fail with 409. */
  Future<Void> update(Cluster member, Service copy) {
    return member
        .api()
        .put(
            ctx,
            withManager(AsyncKubeApi.corePath(ns(copy), "services", name(copy))),
            json(member, copy))
        .mapEmpty();
  }

  /**
   * Deletes the copy (its uid as precondition).
   *
   * @return true, or false when it was gone already (an earlier run deleted it and the cache had
   *     not seen that yet): nothing to report twice
   */
  Future<Boolean> delete(Cluster member, Service copy) {
    JsonObject options =
        new JsonObject()
            .put("apiVersion", "v1")
            .put("kind", "DeleteOptions")
            .put("preconditions", new JsonObject().put("uid", copy.getMetadata().getUid()));
    return member
        .api()
        .delete(ctx, AsyncKubeApi.corePath(ns(copy), "services", name(copy)), options)
        .map(true)
        .recover(e -> isNotFound(e) ? Future.succeededFuture(false) : Future.failedFuture(e));
  }

  /**
   * Host writes are based on the version the run read, or on the run's previous write: each returns
   * the version it made, and a Service that changed meanwhile answers 409 (run again).
   */
  Future<String> addFinalizer(Cluster host, String namespace, String name, String version) {
    return host.api()
        .patch(
            ctx,
            servicePath(namespace, name),
            AsyncKubeApi.STRATEGIC_MERGE_PATCH,
            ServiceWriter.precondition(
                ServiceWriter.addFinalizerPatch(FederationKeys.FINALIZER), version))
        .map(ServiceWriter::resourceVersion);
  }

  /** Removes the federation's finalizer and its ingress annotation in one write. */
  Future<Void> release(Cluster host, String namespace, String name, String version) {
    JsonObject metadata =
        ServiceWriter.removeFinalizer(FederationKeys.FINALIZER)
            .put("annotations", new JsonObject().putNull(FederationKeys.INGRESSES_ANNOTATION));
    return host.api()
        .patch(
            ctx,
            servicePath(namespace, name),
            AsyncKubeApi.STRATEGIC_MERGE_PATCH,
            ServiceWriter.precondition(new JsonObject().put("metadata", metadata), version))
        .<Void>mapEmpty()
        .recover(e -> isNotFound(e) ? Future.succeededFuture() : Future.failedFuture(e));
  }

  Future<String> annotate(
      Cluster host, String namespace, String name, String ingresses, String version) {
    JsonObject body =
        new JsonObject()
            .put(
                "metadata",
                new JsonObject()
                    .put(
                        "annotations",
                        new JsonObject().put(FederationKeys.INGRESSES_ANNOTATION, ingresses)));
    return host.api()
        .patch(
            ctx,
            servicePath(namespace, name),
            AsyncKubeApi.MERGE_PATCH,
            ServiceWriter.precondition(body, version))
        .map(ServiceWriter::resourceVersion);
  }

  Future<String> status(
      Cluster host,
      String namespace,
      String name,
      List<LoadBalancerIngress> ingress,
      String version) {
    JsonArray items = new JsonArray();
    for (LoadBalancerIngress i : ingress) {
      JsonObject item = new JsonObject();
      if (i.getIp() != null) {
        item.put("ip", i.getIp());
      }
      if (i.getHostname() != null) {
        item.put("hostname", i.getHostname());
      }
      items.add(item);
    }
    JsonObject loadBalancer =
        items.isEmpty()
            ? new JsonObject().putNull("ingress")
            : new JsonObject().put("ingress", items);
    JsonObject body =
        new JsonObject().put("status", new JsonObject().put("loadBalancer", loadBalancer));
    return host.api()
        .patch(
            ctx,
            servicePath(namespace, name) + "/status",
            AsyncKubeApi.MERGE_PATCH,
            ServiceWriter.precondition(body, version))
        .map(ServiceWriter::resourceVersion);
  }

  private static JsonObject json(Cluster cluster, Service svc) {
    return new JsonObject(cluster.client().getKubernetesSerialization().asJson(svc));
  }

  private static String withManager(String path) {
    return path + "?fieldManager=" + CopyApply.MANAGER;
  }

  private static String copyPath(JsonObject config) {
    return AsyncKubeApi.corePath(
        namespace(config), "services", config.getJsonObject("metadata").getString("name"));
  }

  private static String namespace(JsonObject config) {
    return config.getJsonObject("metadata").getString("namespace");
  }

  private static String servicePath(String namespace, String name) {
    return AsyncKubeApi.corePath(namespace, "services", name);
  }

  private static String ns(Service s) {
    return s.getMetadata().getNamespace();
  }

  private static String name(Service s) {
    return s.getMetadata().getName();
  }

  static boolean isNotFound(Throwable e) {
    return e instanceof KubeApiException k && k.isNotFound();
  }

  static boolean isConflict(Throwable e) {
    return e instanceof KubeApiException k && k.isConflict();
  }
}
