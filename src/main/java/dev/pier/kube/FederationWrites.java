package dev.pier.kube;

import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * The federation's API writes in one cluster. In a member: the copies of host Services and their
 * namespaces. On the host: the federation's finalizer, the ingress annotation and the aggregated
 * status, each based on the resourceVersion the run read or made (a Service that changed since
 * answers 409: run again), each returning the version it made.
 */
public interface FederationWrites {
  /** Creates the namespace, labelled as made by the federation; an existing one is fine. */
  Future<Void> ensureNamespace(Context ctx, String namespace, String federation);

  /**
   * Creates a copy. A create cannot be an apply: an apply would merge into a Service of the same
   * name that someone made since the cache last looked, and Pier changes only what it made. The
   * create's fields are owned by an Update entry of Pier's manager, which its first apply moves.
   *
   * @return the uid the member gave the copy: what makes it Pier's
   */
  Future<String> create(Context ctx, JsonObject config);

  /**
   * Applies the configuration to the copy with this uid, server-side, under Pier's manager and
   * without force: a field another manager owns at another value fails with 409 and names it
   * ({@link KubeApiException#fieldConflicts()}); a copy that is gone, or is another object now, is
   * not touched.
   *
   * @return the copy's resourceVersion after the apply
   */
  Future<String> apply(Context ctx, JsonObject config, String uid);

  /** The copy as the API server has it now, managed fields and all. */
  Future<JsonObject> read(Context ctx, Service copy);

  /**
   * Replaces the copy's managed fields with {@code managedFields} (Pier's earlier Update ownership
   * moved to its apply manager), if the copy is still at the version read: the list was computed
   * from that read, every other manager's entry included.
   */
  Future<Void> migrate(Context ctx, JsonObject copy, JsonArray managedFields);

  /**
   * Replaces a copy (an orphaning: the copy without Pier's marks); the resourceVersion it carries
   * makes a concurrent change fail with 409.
   */
  Future<Void> replace(Context ctx, Service copy);

  /**
   * Deletes the copy, its uid as precondition.
   *
   * @return true, or false when it was gone already (an earlier run deleted it and the cache had
   *     not seen that yet): nothing to report twice
   */
  Future<Boolean> delete(Context ctx, Service copy);

  /**
   * Adds the federation's finalizer to the host Service, keeping other finalizers, and with it the
   * record of its copies ({@code pier.dev/copy-uids}), in one write.
   */
  Future<String> addFinalizer(
      Context ctx, ServiceKey key, String copyRecord, String resourceVersion);

  /**
   * Removes the federation's finalizer, its ingress annotation and the record of its copies in one
   * write; a Service that is already gone counts as done.
   */
  Future<String> release(Context ctx, ServiceKey key, String resourceVersion);

  /**
   * The data of the Secret {@code namespace/name} in this cluster, decoded; empty when there is
   * none. Where the federation keeps the copies a release left behind.
   */
  Future<Map<String, String>> readLeftCopies(Context ctx, String namespace, String name);

  /**
   * Merges {@code changes} into the data of the Secret {@code namespace/name} (a null value removes
   * a key), creating it with {@code labels} when it is missing, and deleting it once it holds
   * nothing.
   */
  Future<Void> writeLeftCopies(
      Context ctx,
      String namespace,
      String name,
      Map<String, String> labels,
      Map<String, String> changes);

  /**
   * Writes the federation's annotations on the host Service in one patch: the ingress annotation
   * ({@code federation.kubernetes.io/service-ingresses}) and the names held since ({@code
   * pier.dev/names-held-since}); a null value removes one.
   */
  Future<String> annotate(
      Context ctx, ServiceKey key, Map<String, String> annotations, String resourceVersion);

  /** Writes {@code status.loadBalancer}, the same write as the load-balancer path's. */
  Future<String> status(Context ctx, ServiceKey key, LbStatus status, String resourceVersion);
}
