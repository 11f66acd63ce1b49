package dev.pier.dns;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a Service's names answer: the strategy of its global name and the TTLs.
 *
 * @param strategy how the global name answers; region and zone names always list every healthy
 *     address of their level
 * @param ttl seconds, for every rrset but a weighted global name
 * @param weightedTtl seconds, for a weighted global name (short, so that a resolver cannot keep one
 *     pick for long)
 * @param views client networks (CIDRs) by region, for the views strategy, in the order written
 */
public record AnswerPolicy(
    DnsStrategy strategy, long ttl, long weightedTtl, Map<String, List<String>> views) {
  public AnswerPolicy {
    Map<String, List<String>> copy = new LinkedHashMap<>();
    views.forEach((region, cidrs) -> copy.put(region, List.copyOf(cidrs)));
    views = Collections.unmodifiableMap(copy);
  }

  /** Today's answers with one TTL. */
  public static AnswerPolicy roundRobin(long ttl) {
    return new AnswerPolicy(DnsStrategy.ROUND_ROBIN, ttl, ttl, Map.of());
  }
}
