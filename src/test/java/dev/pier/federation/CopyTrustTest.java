package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.CopyDecision.Action;
import dev.pier.federation.CopyDecision.Facts;
import dev.pier.federation.MemberServices.Ownership;
import dev.pier.model.FederationKeys;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Which member Services are Pier's copies: those whose uid the host Service's record names (or,
 * until it does, that Pier made for the record's intent), not those that merely carry the
 * federation's marks.
 */
class CopyTrustTest {
  private static final String EAST = "east";
  private static final List<String> MEMBERS = List.of("east", "west");
  private static final List<String> WEST_ONLY = List.of("west");
  private static final Supplier<String> NONCES = () -> "n-new";
  private static final LbStatus TENANTS = new LbStatus(List.of(LbIngress.ip("203.0.113.66")));

  private static Service host(UnaryOperator<ServiceBuilder> edit) {
    return edit.apply(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web")
                .addToAnnotations(FederationKeys.FEDERATED_ANNOTATION, "true")
                .addToFinalizers(FederationKeys.FINALIZER)
                .endMetadata())
        .build();
  }

  /** A host Service of this version, with this record of its copies. */
  private static Service recorded(String record) {
    return host(
        b ->
            b.editMetadata()
                .addToAnnotations(FederationKeys.COPY_UIDS_ANNOTATION, record)
                .endMetadata());
  }

  /** A host Service federated by a version that kept no record: the finalizer, no record. */
  private static final Service EARLIER = host(b -> b);

  /** A member Service with the federation's marks (whoever put them there). */
  private static Service marked(String uid) {
    return new ServiceBuilder().withNewMetadata().withUid(uid).endMetadata().build();
  }

  /** A marked member Service carrying {@code nonce}. */
  private static Service marked(String uid, String nonce) {
    return new ServiceBuilder(marked(uid))
        .editMetadata()
        .addToAnnotations(FederationKeys.COPY_NONCE_ANNOTATION, nonce)
        .endMetadata()
        .build();
  }

  /** A marked Service as the member's side sends it. */
  private static CopyState seen(String uid, boolean proven) {
    return new CopyState(true, null, true, false, TENANTS, true, uid, proven, null, false);
  }

  /** A marked Service carrying {@code nonce}, as the member's side sends it. */
  private static CopyState carrying(String uid, String nonce, boolean disproven) {
    return new CopyState(true, null, true, false, TENANTS, true, uid, false, nonce, disproven);
  }

  private static CopyState unread() {
    return new CopyState(false, null, false, false, null, false);
  }

  private static CopyState none() {
    return CopyState.none(true, null);
  }

  private static CopyRecord next(
      CopyRecord record, Map<String, CopyState> read, List<String> placed) {
    return CopyTrust.next(record, read, placed, MEMBERS, NONCES);
  }

  /** The member key's facts: a ready member, the copy wanted there or not. */
  private static Facts facts(Service host, Service copy, Ownership ownership, boolean wanted) {
    return new Facts(
        true,
        true,
        false,
        null,
        host,
        false,
        wanted,
        copy,
        ownership,
        null,
        false,
        LeavePolicy.ORPHAN);
  }

  @Test
  void aMarkedServiceWhoseUidIsRecordedIsPiersCopy() {
    Service host = recorded("{\"east\":\"copy-1\"}");
    Service copy = marked("copy-1");

    Ownership whose = CopyTrust.whose(EAST, copy, true, host, null);

    assertThat(whose).isEqualTo(Ownership.OWNED);
    assertThat(CopyDecision.decide(facts(host, copy, whose, true))).isEqualTo(Action.UPDATE);
    CopyState state = seen("copy-1", false);
    assertThat(CopyTrust.believe(CopyRecord.of(host), EAST, state)).isEqualTo(state);
  }

  /**
   * A tenant who may create Services in the member namespace made one with the marks and a load
   * balancer of its own: it is someone else's. Nothing is written to it, its address reaches
   * neither the status nor DNS, and the member key warns.
   */
  @Test
  void aMarkedServiceWithAnotherUidIsSomeoneElses() {
    Service host = recorded("{\"east\":\"copy-1\"}");
    Service forged = marked("tenant-uid");

    Ownership whose = CopyTrust.whose(EAST, forged, true, host, null);

    assertThat(whose).isEqualTo(Ownership.FOREIGN);
    assertThat(CopyDecision.decide(facts(host, forged, whose, true)))
        .as("wanted there: a Warning, no write")
        .isEqualTo(Action.CONFLICT);
    assertThat(CopyDecision.decide(facts(host, forged, whose, false)))
        .as("not wanted there: never deleted")
        .isEqualTo(Action.NOT_WANTED);
    CopyState believed = CopyTrust.believe(CopyRecord.of(host), EAST, seen("tenant-uid", false));
    assertThat(believed.owned()).as("not aggregated").isFalse();
    assertThat(believed.status()).isNull();
    assertThat(believed.synced()).isTrue();
  }

  /** Before the host Service exists, or once it is gone with its record, marks prove nothing. */
  @Test
  void marksWithoutARecordAreNobodysCopyUnlessTheServiceIsInAdoption() {
    Service plain = host(b -> b.editMetadata().withFinalizers(List.of()).endMetadata());

    assertThat(CopyTrust.whose(EAST, marked("u"), true, null, null)).isEqualTo(Ownership.FOREIGN);
    assertThat(CopyTrust.whose(EAST, marked("u"), true, plain, null))
        .as("a Service never federated by an earlier version adopts nothing")
        .isEqualTo(Ownership.FOREIGN);
    assertThat(CopyTrust.whose(EAST, marked("u"), false, recorded("{\"east\":\"u\"}"), null))
        .as("a recorded uid without the marks: not a copy")
        .isEqualTo(Ownership.FOREIGN);
    assertThat(CopyTrust.whose(EAST, null, false, plain, null)).isEqualTo(Ownership.ABSENT);
  }

  /**
   * Upgrade: copies made by the earlier version carry the marks and no record names them. They
   * count as before until the host side has read every member, then their uids are recorded once;
   * after that only recorded uids count.
   */
  @Test
  void copiesOfAnEarlierVersionAreAdoptedOnce() {
    assertThat(CopyTrust.adopting(EARLIER)).isTrue();
    assertThat(CopyTrust.whose(EAST, marked("old-1"), true, EARLIER, null))
        .isEqualTo(Ownership.OWNED);
    assertThat(CopyTrust.believe(null, EAST, seen("old-1", false)).owned()).isTrue();

    assertThat(next(null, Map.of("east", seen("old-1", false)), MEMBERS))
        .as("west not read yet: still in adoption")
        .isNull();
    assertThat(next(null, Map.of("east", seen("old-1", false), "west", unread()), MEMBERS))
        .as("west's Services not read yet")
        .isNull();

    CopyRecord adopted = next(null, Map.of("east", seen("old-1", false), "west", none()), MEMBERS);

    assertThat(adopted.entries())
        .as("east's copy adopted; west, placed and without one, is to get one")
        .containsExactly(Map.entry("east", "old-1"), Map.entry("west", "pending:n-new"));
    Service after = recorded(adopted.json());
    assertThat(CopyTrust.adopting(after)).isFalse();
    assertThat(CopyTrust.whose(EAST, marked("old-1"), true, after, null))
        .isEqualTo(Ownership.OWNED);
    assertThat(CopyTrust.whose(EAST, marked("made-later"), true, after, null))
        .as("a marked Service made after the adoption is not adopted")
        .isEqualTo(Ownership.FOREIGN);
    assertThat(CopyTrust.whose("west", marked("made-later"), true, after, null))
        .isEqualTo(Ownership.FOREIGN);
  }

  /**
   * Pier made the copy: this process's proof makes it Pier's until the host side has recorded it; a
   * copy deleted there gets an intent again, and the one made for it is recorded by its new uid.
   */
  @Test
  void aCopyPierMadeIsRecordedAndOneMadeAgainReplacesItsEntry() {
    Service host = recorded("{\"east\":\"pending:n-1\"}");
    assertThat(CopyTrust.whose(EAST, marked("copy-1"), true, host, "copy-1"))
        .isEqualTo(Ownership.OWNED);
    assertThat(CopyTrust.believe(CopyRecord.of(host), EAST, seen("copy-1", true)).owned()).isTrue();

    CopyRecord first = next(CopyRecord.of(host), Map.of("east", seen("copy-1", true)), MEMBERS);
    assertThat(first.entries()).containsExactly(Map.entry("east", "copy-1"));

    CopyRecord gone = next(first, Map.of("east", none()), MEMBERS);
    assertThat(gone.entries())
        .as("deleted there while still placed: a copy is to be made again")
        .containsExactly(Map.entry("east", "pending:n-new"));
    CopyRecord again = next(gone, Map.of("east", seen("copy-2", true)), MEMBERS);
    assertThat(again.entries()).containsExactly(Map.entry("east", "copy-2"));
    assertThat(CopyTrust.whose(EAST, marked("copy-1"), true, recorded(again.json()), null))
        .as("the old uid counts no more")
        .isEqualTo(Ownership.FOREIGN);
  }

  @Test
  void anEntryGoesOnceItsCopyIsGone() {
    CopyRecord record = new CopyRecord(new TreeMap<>(Map.of("east", "c1", "west", "c2")));

    assertThat(next(record, Map.of("east", none()), WEST_ONLY).entries())
        .as("east read, no copy there, no longer placed there")
        .containsExactly(Map.entry("west", "c2"));
    assertThat(next(record, Map.of("east", seen("tenant-uid", false)), MEMBERS).entries())
        .as("east's copy replaced by someone else's: Pier's is gone, the other is not recorded")
        .containsExactly(Map.entry("west", "c2"));
    assertThat(next(record, Map.of("east", unread()), WEST_ONLY))
        .as("east not read yet: nothing is known gone")
        .isEqualTo(record);
    assertThat(next(record, Map.of("east", seen("c1", false)), MEMBERS)).isEqualTo(record);
  }

  /**
   * Pier made the copy for the record's intent and stopped before the host side recorded its uid:
   * the nonce it carries proves it Pier's, and its uid is recorded. A tenant cannot know the nonce
   * before Pier's copy shows it; one who copies it onto a Service of their own while Pier's proof
   * of its own copy is at hand gains nothing.
   */
  @Test
  void aCopyMadeForTheRecordsIntentIsPiersByItsNonceUntilItsUidIsRecorded() {
    Service host = recorded("{\"east\":\"pending:n-1\"}");
    CopyRecord record = CopyRecord.of(host);

    assertThat(CopyTrust.whose(EAST, marked("copy-1", "n-1"), true, host, null))
        .isEqualTo(Ownership.OWNED);
    assertThat(CopyTrust.whose(EAST, marked("tenant-uid", "guessed"), true, host, null))
        .isEqualTo(Ownership.FOREIGN);
    assertThat(CopyTrust.whose(EAST, marked("tenant-uid", "n-1"), true, host, "copy-1"))
        .as("the nonce copied onto another Service, while Pier's proof of its own copy is at hand")
        .isEqualTo(Ownership.FOREIGN);

    assertThat(CopyTrust.believe(record, EAST, carrying("copy-1", "n-1", false)).owned()).isTrue();
    assertThat(CopyTrust.believe(record, EAST, carrying("tenant-uid", "n-1", true)).owned())
        .isFalse();
    assertThat(next(record, Map.of("east", carrying("copy-1", "n-1", false)), MEMBERS).entries())
        .containsExactly(Map.entry("east", "copy-1"));
    assertThat(
            next(record, Map.of("east", carrying("tenant-uid", "guessed", false)), MEMBERS)
                .entries())
        .as("the name is someone else's: no copy can be made there, the intent goes")
        .isEmpty();
    assertThat(next(record, Map.of("east", none()), MEMBERS))
        .as("the copy is on its way: the intent stays as it is")
        .isEqualTo(record);
    assertThat(next(record, Map.of("east", none()), WEST_ONLY).entries())
        .as("no longer placed there: the intent goes")
        .isEmpty();
  }

  @Test
  void aNewIntentIsWhatRunsTheMemberKeys() {
    CopyRecord recorded = CopyRecord.EMPTY.with("east", "copy-1");
    CopyRecord intent = recorded.withIntent("west", "n-1");

    assertThat(CopyRecord.addsIntent(recorded, intent)).isTrue();
    assertThat(CopyRecord.addsIntent(null, intent)).isTrue();
    assertThat(CopyRecord.addsIntent(intent, intent.with("west", "copy-2")))
        .as("an intent fulfilled")
        .isFalse();
    assertThat(CopyRecord.addsIntent(intent, recorded)).isFalse();
    assertThat(intent.intent("west")).isEqualTo("n-1");
    assertThat(intent.uid("west")).isNull();
    assertThat(intent.uid("east")).isEqualTo("copy-1");
  }

  @Test
  void theRecordIsOneSortedJsonObjectAndAnUnreadableOneBelievesNothing() {
    CopyRecord r = CopyRecord.EMPTY.withIntent("west", "n").with("east", "e");
    assertThat(r.json()).isEqualTo("{\"east\":\"e\",\"west\":\"pending:n\"}");
    assertThat(CopyRecord.parse(r.json())).isEqualTo(r);
    assertThat(r.without("west").json()).isEqualTo("{\"east\":\"e\"}");
    for (String bad :
        List.of(
            "", "[]", "{\"east\":1}", "not json", "{\"east\":\"\"}", "{\"east\":\"pending:\"}")) {
      assertThat(CopyRecord.parse(bad)).as(bad).isEqualTo(CopyRecord.EMPTY);
    }
    assertThat(CopyTrust.whose(EAST, marked("e"), true, recorded("[\"e\"]"), null))
        .isEqualTo(Ownership.FOREIGN);
  }
}
