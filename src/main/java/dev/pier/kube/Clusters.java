package dev.pier.kube;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The clusters Pier manages, by name. One today; member clusters are more entries. */
public final class Clusters implements AutoCloseable {
  private final Map<String, Cluster> byName = new LinkedHashMap<>();

  public Clusters(List<Cluster> clusters) {
    for (Cluster c : clusters) {
      if (byName.put(c.name(), c) != null) {
        throw new IllegalArgumentException("duplicate cluster name " + c.name());
      }
    }
  }

  /** The named cluster, or null. */
  public Cluster get(String name) {
    return byName.get(name);
  }

  public Collection<Cluster> all() {
    return byName.values();
  }

  @Override
  public void close() {
    byName.values().forEach(Cluster::close);
  }
}
