package dev.pier.dns;

import java.util.List;

/**
 * Changes to one zone, applied atomically: first every delete (name and type, with its owner mark),
 * then every replace. An A to CNAME switch is a delete of the A plus a replace of the CNAME in the
 * same change set, which is the only form DNS servers accept for it.
 */
public record ChangeSet(List<RecordSet> deletes, List<RecordSet> replaces) {
  public static final ChangeSet EMPTY = new ChangeSet(List.of(), List.of());

  public ChangeSet {
    deletes = List.copyOf(deletes);
    replaces = List.copyOf(replaces);
  }

  public boolean isEmpty() {
    return deletes.isEmpty() && replaces.isEmpty();
  }

  public int size() {
    return deletes.size() + replaces.size();
  }
}
