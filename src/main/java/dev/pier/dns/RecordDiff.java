package dev.pier.dns;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The smallest change set that turns what the zone holds into what a Service's names should hold,
 * touching only rrsets marked with Pier's owner id. A name where a record Pier does not own is in
 * the way (an A, AAAA or CNAME, or anything at all when Pier wants a CNAME) is left alone and
 * reported as a conflict.
 *
 * <p>An rrset marked the old way (the owner id alone, without the cluster uid) is adopted only when
 * it holds exactly what this cluster wants there (same type and records): it is then rewritten with
 * the current mark. Any other is someone else's as far as this diff knows: possibly another
 * cluster's with the same owner id. It is never changed or deleted.
 */
public final class RecordDiff {
  private RecordDiff() {}

  /** A name Pier wants but cannot have: the foreign rrsets there. */
  public record Conflict(String name, List<RecordSet> foreign) {
    public String describe() {
      return name
          + " holds "
          + foreign.stream()
              .map(
                  f ->
                      f.type()
                          + (f.owner() == null
                              ? " not created by Pier"
                              : " owned by "
                                  + f.owner()
                                  + (f.owner().contains(RecordSet.CLUSTER_MARK)
                                      ? ""
                                      : " (marked without a cluster: taken over only when it"
                                          + " holds exactly this cluster's records)")))
              .collect(Collectors.joining(", "));
    }
  }

  /**
   * @param changes what to apply (deletes of Pier's rrsets first, then replaces)
   * @param conflicts names left untouched because of foreign records
   * @param owned the names that hold Pier's records once the changes are applied
   * @param adopted the old-scheme rrsets the changes rewrite with the current mark
   */
  public record Result(
      ChangeSet changes, List<Conflict> conflicts, Set<String> owned, List<RecordSet> adopted) {}

  /**
   * @param desired every name to manage with its desired rrsets (empty: none of Pier's)
   * @param existing what the zone holds at those names (names missing here hold nothing)
   */
  public static Result compute(
      Map<String, List<RecordSet>> desired, Map<String, List<RecordSet>> existing, String owner) {
    return compute(desired, existing, owner, null);
  }

  /**
   * @param owner the owner mark of this cluster's rrsets
   * @param oldOwner the old-scheme mark (the owner id alone) to adopt when the records match
   *     exactly, or null
   */
  public static Result compute(
      Map<String, List<RecordSet>> desired,
      Map<String, List<RecordSet>> existing,
      String owner,
      String oldOwner) {
    List<RecordSet> deletes = new ArrayList<>();
    List<RecordSet> adopted = new ArrayList<>();
    List<RecordSet> replaces = new ArrayList<>();
    List<Conflict> conflicts = new ArrayList<>();
    Set<String> owned = new LinkedHashSet<>();
    Map<String, List<RecordSet>> all = new LinkedHashMap<>();
    desired.forEach((name, sets) -> all.put(DnsNames.canonical(name), sets));
    existing.keySet().forEach(name -> all.putIfAbsent(DnsNames.canonical(name), List.of()));
    for (Map.Entry<String, List<RecordSet>> e : all.entrySet()) {
      String name = e.getKey();
      List<RecordSet> want = e.getValue();
      List<RecordSet> have = existing.getOrDefault(name, List.of());
      List<RecordSet> mine = have.stream().filter(r -> r.ownedBy(owner)).toList();
      // Old-scheme rrsets holding exactly what this cluster wants there are provably its own.
      List<RecordSet> adoptable =
          oldOwner == null
              ? List.of()
              : have.stream()
                  .filter(r -> r.ownedBy(oldOwner))
                  .filter(r -> want.stream().anyMatch(w -> sameContent(w, r)))
                  .toList();
      boolean wantsAlias = want.stream().anyMatch(r -> r.type().equals(RecordSet.CNAME));
      List<RecordSet> inTheWay =
          have.stream()
              .filter(r -> !r.ownedBy(owner) && !adoptable.contains(r))
              .filter(
                  r ->
                      wantsAlias
                          || r.answersAddresses()
                          // An old-scheme rrset Pier cannot prove its own blocks the name.
                          || (oldOwner != null && r.ownedBy(oldOwner)))
              .toList();
      if (!want.isEmpty() && !inTheWay.isEmpty()) {
        conflicts.add(new Conflict(name, inTheWay));
        if (!mine.isEmpty()) {
          owned.add(name);
        }
        continue;
      }
      Set<String> wantTypes = want.stream().map(RecordSet::type).collect(Collectors.toSet());
      for (RecordSet m : mine) {
        if (!wantTypes.contains(m.type())) {
          deletes.add(m);
        }
      }
      for (RecordSet w : want) {
        boolean same = mine.stream().anyMatch(m -> m.equals(w));
        if (!same) {
          replaces.add(w);
        }
      }
      adopted.addAll(adoptable);
      if (!want.isEmpty()) {
        owned.add(name);
      }
    }
    return new Result(new ChangeSet(deletes, replaces), conflicts, owned, adopted);
  }

  private static boolean sameContent(RecordSet wanted, RecordSet found) {
    return wanted.name().equals(found.name())
        && wanted.type().equals(found.type())
        && wanted.records().equals(found.records());
  }
}
