package dev.pier.kube;

import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Context;
import io.vertx.core.Future;

/**
 * The Service writes of a reconcile: the cleanup finalizer and the load balancer status. Each takes
 * the resourceVersion of the Service it was decided on (null: none) as a precondition: the API
 * server answers 409 when the Service changed since, so that a writer with a stale view (a leader
 * that lost its Lease, a run that raced a user's edit) never overwrites a newer state. Each returns
 * the Service's resourceVersion after the write, the precondition of the run's next write (null
 * when the Service is already gone).
 */
public interface ServiceWrites {
  /** Adds the cleanup finalizer, keeping other finalizers. */
  Future<String> addFinalizer(Context ctx, ServiceKey key, String resourceVersion);

  /** Removes the cleanup finalizer; a Service that is already gone counts as done. */
  Future<String> removeFinalizer(Context ctx, ServiceKey key, String resourceVersion);

  /**
   * Writes {@code status.loadBalancer} and returns the status as the server stored it (older
   * servers drop fields they do not know, such as ipMode).
   */
  Future<StatusWritten> patchStatus(
      Context ctx, ServiceKey key, LbStatus status, String resourceVersion);

  /** Clears the status; a Service that is already gone counts as done. */
  Future<String> clearStatus(Context ctx, ServiceKey key, String resourceVersion);

  /** A status as the server stored it, and the Service's resourceVersion after the write. */
  record StatusWritten(LbStatus status, String resourceVersion) {}
}
