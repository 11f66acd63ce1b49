package dev.pier.reconcile;

import dev.pier.model.ServiceKey;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last seen state of Services deleted without Pier's finalizer (created before Pier ran, or
 * while it was off): the watch records them, the reconcile deletes their load balancers from it and
 * forgets them. Thread-safe: written from the watch's context, read on the reconcile's.
 */
public final class DeletedServices {
  private final Map<ServiceKey, Service> lastSeen = new ConcurrentHashMap<>();

  public void record(ServiceKey key, Service last) {
    lastSeen.put(key, last);
  }

  /** The last seen state, or null. */
  public Service get(ServiceKey key) {
    return lastSeen.get(key);
  }

  /** Forgets {@code key} if it still maps to {@code last} (a newer deletion stays). */
  public void forget(ServiceKey key, Service last) {
    lastSeen.remove(key, last);
  }
}
