package dev.pier.dns;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The records of a federated Service's global name under its {@link DnsStrategy}, from the healthy
 * clusters serving it. Round robin and failover are plain A/AAAA rrsets; weighted and views are
 * PowerDNS LUA rrsets ({@code pickwrandom}, {@code netmask}) that the server evaluates per query.
 * Only literal addresses ever reach a LUA record's code.
 */
public final class GlobalAnswers {
  /** Weight units an entry's weight is spread over its addresses with. */
  static final int SCALE = 1000;

  private static final Pattern ADDRESS = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

  private GlobalAnswers() {}

  /**
   * @param healthy the healthy clusters (any level's predicate already applied)
   * @return the rrsets; empty when no healthy cluster has an address
   */
  public static List<RecordSet> records(
      String name, List<ServingCluster> healthy, AnswerPolicy policy, String owner) {
    DnsStrategy s = policy.strategy();
    return switch (s.kind()) {
      case ROUND_ROBIN -> plain(name, healthy, policy.ttl(), owner);
      case FAILOVER -> plain(name, failover(s.order(), healthy), policy.ttl(), owner);
      case WEIGHTED -> weighted(name, healthy, s.weights(), policy.weightedTtl(), owner);
      case VIEWS -> views(name, healthy, policy.views(), policy.ttl(), owner);
    };
  }

  /** True when {@code entry} (of a failover list or weights) names the cluster or its region. */
  static boolean matches(String entry, ServingCluster c) {
    return entry.equals(c.location().cluster()) || entry.equals(c.location().region());
  }

  /**
   * The clusters of the first entry with a healthy address; clusters no entry names come after the
   * last entry.
   */
  static List<ServingCluster> failover(List<String> order, List<ServingCluster> healthy) {
    for (String entry : order) {
      List<ServingCluster> at =
          healthy.stream().filter(c -> matches(entry, c) && c.hasAddresses()).toList();
      if (!at.isEmpty()) {
        return at;
      }
    }
    return healthy.stream().filter(c -> order.stream().noneMatch(e -> matches(e, c))).toList();
  }

  private static List<RecordSet> plain(
      String name, List<ServingCluster> clusters, long ttl, String owner) {
    List<RecordSet> sets = new ArrayList<>();
    TreeSet<String> v4 = new TreeSet<>();
    TreeSet<String> v6 = new TreeSet<>();
    clusters.forEach(
        c -> {
          v4.addAll(c.ipv4());
          v6.addAll(c.ipv6());
        });
    if (!v4.isEmpty()) {
      sets.add(new RecordSet(name, RecordSet.A, ttl, List.copyOf(v4), owner));
    }
    if (!v6.isEmpty()) {
      sets.add(new RecordSet(name, RecordSet.AAAA, ttl, List.copyOf(v6), owner));
    }
    return List.copyOf(sets);
  }

  private static List<RecordSet> weighted(
      String name,
      List<ServingCluster> healthy,
      Map<String, Integer> weights,
      long ttl,
      String owner) {
    List<String> lua = new ArrayList<>();
    weightedRecord(RecordSet.A, healthy, weights, ServingCluster::ipv4).ifPresent(lua::add);
    weightedRecord(RecordSet.AAAA, healthy, weights, ServingCluster::ipv6).ifPresent(lua::add);
    return lua.isEmpty() ? List.of() : List.of(new RecordSet(name, RecordSet.LUA, ttl, lua, owner));
  }

  /**
   * Each address's weight: its entry's weight shared by the entry's addresses of the family. When
   * no address of the family has a positive weight, every one answers with the same weight.
   */
  static Map<String, Integer> weightsOf(
      List<ServingCluster> healthy,
      Map<String, Integer> weights,
      Function<ServingCluster, List<String>> family) {
    Map<String, TreeSet<String>> byEntry = new LinkedHashMap<>();
    for (ServingCluster c : healthy) {
      String entry = entryOf(c, weights);
      if (entry != null && weights.get(entry) > 0) {
        byEntry.computeIfAbsent(entry, e -> new TreeSet<>()).addAll(literal(family.apply(c)));
      }
    }
    Map<String, Integer> out = new TreeMap<>();
    byEntry.forEach(
        (entry, addrs) -> {
          for (String a : addrs) {
            int w = Math.max(1, Math.round((float) weights.get(entry) * SCALE / addrs.size()));
            out.merge(a, w, Integer::sum);
          }
        });
    if (out.isEmpty()) {
      addresses(healthy, family).forEach(a -> out.put(a, SCALE));
    }
    return out;
  }

  /** The entry whose weight a cluster takes: its own name first, else its region. */
  private static String entryOf(ServingCluster c, Map<String, Integer> weights) {
    if (weights.containsKey(c.location().cluster())) {
      return c.location().cluster();
    }
    return c.location().region() != null && weights.containsKey(c.location().region())
        ? c.location().region()
        : null;
  }

  private static Optional<String> weightedRecord(
      String type,
      List<ServingCluster> healthy,
      Map<String, Integer> weights,
      Function<ServingCluster, List<String>> family) {
    Map<String, Integer> w = weightsOf(healthy, weights, family);
    if (w.isEmpty()) {
      return Optional.empty();
    }
    String pairs =
        w.entrySet().stream()
            .map(e -> "{" + e.getValue() + ",'" + e.getKey() + "'}")
            .collect(Collectors.joining(","));
    return Optional.of(type + " \"pickwrandom({" + pairs + "})\"");
  }

  private static List<RecordSet> views(
      String name,
      List<ServingCluster> healthy,
      Map<String, List<String>> views,
      long ttl,
      String owner) {
    List<String> lua = new ArrayList<>();
    viewRecord(RecordSet.A, healthy, views, ServingCluster::ipv4).ifPresent(lua::add);
    viewRecord(RecordSet.AAAA, healthy, views, ServingCluster::ipv6).ifPresent(lua::add);
    if (lua.isEmpty()) {
      // No listed region has a healthy address: every client gets every healthy address.
      return plain(name, healthy, ttl, owner);
    }
    return List.of(new RecordSet(name, RecordSet.LUA, ttl, lua, owner));
  }

  /**
   * {@code ;if netmask({...}) then return {...} end ... return {...}}: the first listed region
   * whose networks hold the client (its EDNS Client Subnet, else its address) and that has healthy
   * addresses of the family answers with them; everyone else gets every healthy address. Empty when
   * no listed region has a healthy address of the family.
   */
  static Optional<String> viewRecord(
      String type,
      List<ServingCluster> healthy,
      Map<String, List<String>> views,
      Function<ServingCluster, List<String>> family) {
    StringBuilder code = new StringBuilder(";");
    boolean any = false;
    for (Map.Entry<String, List<String>> v : views.entrySet()) {
      List<String> cidrs = v.getValue().stream().filter(GlobalAnswers::isCidr).toList();
      TreeSet<String> at =
          addresses(
              healthy.stream().filter(c -> v.getKey().equals(c.location().region())).toList(),
              family);
      if (cidrs.isEmpty() || at.isEmpty()) {
        continue;
      }
      any = true;
      code.append("if netmask(")
          .append(table(cidrs))
          .append(") then return ")
          .append(table(at))
          .append(" end ");
    }
    TreeSet<String> all = addresses(healthy, family);
    if (!any || all.isEmpty()) {
      return Optional.empty();
    }
    code.append("return ").append(table(all));
    return Optional.of(type + " \"" + code + "\"");
  }

  private static String table(Collection<String> items) {
    return items.stream().map(i -> "'" + i + "'").collect(Collectors.joining(",", "{", "}"));
  }

  private static TreeSet<String> addresses(
      List<ServingCluster> clusters, Function<ServingCluster, List<String>> family) {
    TreeSet<String> out = new TreeSet<>();
    clusters.forEach(c -> out.addAll(literal(family.apply(c))));
    return out;
  }

  /** Only literal addresses: nothing a member writes into its status ever becomes code. */
  private static List<String> literal(List<String> addresses) {
    return addresses.stream().filter(a -> ADDRESS.matcher(a).matches()).toList();
  }

  private static boolean isCidr(String cidr) {
    int slash = cidr.indexOf('/');
    return slash > 0
        && ADDRESS.matcher(cidr.substring(0, slash)).matches()
        && cidr.substring(slash + 1).matches("[0-9]{1,3}");
  }
}
