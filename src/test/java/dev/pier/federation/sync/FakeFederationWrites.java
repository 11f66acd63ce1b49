package dev.pier.federation.sync;

import dev.pier.kube.FederationWrites;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The federation's writes in one cluster, recorded as "op ns/name" with the version each was based
 * on ("op -" for none); every write that makes a version answers the next one. A failure can be set
 * per operation, and is answered once.
 */
final class FakeFederationWrites implements FederationWrites {
  final List<String> calls = new ArrayList<>();
  final List<String> preconditions = new ArrayList<>();
  final Map<String, Throwable> failOnce = new HashMap<>();

  /** Operations answered only when the test completes the promise (one call each). */
  final Map<String, io.vertx.core.Promise<Void>> holdOnce = new HashMap<>();

  LbStatus lastStatus;
  Map<String, String> lastAnnotations;

  /** The record of copies the finalizer was last written with. */
  String lastCopyRecord;

  /** The configuration the last create sent. */
  JsonObject lastCreated;

  /** The uid a create answers with. */
  String createdUid = "created-uid";

  int leftCopiesReads;

  /** The Secrets of copies left behind, by name: their data. */
  final Map<String, Map<String, String>> leftCopies = new HashMap<>();

  private int version = 2000;

  private <T> Future<T> record(String op, String namespace, String name, String based, T answer) {
    calls.add(op + " " + namespace + "/" + name);
    preconditions.add(op + " " + (based == null ? "-" : based));
    Throwable failure = failOnce.remove(op);
    io.vertx.core.Promise<Void> held = holdOnce.remove(op);
    if (held != null) {
      return held.future().map(answer);
    }
    return failure == null ? Future.succeededFuture(answer) : Future.failedFuture(failure);
  }

  private <T> Future<T> record(String op, Service copy, String based, T answer) {
    return record(
        op, copy.getMetadata().getNamespace(), copy.getMetadata().getName(), based, answer);
  }

  private String nextVersion() {
    return Integer.toString(++version);
  }

  private static String ns(JsonObject config) {
    return config.getJsonObject("metadata").getString("namespace");
  }

  private static String name(JsonObject config) {
    return config.getJsonObject("metadata").getString("name");
  }

  @Override
  public Future<Void> ensureNamespace(Context ctx, String namespace, String federation) {
    return record("ensureNamespace", namespace, namespace, null, null);
  }

  @Override
  public Future<String> create(Context ctx, JsonObject config) {
    lastCreated = config;
    return record("create", ns(config), name(config), null, createdUid);
  }

  @Override
  public Future<String> apply(Context ctx, JsonObject config, String uid) {
    return record("apply", ns(config), name(config), uid, nextVersion());
  }

  @Override
  public Future<JsonObject> read(Context ctx, Service copy) {
    throw new UnsupportedOperationException("no copy here has Update ownership to move");
  }

  @Override
  public Future<Void> migrate(Context ctx, JsonObject copy, JsonArray managedFields) {
    throw new UnsupportedOperationException("no copy here has Update ownership to move");
  }

  @Override
  public Future<Void> replace(Context ctx, Service copy) {
    return record("replace", copy, copy.getMetadata().getResourceVersion(), null);
  }

  @Override
  public Future<Boolean> delete(Context ctx, Service copy) {
    return record("delete", copy, copy.getMetadata().getUid(), true);
  }

  @Override
  public Future<String> addFinalizer(
      Context ctx, ServiceKey key, String copyRecord, String resourceVersion) {
    lastCopyRecord = copyRecord;
    return record("addFinalizer", key.namespace(), key.name(), resourceVersion, nextVersion());
  }

  @Override
  public Future<String> release(Context ctx, ServiceKey key, String resourceVersion) {
    return record("release", key.namespace(), key.name(), resourceVersion, nextVersion());
  }

  @Override
  public Future<Map<String, String>> readLeftCopies(Context ctx, String namespace, String name) {
    // A read, not a write: not among the calls.
    leftCopiesReads++;
    return Future.succeededFuture(Map.copyOf(leftCopies.getOrDefault(name, Map.of())));
  }

  @Override
  public Future<Void> writeLeftCopies(
      Context ctx,
      String namespace,
      String name,
      Map<String, String> labels,
      Map<String, String> changes) {
    Future<Void> written = record("writeLeftCopies", namespace, name, null, null);
    if (written.succeeded()) {
      Map<String, String> data = leftCopies.computeIfAbsent(name, k -> new HashMap<>());
      changes.forEach(
          (k, v) -> {
            if (v == null) {
              data.remove(k);
            } else {
              data.put(k, v);
            }
          });
      if (data.isEmpty()) {
        leftCopies.remove(name);
      }
    }
    return written;
  }

  @Override
  public Future<String> annotate(
      Context ctx, ServiceKey key, Map<String, String> annotations, String resourceVersion) {
    lastAnnotations = new java.util.HashMap<>(annotations);
    return record("annotate", key.namespace(), key.name(), resourceVersion, nextVersion());
  }

  @Override
  public Future<String> status(
      Context ctx, ServiceKey key, LbStatus status, String resourceVersion) {
    lastStatus = status;
    return record("status", key.namespace(), key.name(), resourceVersion, nextVersion());
  }
}
