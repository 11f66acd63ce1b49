package dev.pier.federation.sync;

import dev.pier.model.ServiceKey;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;

/**
 * The federated Services whose status and names hold unreachable members as last seen (the panic
 * threshold), as the gauge {@code pier_federation_names_held_since_seconds{namespace,name}}: the
 * time the hold began, one series per held Service, gone when the hold ends. Runs on the
 * federation's context.
 */
final class HeldNames {
  private final MeterRegistry registry;
  private final Map<ServiceKey, Gauge> held = new HashMap<>();

  HeldNames(MeterRegistry registry) {
    this.registry = registry;
  }

  void hold(ServiceKey key, long sinceMillis) {
    Gauge existing = held.get(key);
    if (existing != null && existing.value() == sinceMillis / 1000.0) {
      return;
    }
    release(key);
    held.put(
        key,
        Gauge.builder("pier.federation.names.held.since", () -> sinceMillis / 1000.0)
            .description(
                "When a federated Service began keeping unreachable member clusters as last seen"
                    + " in its status and DNS names (seconds since the epoch); absent: not held")
            .baseUnit("seconds")
            .tag("namespace", key.namespace())
            .tag("name", key.name())
            .register(registry));
  }

  void release(ServiceKey key) {
    Gauge g = held.remove(key);
    if (g != null) {
      registry.remove(g);
    }
  }
}
