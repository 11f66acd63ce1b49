package dev.pier.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The state of each load balancer as the outcome of its last provider call: ensured, failing, or
 * gone once deleted. Safe to use from any thread.
 */
public final class LoadBalancerStates {
  /** What the last ensure of a load balancer did. */
  public enum State {
    READY,
    FAILING;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Map<String, State> byKey = new ConcurrentHashMap<>();

  void set(String key, State state) {
    byKey.put(key, state);
  }

  void remove(String key) {
    byKey.remove(key);
  }

  /** How many load balancers are in {@code state}. */
  public long count(State state) {
    return byKey.values().stream().filter(s -> s == state).count();
  }
}
