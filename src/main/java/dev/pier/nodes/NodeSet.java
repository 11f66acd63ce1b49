package dev.pier.nodes;

import dev.pier.model.LbNode;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * A set of nodes as a load balancer sees it: names, provider ids and addresses. Upstream compares
 * names and provider ids only ({@code nodesSufficientlyEqual}); Pier also compares the addresses,
 * because a node whose address changes (or that registers its address after it was created) must
 * reach the load balancers that proxy to it.
 */
public record NodeSet(Map<String, Member> members) {

  public static final NodeSet EMPTY = new NodeSet(Map.of());

  /** What a load balancer knows of one node. */
  public record Member(String providerId, String internalIp, String externalIp) {}

  public NodeSet {
    members = Map.copyOf(members);
  }

  public static NodeSet of(Collection<LbNode> nodes) {
    Map<String, Member> m = new TreeMap<>();
    for (LbNode n : nodes) {
      m.put(n.name(), new Member(n.providerId(), n.internalIp(), n.externalIp()));
    }
    return new NodeSet(m);
  }

  public int size() {
    return members.size();
  }
}
