package dev.pier.nodes;

import dev.pier.model.ServiceKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The node set last pushed to each Service's load balancer. Reconcile records it before calling the
 * provider (as upstream does, so the node path does not push the same set again); node sync
 * compares against it. Thread-safe: written on the reconcile context, read by node sync.
 */
public final class PushedNodeSets {
  private final Map<ServiceKey, NodeSet> sets = new ConcurrentHashMap<>();
  // Nearly every load balancer gets the same set: keep one instance of it, not one per Service
  // (at 10,000 Services and 11 nodes that was 110,000 members on the heap).
  private volatile NodeSet shared;

  public void record(ServiceKey key, NodeSet nodes) {
    NodeSet common = shared;
    if (nodes.equals(common)) {
      nodes = common;
    } else {
      shared = nodes;
    }
    sets.put(key, nodes);
  }

  /** The last pushed set, or null when the Service has no load balancer from Pier. */
  public NodeSet get(ServiceKey key) {
    return sets.get(key);
  }

  public void forget(ServiceKey key) {
    sets.remove(key);
  }

  /** Forgets the node sets of every key {@code which} matches. */
  public void forget(Predicate<ServiceKey> which) {
    sets.keySet().removeIf(which);
  }

  public Map<ServiceKey, NodeSet> snapshot() {
    return Map.copyOf(sets);
  }
}
