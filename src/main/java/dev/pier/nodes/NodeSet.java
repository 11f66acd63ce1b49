package dev.pier.nodes;

import dev.pier.model.LbNode;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * A set of nodes as a load balancer sees it: names and provider ids. Two sets are equal when
 * upstream's {@code nodesSufficientlyEqual} holds (same names with the same provider ids).
 */
public record NodeSet(Map<String, String> providerIdsByName) {

  public static final NodeSet EMPTY = new NodeSet(Map.of());

  public NodeSet {
    providerIdsByName = Map.copyOf(providerIdsByName);
  }

  public static NodeSet of(Collection<LbNode> nodes) {
    Map<String, String> m = new TreeMap<>();
    for (LbNode n : nodes) {
      m.put(n.name(), n.providerId());
    }
    return new NodeSet(m);
  }

  public int size() {
    return providerIdsByName.size();
  }
}
