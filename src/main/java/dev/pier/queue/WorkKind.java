package dev.pier.queue;

/**
 * The kinds of work the queue runs for a key. All kinds of one key run serialized: the queue is the
 * only place where work on a key happens.
 */
public enum WorkKind {
  /** The full reconcile: ensure or delete the load balancer, status, finalizer. */
  RECONCILE,
  /** Node sync: point the existing load balancer at a changed node set. */
  UPDATE_HOSTS,
  /** Publish the Service's DNS names. */
  DNS,
  /** The periodic check that the load balancer is still as it should be, repairing drift. */
  VERIFY
}
