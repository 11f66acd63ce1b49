package dev.pier.model;

/** Event-bus addresses. Messages carry keys and small records, never whole API objects. */
public final class Addresses {
  /** Body: a {@link ServiceKey} string; header {@link #KIND}: a work kind (default RECONCILE). */
  public static final String RECONCILE = "pier.reconcile";

  /** Body: "start" or "stop"; replies once the reconcile workers run (or stopped). */
  public static final String RECONCILE_CONTROL = "pier.reconcile.control";

  /** Published on node changes. Body: JSON {cluster, node}. */
  public static final String NODES_CHANGED = "pier.nodes.changed";

  /** The header naming the work kind of a {@link #RECONCILE} message. */
  public static final String KIND = "kind";

  private Addresses() {}

  /** Keys of federated Services (host or member cluster) to run. */
  public static final String FEDERATION = "pier.federation";

  /** "start" and "stop" of the federation's work queue (request/reply). */
  public static final String FEDERATION_CONTROL = "pier.federation.control";
}
