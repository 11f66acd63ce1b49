package dev.pier.queue;

import java.util.Set;

/** One run of a key: the kinds of work that were asked for since its last run. */
public record WorkItem<K>(K key, Set<WorkKind> kinds, int failures) {
  public WorkItem {
    kinds = Set.copyOf(kinds);
  }
}
