package dev.pier.model;

import java.util.Objects;

/**
 * Names one Service in one cluster. Keys travel over the event bus as {@link #toString()} strings
 * ({@code cluster/namespace/name}), so that member clusters share one queue without collisions.
 */
public record ServiceKey(String cluster, String namespace, String name) {

  public ServiceKey {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    if (cluster.contains("/")) {
      throw new IllegalArgumentException("cluster name must not contain '/': " + cluster);
    }
  }

  /** Parses the {@code cluster/namespace/name} form written by {@link #toString()}. */
  public static ServiceKey parse(String text) {
    int first = text.indexOf('/');
    int second = first < 0 ? -1 : text.indexOf('/', first + 1);
    if (first <= 0 || second <= first + 1 || second == text.length() - 1) {
      throw new IllegalArgumentException("not a service key (cluster/namespace/name): " + text);
    }
    return new ServiceKey(
        text.substring(0, first), text.substring(first + 1, second), text.substring(second + 1));
  }

  /** The {@code namespace/name} key of the object inside its cluster, as informer stores use it. */
  public String objectKey() {
    return namespace + "/" + name;
  }

  @Override
  public String toString() {
    return cluster + "/" + namespace + "/" + name;
  }
}
