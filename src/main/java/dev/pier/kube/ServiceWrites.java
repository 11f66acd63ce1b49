package dev.pier.kube;

import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Context;
import io.vertx.core.Future;

/** The Service writes of a reconcile: the cleanup finalizer and the load balancer status. */
public interface ServiceWrites {
  /** Adds the cleanup finalizer, keeping other finalizers. */
  Future<Void> addFinalizer(Context ctx, ServiceKey key);

  /** Removes the cleanup finalizer; a Service that is already gone counts as done. */
  Future<Void> removeFinalizer(Context ctx, ServiceKey key);

  /**
   * Writes {@code status.loadBalancer} and returns the status as the server stored it (older
   * servers drop fields they do not know, such as ipMode).
   */
  Future<LbStatus> patchStatus(Context ctx, ServiceKey key, LbStatus status);

  /** Clears the status; a Service that is already gone counts as done. */
  Future<Void> clearStatus(Context ctx, ServiceKey key);
}
