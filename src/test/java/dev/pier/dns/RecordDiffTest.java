package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordDiffTest {
  private static final String N = "web.ns.pier.svc.example.com.";
  private static final String R = "web.ns.pier.svc.r.example.com.";

  private static RecordSet rs(String name, String type, String owner, String... data) {
    return new RecordSet(name, type, 180, List.of(data), owner);
  }

  private static RecordDiff.Result diff(
      Map<String, List<RecordSet>> desired, Map<String, List<RecordSet>> existing) {
    return RecordDiff.compute(desired, existing, "me");
  }

  @Test
  void nothingToDoWhenDnsMatches() {
    var desired = Map.of(N, List.of(rs(N, "A", "me", "10.0.0.2", "10.0.0.1")));
    var existing = Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1", "10.0.0.2")));
    RecordDiff.Result r = diff(desired, existing);
    assertThat(r.changes().isEmpty()).isTrue();
    assertThat(r.owned()).containsExactly(N);
  }

  @Test
  void switchingToAndFromLuaRecordsReplacesTheOwnRrsetOfTheOtherType() {
    RecordSet lua = rs(N, "LUA", "me", "A \"pickwrandom({{3,'10.0.0.1'},{1,'10.0.0.2'}})\"");
    var r = diff(Map.of(N, List.of(lua)), Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1"))));
    assertThat(r.changes().deletes()).containsExactly(rs(N, "A", "me", "10.0.0.1"));
    assertThat(r.changes().replaces()).containsExactly(lua);
    var back = diff(Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1"))), Map.of(N, List.of(lua)));
    assertThat(back.changes().deletes()).containsExactly(lua);
  }

  @Test
  void aForeignLuaRecordIsInTheWayOfAddresses() {
    RecordSet foreign = rs(N, "LUA", null, "A \"ifportup(443, {'192.0.2.1'})\"");
    var r = diff(Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1"))), Map.of(N, List.of(foreign)));
    assertThat(r.changes().isEmpty()).isTrue();
    assertThat(r.conflicts()).singleElement().satisfies(c -> assertThat(c.name()).isEqualTo(N));
  }

  @Test
  void newNamesAreReplaced() {
    var r = diff(Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1"))), Map.of());
    assertThat(r.changes().deletes()).isEmpty();
    assertThat(r.changes().replaces()).containsExactly(rs(N, "A", "me", "10.0.0.1"));
  }

  @Test
  void onlyTheDifferingRrsetIsSent() {
    var desired =
        Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1"), rs(N, "AAAA", "me", "2001:db8::1")));
    var existing =
        Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1"), rs(N, "AAAA", "me", "2001:db8::2")));
    var r = diff(desired, existing);
    assertThat(r.changes().replaces()).containsExactly(rs(N, "AAAA", "me", "2001:db8::1"));
    assertThat(r.changes().deletes()).isEmpty();
  }

  @Test
  void aTtlChangeIsAChange() {
    var desired = Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1")));
    var existing = Map.of(N, List.of(new RecordSet(N, "A", 300, List.of("10.0.0.1"), "me")));
    assertThat(diff(desired, existing).changes().replaces()).hasSize(1);
  }

  @Test
  void aToCnameIsDeletePlusReplaceInOneChangeSet() {
    var desired = Map.of(R, List.of(rs(R, "CNAME", "me", N)));
    var existing =
        Map.of(R, List.of(rs(R, "A", "me", "10.0.0.1"), rs(R, "AAAA", "me", "2001:db8::1")));
    var r = diff(desired, existing);
    assertThat(r.changes().deletes())
        .containsExactly(rs(R, "A", "me", "10.0.0.1"), rs(R, "AAAA", "me", "2001:db8::1"));
    assertThat(r.changes().replaces()).containsExactly(rs(R, "CNAME", "me", N));
  }

  @Test
  void cnameBackToA() {
    var desired = Map.of(R, List.of(rs(R, "A", "me", "10.0.0.1")));
    var existing = Map.of(R, List.of(rs(R, "CNAME", "me", N)));
    var r = diff(desired, existing);
    assertThat(r.changes().deletes()).containsExactly(rs(R, "CNAME", "me", N));
    assertThat(r.changes().replaces()).containsExactly(rs(R, "A", "me", "10.0.0.1"));
  }

  @Test
  void namesNoLongerWantedLoseOnlyPiersRecords() {
    Map<String, List<RecordSet>> desired = new LinkedHashMap<>();
    desired.put(N, List.of());
    var existing =
        Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1"), rs(N, "TXT", null, "\"hello\"")));
    var r = diff(desired, existing);
    assertThat(r.changes().deletes()).containsExactly(rs(N, "A", "me", "10.0.0.1"));
    assertThat(r.changes().replaces()).isEmpty();
    assertThat(r.conflicts()).isEmpty();
    assertThat(r.owned()).isEmpty();
  }

  @Test
  void existingNamesMissingFromDesiredAreRemoved() {
    var existing = Map.of(R, List.of(rs(R, "CNAME", "me", N)));
    var r = diff(Map.of(), existing);
    assertThat(r.changes().deletes()).containsExactly(rs(R, "CNAME", "me", N));
  }

  @Test
  void aForeignAddressRecordIsAConflictAndUntouched() {
    var desired = Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1")));
    var existing = Map.of(N, List.of(rs(N, "A", null, "192.0.2.1")));
    var r = diff(desired, existing);
    assertThat(r.changes().isEmpty()).isTrue();
    assertThat(r.conflicts()).hasSize(1);
    assertThat(r.conflicts().get(0).name()).isEqualTo(N);
    assertThat(r.conflicts().get(0).describe()).contains("A not created by Pier");
  }

  @Test
  void anotherOwnersRecordIsForeignToo() {
    var desired = Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1")));
    var existing = Map.of(N, List.of(rs(N, "A", "other", "10.0.0.1")));
    var r = diff(desired, existing);
    assertThat(r.changes().isEmpty()).isTrue();
    assertThat(r.conflicts().get(0).describe()).contains("owned by other");
  }

  @Test
  void aForeignTxtIsInTheWayOfACnameButNotOfAnA() {
    var existing = Map.of(R, List.of(rs(R, "TXT", null, "\"x\"")));
    var asCname = diff(Map.of(R, List.of(rs(R, "CNAME", "me", N))), existing);
    assertThat(asCname.conflicts()).hasSize(1);
    assertThat(asCname.changes().isEmpty()).isTrue();
    var asA = diff(Map.of(R, List.of(rs(R, "A", "me", "10.0.0.1"))), existing);
    assertThat(asA.conflicts()).isEmpty();
    assertThat(asA.changes().replaces()).containsExactly(rs(R, "A", "me", "10.0.0.1"));
  }

  @Test
  void aConflictAtOneNameLeavesTheOthersWorking() {
    Map<String, List<RecordSet>> desired = new LinkedHashMap<>();
    desired.put(R, List.of(rs(R, "A", "me", "10.0.0.1")));
    desired.put(N, List.of(rs(N, "A", "me", "10.0.0.1")));
    var existing = Map.of(N, List.of(rs(N, "CNAME", null, "elsewhere.example.org.")));
    var r = diff(desired, existing);
    assertThat(r.conflicts()).extracting(RecordDiff.Conflict::name).containsExactly(N);
    assertThat(r.changes().replaces()).containsExactly(rs(R, "A", "me", "10.0.0.1"));
    assertThat(r.owned()).containsExactly(R);
  }

  // --- cluster identity: the mark is "<ownerId>;cluster=<uid>", the old scheme "<ownerId>" ---

  private static final String MINE = RecordSet.ownerMark("me", "uid-a");
  private static final String THEIRS = RecordSet.ownerMark("me", "uid-b");

  private static RecordDiff.Result diffWithOld(
      Map<String, List<RecordSet>> desired, Map<String, List<RecordSet>> existing) {
    return RecordDiff.compute(desired, existing, MINE, "me");
  }

  @Test
  void theOwnerMarkCarriesTheOwnerIdAndTheClusterUid() {
    assertThat(MINE).isEqualTo("me;cluster=uid-a");
  }

  @Test
  void anotherClustersRecordWithTheSameOwnerIdIsAConflictAndNeverChanged() {
    var desired = Map.of(N, List.of(rs(N, "A", MINE, "10.0.0.1")));
    var existing = Map.of(N, List.of(rs(N, "A", THEIRS, "10.0.0.2")));
    var r = diffWithOld(desired, existing);
    assertThat(r.changes().isEmpty()).isTrue();
    assertThat(r.conflicts()).singleElement().satisfies(c -> assertThat(c.name()).isEqualTo(N));
    // A Service of this cluster without names here any more never deletes them either.
    var gone = diffWithOld(Map.of(N, List.of()), existing);
    assertThat(gone.changes().isEmpty()).isTrue();
  }

  @Test
  void anOldSchemeRecordWithExactlyWhatThisClusterWritesIsAdopted() {
    var desired = Map.of(N, List.of(rs(N, "A", MINE, "10.0.0.1", "10.0.0.2")));
    var existing = Map.of(N, List.of(rs(N, "A", "me", "10.0.0.2", "10.0.0.1")));
    var r = diffWithOld(desired, existing);
    assertThat(r.conflicts()).isEmpty();
    assertThat(r.changes().deletes()).isEmpty();
    // Rewritten with the new mark: the same records, now this cluster's.
    assertThat(r.changes().replaces()).containsExactly(rs(N, "A", MINE, "10.0.0.1", "10.0.0.2"));
    assertThat(r.adopted()).containsExactly(rs(N, "A", "me", "10.0.0.1", "10.0.0.2"));
    assertThat(r.owned()).containsExactly(N);
  }

  @Test
  void anOldSchemeRecordWithOtherContentIsAConflictAndNothingChanges() {
    var desired =
        Map.of(N, List.of(rs(N, "A", MINE, "10.0.0.1"), rs(N, "AAAA", MINE, "2001:db8::1")));
    var existing =
        Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1"), rs(N, "AAAA", "me", "2001:db8::9")));
    var r = diffWithOld(desired, existing);
    assertThat(r.changes().isEmpty()).isTrue();
    assertThat(r.adopted()).isEmpty();
    assertThat(r.conflicts())
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.describe())
                    .contains("AAAA")
                    .contains("owned by me (marked without a cluster"));
  }

  @Test
  void anOldSchemeRecordOfATypeThisClusterDoesNotWriteIsAConflict() {
    var desired = Map.of(R, List.of(rs(R, "CNAME", MINE, N)));
    var existing = Map.of(R, List.of(rs(R, "A", "me", "10.0.0.1")));
    var r = diffWithOld(desired, existing);
    assertThat(r.changes().isEmpty()).isTrue();
    assertThat(r.conflicts()).hasSize(1);
  }

  @Test
  void anOldSchemeRecordAtANameNoLongerWantedIsLeftAlone() {
    var existing = Map.of(N, List.of(rs(N, "A", "me", "10.0.0.1")));
    var r = diffWithOld(Map.of(N, List.of()), existing);
    assertThat(r.changes().isEmpty()).isTrue();
    assertThat(r.owned()).isEmpty();
  }
}
