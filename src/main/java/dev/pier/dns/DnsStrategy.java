package dev.pier.dns;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the global name of a federated Service answers: every healthy address (round robin), the
 * healthy addresses of the first entry of an ordered list that has any (failover), one address per
 * query chosen by weight (weighted), or the addresses of the client's region (views). An entry
 * names a region or a member cluster.
 *
 * @param kind the strategy
 * @param order failover's entries, first preferred; empty for the others
 * @param weights weighted's weight per entry, in the order written; empty for the others
 */
public record DnsStrategy(Kind kind, List<String> order, Map<String, Integer> weights) {
  /** The strategies, by their annotation value. */
  public enum Kind {
    ROUND_ROBIN("round-robin"),
    FAILOVER("failover"),
    WEIGHTED("weighted"),
    VIEWS("views");

    private final String value;

    Kind(String value) {
      this.value = value;
    }

    /** The value of the annotation that selects it. */
    public String value() {
      return value;
    }

    /** True when it needs a server that computes each answer per query (LUA records). */
    public boolean perQuery() {
      return this == WEIGHTED || this == VIEWS;
    }
  }

  /** Today's answers: every healthy address. */
  public static final DnsStrategy ROUND_ROBIN =
      new DnsStrategy(Kind.ROUND_ROBIN, List.of(), Map.of());

  public DnsStrategy {
    order = List.copyOf(order);
    weights = Collections.unmodifiableMap(new LinkedHashMap<>(weights));
  }

  public static DnsStrategy failover(List<String> order) {
    return new DnsStrategy(Kind.FAILOVER, order, Map.of());
  }

  public static DnsStrategy weighted(Map<String, Integer> weights) {
    return new DnsStrategy(Kind.WEIGHTED, List.of(), weights);
  }

  public static final DnsStrategy VIEWS = new DnsStrategy(Kind.VIEWS, List.of(), Map.of());
}
