package dev.pier.kube;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The clusters whose load balancers Pier runs, by name: the configured ones, and members that join
 * through a Secret with a provider of their own while they are members. Safe to read from any
 * thread.
 */
public final class Clusters implements AutoCloseable {
  private final Map<String, Cluster> byName = new ConcurrentHashMap<>();
  private final List<Cluster> configured;
  private final Collection<Consumer<Cluster>> onAdded = new ConcurrentLinkedQueue<>();
  private final Collection<Consumer<Cluster>> onRemoved = new ConcurrentLinkedQueue<>();

  public Clusters(List<Cluster> clusters) {
    for (Cluster c : clusters) {
      if (byName.put(c.name(), c) != null) {
        throw new IllegalArgumentException("duplicate cluster name " + c.name());
      }
    }
    this.configured = List.copyOf(clusters);
  }

  /** The named cluster, or null. */
  public Cluster get(String name) {
    return byName.get(name);
  }

  public Collection<Cluster> all() {
    return byName.values();
  }

  /** The clusters from the configuration: what Pier needs to be ready. */
  public List<Cluster> configured() {
    return configured;
  }

  /** Tells {@code listener} of each cluster added from now on, on the adding thread. */
  public void onAdded(Consumer<Cluster> listener) {
    onAdded.add(listener);
  }

  /** Tells {@code listener} of each cluster removed from now on, on the removing thread. */
  public void onRemoved(Consumer<Cluster> listener) {
    onRemoved.add(listener);
  }

  /**
   * Adds a member that joined at runtime.
   *
   * @throws IllegalStateException when a cluster of that name is there already
   */
  public void add(Cluster cluster) {
    if (byName.putIfAbsent(cluster.name(), cluster) != null) {
      throw new IllegalStateException("cluster " + cluster.name() + " is there already");
    }
    onAdded.forEach(l -> l.accept(cluster));
  }

  /** Removes a member added at runtime, if it is this one; a configured cluster stays. */
  public boolean remove(Cluster cluster) {
    if (configured.contains(cluster) || !byName.remove(cluster.name(), cluster)) {
      return false;
    }
    onRemoved.forEach(l -> l.accept(cluster));
    return true;
  }

  /** Closes the configured clusters; members added at runtime are closed by whoever added them. */
  @Override
  public void close() {
    configured.forEach(Cluster::close);
  }
}
