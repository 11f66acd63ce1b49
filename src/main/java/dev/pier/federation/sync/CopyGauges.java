package dev.pier.federation.sync;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * The gauge {@code pier_federation_copies{cluster}}: the copies Pier owns in each member, counted
 * by the replica that runs the member's side from its cache, 0 on the others (a sum by cluster is
 * the count). One gauge per member while it is a member.
 */
final class CopyGauges {
  private final MeterRegistry registry;
  private final ToDoubleFunction<String> seen;
  private final Map<String, Gauge> byMember = new ConcurrentHashMap<>();

  /**
   * @param seen the copies this replica sees Pier own in the named member (0 where it does not run
   *     the member's side)
   */
  CopyGauges(MeterRegistry registry, ToDoubleFunction<String> seen) {
    this.registry = registry;
    this.seen = seen;
  }

  void track(String member) {
    byMember.computeIfAbsent(
        member,
        n ->
            Gauge.builder("pier.federation.copies", () -> seen.applyAsDouble(n))
                .description(
                    "Copies of federated Services Pier owns in the member, as the replica running"
                        + " its side sees them (0 on the others)")
                .tag("cluster", n)
                .register(registry));
  }

  void untrack(String member) {
    Gauge g = byMember.remove(member);
    if (g != null) {
      registry.remove(g);
    }
  }
}
