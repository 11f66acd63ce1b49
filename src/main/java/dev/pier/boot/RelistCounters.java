package dev.pier.boot;

import dev.pier.kube.Cluster;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code pier_service_cache_relists_total{cluster}} for every cluster Pier has a client for,
 * configured or joined through a Secret: a member that reconnects (a new client for the same name)
 * keeps counting where its earlier client stopped, so the counter never goes back.
 */
final class RelistCounters {
  private final MeterRegistry registry;
  private final Map<String, Cluster> current = new ConcurrentHashMap<>();
  private final Map<String, Long> retired = new ConcurrentHashMap<>();

  RelistCounters(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Counts {@code cluster}'s relists from now on, under its name. */
  Cluster track(Cluster cluster) {
    String name = cluster.name();
    Cluster before = current.put(name, cluster);
    if (before == null) {
      // The registry is the weakly held object, so the counter lives as long as it does.
      FunctionCounter.builder("pier.service.cache.relists", registry, r -> total(name))
          .description(
              "Times the cluster's Service cache was listed again because its watch had missed"
                  + " events")
          .tag("cluster", name)
          .register(registry);
    } else if (before != cluster) {
      retired.merge(name, before.serviceRelists(), Long::sum);
    }
    return cluster;
  }

  private double total(String name) {
    Cluster c = current.get(name);
    return retired.getOrDefault(name, 0L) + (c == null ? 0 : c.serviceRelists());
  }
}
