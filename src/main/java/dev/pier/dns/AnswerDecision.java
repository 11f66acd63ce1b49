package dev.pier.dns;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How a federated Service's names answer, from the annotations on its host Service, the operator's
 * bounds and what the DNS backend can do. A value that cannot be used is never fatal: it is
 * reported and the Service answers round robin (a bad TTL: the nearest bound, or the default).
 */
public final class AnswerDecision {
  /** {@code round-robin} (the default), {@code failover}, {@code weighted} or {@code views}. */
  public static final String STRATEGY = "pier.dev/dns-strategy";

  /** Failover's order: regions or member clusters, first preferred, e.g. {@code eu,us}. */
  public static final String FAILOVER = "pier.dev/dns-failover";

  /** Weighted's weights by region or member cluster, e.g. {@code eu=3,us=1}. */
  public static final String WEIGHTS = "pier.dev/dns-weights";

  /** The Service's TTL in seconds, within the operator's bounds. */
  public static final String TTL = "pier.dev/dns-ttl";

  /** The highest weight an entry may have. */
  public static final int MAX_WEIGHT = 1000;

  private static final Pattern ENTRY = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private AnswerDecision() {}

  /**
   * What the operator set.
   *
   * @param ttl the default TTL ({@code dns.ttl})
   * @param minTtl the lowest TTL an annotation may ask for
   * @param maxTtl the highest TTL an annotation may ask for
   * @param weightedTtl the TTL of a weighted global name
   * @param views client networks by region ({@code dns.views})
   */
  public record Limits(
      long ttl, long minTtl, long maxTtl, long weightedTtl, Map<String, List<String>> views) {}

  /** Why a value was not used. */
  public enum Problem {
    /** An annotation's value that cannot be read or is out of bounds. */
    INVALID,
    /** A strategy the backend (or the configuration) cannot serve. */
    UNSUPPORTED
  }

  /** One value not used, with a message naming the field and the value. */
  public record Warning(Problem problem, String message) {}

  /** The policy the names follow, and what was not used on the way. */
  public record Result(AnswerPolicy policy, List<Warning> warnings) {}

  /**
   * @param annotations the host Service's annotations
   * @param perQuery whether the backend answers per query (PowerDNS with LUA records)
   */
  public static Result decide(Map<String, String> annotations, Limits limits, boolean perQuery) {
    List<Warning> warnings = new ArrayList<>();
    long ttl = ttl(annotations.get(TTL), limits, warnings);
    DnsStrategy strategy = strategy(annotations, limits, perQuery, warnings);
    String probe = annotations.get(ProbeSpec.ANNOTATION);
    String problem = ProbeSpec.parse(probe).problem();
    if (problem != null) {
      warnings.add(invalid(ProbeSpec.ANNOTATION, probe, problem + "; not probing"));
    }
    return new Result(
        new AnswerPolicy(strategy, ttl, limits.weightedTtl(), limits.views()),
        List.copyOf(warnings));
  }

  /** True when the strategy asked for needs a backend that answers per query. */
  public static boolean wantsPerQuery(Map<String, String> annotations) {
    String v = annotations.get(STRATEGY);
    return v != null
        && (v.trim().equals(DnsStrategy.Kind.WEIGHTED.value())
            || v.trim().equals(DnsStrategy.Kind.VIEWS.value()));
  }

  private static long ttl(String raw, Limits limits, List<Warning> warnings) {
    if (raw == null) {
      return limits.ttl();
    }
    long asked;
    try {
      asked = Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      warnings.add(invalid(TTL, raw, "not a number of seconds; using dns.ttl " + limits.ttl()));
      return limits.ttl();
    }
    long bounded = Math.max(limits.minTtl(), Math.min(limits.maxTtl(), asked));
    if (bounded != asked) {
      warnings.add(
          invalid(
              TTL,
              raw,
              "outside the operator's bounds "
                  + limits.minTtl()
                  + " to "
                  + limits.maxTtl()
                  + " s; using "
                  + bounded));
    }
    return bounded;
  }

  private static DnsStrategy strategy(
      Map<String, String> annotations, Limits limits, boolean perQuery, List<Warning> warnings) {
    String raw = annotations.get(STRATEGY);
    if (raw == null) {
      return DnsStrategy.ROUND_ROBIN;
    }
    DnsStrategy.Kind kind = null;
    for (DnsStrategy.Kind k : DnsStrategy.Kind.values()) {
      if (k.value().equals(raw.trim())) {
        kind = k;
      }
    }
    if (kind == null) {
      warnings.add(
          invalid(
              STRATEGY,
              raw,
              "not one of round-robin, failover, weighted, views; answering round-robin"));
      return DnsStrategy.ROUND_ROBIN;
    }
    if (kind.perQuery() && !perQuery) {
      warnings.add(
          new Warning(
              Problem.UNSUPPORTED,
              STRATEGY
                  + ": "
                  + kind.value()
                  + " needs a DNS server that answers per query (PowerDNS with"
                  + " enable-lua-records=yes), which this backend is not; answering round-robin"));
      return DnsStrategy.ROUND_ROBIN;
    }
    return switch (kind) {
      case ROUND_ROBIN -> DnsStrategy.ROUND_ROBIN;
      case FAILOVER -> failover(annotations.get(FAILOVER), warnings);
      case WEIGHTED -> weighted(annotations.get(WEIGHTS), warnings);
      case VIEWS -> views(limits, warnings);
    };
  }

  private static DnsStrategy failover(String raw, List<Warning> warnings) {
    if (raw == null || raw.isBlank()) {
      warnings.add(
          invalid(
              FAILOVER,
              raw == null ? "" : raw,
              "missing: failover needs an ordered list of regions or clusters, e.g. eu,us;"
                  + " answering round-robin"));
      return DnsStrategy.ROUND_ROBIN;
    }
    Set<String> order = new LinkedHashSet<>();
    for (String part : raw.split(",", -1)) {
      String e = part.trim();
      if (!ENTRY.matcher(e).matches() || !order.add(e)) {
        warnings.add(
            invalid(
                FAILOVER,
                raw,
                "'"
                    + e
                    + "' is "
                    + (ENTRY.matcher(e).matches() ? "listed twice" : "no region or cluster name")
                    + "; answering round-robin"));
        return DnsStrategy.ROUND_ROBIN;
      }
    }
    return DnsStrategy.failover(List.copyOf(order));
  }

  private static DnsStrategy weighted(String raw, List<Warning> warnings) {
    if (raw == null || raw.isBlank()) {
      warnings.add(
          invalid(
              WEIGHTS,
              raw == null ? "" : raw,
              "missing: weighted needs weights by region or cluster, e.g. eu=3,us=1;"
                  + " answering round-robin"));
      return DnsStrategy.ROUND_ROBIN;
    }
    Map<String, Integer> weights = new LinkedHashMap<>();
    for (String part : raw.split(",", -1)) {
      String[] kv = part.split("=", -1);
      String entry = kv[0].trim();
      Integer w = kv.length == 2 ? weight(kv[1].trim()) : null;
      if (!ENTRY.matcher(entry).matches() || w == null || weights.putIfAbsent(entry, w) != null) {
        warnings.add(
            invalid(
                WEIGHTS,
                raw,
                "'"
                    + part.trim()
                    + "' is not <region or cluster>=<0 to "
                    + MAX_WEIGHT
                    + ">, or names an entry twice; answering round-robin"));
        return DnsStrategy.ROUND_ROBIN;
      }
    }
    if (weights.values().stream().noneMatch(w -> w > 0)) {
      warnings.add(invalid(WEIGHTS, raw, "no weight above 0; answering round-robin"));
      return DnsStrategy.ROUND_ROBIN;
    }
    return DnsStrategy.weighted(weights);
  }

  private static DnsStrategy views(Limits limits, List<Warning> warnings) {
    if (limits.views().isEmpty()) {
      warnings.add(
          new Warning(
              Problem.UNSUPPORTED,
              STRATEGY
                  + ": views needs client networks by region in Pier's configuration (dns.views),"
                  + " and none are set; answering round-robin"));
      return DnsStrategy.ROUND_ROBIN;
    }
    return DnsStrategy.VIEWS;
  }

  private static Integer weight(String s) {
    if (!s.matches("[0-9]{1,4}")) {
      return null;
    }
    int w = Integer.parseInt(s);
    return w <= MAX_WEIGHT ? w : null;
  }

  private static Warning invalid(String field, String value, String why) {
    return new Warning(Problem.INVALID, field + ": '" + value + "' " + why);
  }
}
