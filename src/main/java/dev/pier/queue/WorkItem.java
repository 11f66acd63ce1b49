package dev.pier.queue;

import java.util.Set;

/**
 * One run of a key: the kinds of work that were asked for since its last run.
 *
 * @param failures the key's consecutive failures that count toward its backoff
 * @param retry the key's last run failed: this run retries it
 */
public record WorkItem<K>(K key, Set<WorkKind> kinds, int failures, boolean retry) {
  public WorkItem {
    kinds = Set.copyOf(kinds);
  }

  public WorkItem(K key, Set<WorkKind> kinds, int failures) {
    this(key, kinds, failures, failures > 0);
  }

  /** The lane this run takes: {@link WorkLane#HOST_UPDATE} when it only updates hosts. */
  public WorkLane lane() {
    return WorkLane.of(kinds);
  }
}
