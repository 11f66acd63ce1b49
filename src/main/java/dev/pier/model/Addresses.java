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

  /**
   * The header of a {@link #RECONCILE} message that says why the Service is to be reconciled;
   * absent: a change of its spec, its creation or its deletion.
   */
  public static final String CAUSE = "cause";

  /**
   * The answer to a {@link #RECONCILE} request replaced by a newer request for the same key before
   * its run started: the newer one's run covers both.
   */
  public static final String SUPERSEDED = "SUPERSEDED";

  /** The {@link #CAUSE} of a change of the Service's annotations only, not of its spec. */
  public static final String CAUSE_METADATA = "metadata";

  private Addresses() {}

  /** Keys of federated Services (host or member cluster) to run. */
  public static final String FEDERATION = "pier.federation";

  /** "start" and "stop" of the federation's work queue (request/reply). */
  public static final String FEDERATION_CONTROL = "pier.federation.control";
}
