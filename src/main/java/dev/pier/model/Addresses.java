package dev.pier.model;

import io.vertx.core.eventbus.DeliveryOptions;

/**
 * Event-bus addresses. Messages carry keys and small records, never whole API objects. Every
 * address here is one process's own (its consumers are local and its messages local-only, so that a
 * clustered event bus never sends them to another replica), except the two of the federation that
 * cross replicas under scale-out: {@link #FEDERATION_CHANGED} and {@link #federationCopies}.
 */
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

  /**
   * The answer to a {@link #RECONCILE} request for a key whose shard another replica owns
   * (scale-out): that replica runs it.
   */
  public static final String NOT_OWNED = "NOT_OWNED";

  /**
   * A {@link #RECONCILE_CONTROL} command: this replica took the shard its header {@link #SHARD}
   * names; every cached key of it is queued. Replies with the number queued.
   */
  public static final String SHARDS_GAINED = "shards-gained";

  /** The header of a {@link #SHARDS_GAINED} command: the shard's number. */
  public static final String SHARD = "shard";

  /**
   * A {@link #RECONCILE_CONTROL} command: this replica lost or gave up shards; the waiting work and
   * the memory of their keys are dropped.
   */
  public static final String SHARDS_LOST = "shards-lost";

  private Addresses() {}

  /** Delivery options of a message for this process only. */
  public static DeliveryOptions local() {
    return new DeliveryOptions().setLocalOnly(true);
  }

  /**
   * "start" and "stop" of the federation's work queue (request/reply); under scale-out also {@link
   * #SHARDS_GAINED} and {@link #SHARDS_LOST} with header {@link #SHARD}.
   */
  public static final String FEDERATION_CONTROL = "pier.federation.control";

  /**
   * Cluster-wide (scale-out): a member's owner tells the host's owner that a copy changed. Body:
   * the host Service's {@link ServiceKey} string; request/reply with a deadline.
   */
  public static final String FEDERATION_CHANGED = "pier.federation.changed";

  /**
   * Cluster-wide (scale-out): the owner of a member answers reads of its copies. Body: {@code
   * {"namespace", "name"}}; reply: a copy state as JSON, or a failure when it does not own the
   * member now.
   */
  public static String federationCopies(String member) {
    return "pier.federation.copies." + member;
  }
}
