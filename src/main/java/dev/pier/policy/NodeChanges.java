package dev.pier.policy;

import dev.pier.model.LbNode;
import dev.pier.model.Views;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Objects;

/**
 * Whether a node update can matter to any load balancer: its eligibility under either predicate
 * set, its provider id, or its addresses changed. Heartbeats, unrelated labels and status churn do
 * not, and cost nothing downstream.
 */
public final class NodeChanges {
  private NodeChanges() {}

  public static boolean relevant(Node oldNode, Node newNode) {
    if (oldNode == newNode) {
      return false;
    }
    for (NodeEligibility e : NodeEligibility.values()) {
      if (e.test(oldNode) != e.test(newNode)) {
        return true;
      }
    }
    LbNode a = Views.node(oldNode);
    LbNode b = Views.node(newNode);
    return !Objects.equals(a.providerId(), b.providerId())
        || !Objects.equals(a.internalIp(), b.internalIp())
        || !Objects.equals(a.externalIp(), b.externalIp());
  }
}
