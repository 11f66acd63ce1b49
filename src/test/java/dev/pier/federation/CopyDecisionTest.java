package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.CopyDecision.Action;
import dev.pier.federation.CopyDecision.Facts;
import dev.pier.federation.CopyDecision.Update;
import dev.pier.federation.MemberServices.Ownership;
import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.json.JsonObject;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class CopyDecisionTest {
  private static final String DELETED_AT = "2026-03-01T12:00:00Z";

  /** The nonce of the host record's intent to make a copy in the member. */
  private static final String INTENT = "n-1";

  private static Service host(UnaryOperator<ServiceBuilder> edit) {
    return edit.apply(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName("web")
                .endMetadata())
        .build();
  }

  private static final Service HOST =
      host(b -> b.editMetadata().addToFinalizers(FederationKeys.FINALIZER).endMetadata());
  private static final Service HOST_WITHOUT_FINALIZER = host(b -> b);
  private static final Service HOST_DELETING =
      host(b -> b.editMetadata().withDeletionTimestamp(DELETED_AT).endMetadata());
  private static final Service HOST_DELETING_ORPHAN =
      host(
          b ->
              b.editMetadata()
                  .withDeletionTimestamp(DELETED_AT)
                  .addToAnnotations(FederationKeys.DELETE_POLICY_ANNOTATION, "orphan")
                  .endMetadata());
  private static final Service COPY = host(b -> b);
  private static final Service COPY_TERMINATING =
      host(
          b ->
              b.editMetadata()
                  .withDeletionTimestamp(DELETED_AT)
                  .addToFinalizers("example.com/hold")
                  .endMetadata());

  /** A ready member whose Services are read, with the host Service placed there and no copy. */
  private static Facts ready() {
    return new Facts(
        true,
        true,
        false,
        null,
        HOST,
        false,
        true,
        null,
        Ownership.ABSENT,
        INTENT,
        false,
        LeavePolicy.ORPHAN);
  }

  private static Facts unread(
      boolean namespaced, String unreadable, boolean refused, boolean wanted) {
    return new Facts(
        true,
        false,
        namespaced,
        unreadable,
        HOST,
        refused,
        wanted,
        null,
        Ownership.ABSENT,
        INTENT,
        false,
        LeavePolicy.ORPHAN);
  }

  /** Pier's copy, no longer wanted: placement dropped the member, unless the host says more. */
  private static Facts unwanted(Service host, Service copy, boolean leaving, LeavePolicy policy) {
    return new Facts(
        true, true, false, null, host, false, false, copy, Ownership.OWNED, null, leaving, policy);
  }

  private static Facts withCopy(Facts f, boolean wanted, Ownership ownership) {
    return new Facts(
        f.memberReady(),
        f.servicesRead(),
        f.namespacedMembers(),
        f.namespaceUnreadable(),
        f.host(),
        f.refused(),
        wanted,
        ownership == Ownership.ABSENT ? null : COPY,
        ownership,
        f.intent(),
        f.leaving(),
        f.leavePolicy());
  }

  @Test
  void aMemberUnknownOrNotReadyIsHeldAndNothingElseIsRead() {
    assertThat(CopyDecision.decide(Facts.memberUnavailable())).isEqualTo(Action.MEMBER_UNAVAILABLE);
  }

  @Test
  void aMemberWhoseServicesAreNotReadWaitsForTheirRead() {
    assertThat(CopyDecision.decide(unread(false, "forbidden", false, true)))
        .isEqualTo(Action.SERVICES_UNREAD);
  }

  @Test
  void withNamespacedMembersAnUnreadNamespaceWarnsOnlyWhenACopyIsWantedThere() {
    assertThat(CopyDecision.decide(unread(true, "forbidden", false, true)))
        .isEqualTo(Action.NAMESPACE_MISSING);
    assertThat(CopyDecision.decide(unread(true, null, false, true)))
        .as("no list failed yet")
        .isEqualTo(Action.NAMESPACE_UNREAD);
    assertThat(CopyDecision.decide(unread(true, "forbidden", true, true)))
        .as("refused: nothing is said of the member")
        .isEqualTo(Action.NAMESPACE_UNREAD);
    assertThat(CopyDecision.decide(unread(true, "forbidden", false, false)))
        .as("not placed there")
        .isEqualTo(Action.NAMESPACE_UNREAD);
  }

  @Test
  void aRefusedNamespaceChangesNothingEvenOfPiersCopy() {
    Facts f = unwanted(HOST, COPY, false, LeavePolicy.ORPHAN);
    Facts refused =
        new Facts(
            true,
            true,
            false,
            null,
            HOST,
            true,
            false,
            COPY,
            Ownership.OWNED,
            null,
            false,
            LeavePolicy.ORPHAN);
    assertThat(CopyDecision.decide(f)).isEqualTo(Action.DELETE_GUARDED);
    assertThat(CopyDecision.decide(refused)).isEqualTo(Action.REFUSED);
  }

  @Test
  void aWantedCopyIsCreatedUpdatedOrHeldByWhoseTheServiceThereIs() {
    assertThat(CopyDecision.decide(withCopy(ready(), true, Ownership.ABSENT)))
        .isEqualTo(Action.CREATE);
    assertThat(CopyDecision.decide(withCopy(ready(), true, Ownership.OWNED)))
        .isEqualTo(Action.UPDATE);
    assertThat(CopyDecision.decide(withCopy(ready(), true, Ownership.FOREIGN)))
        .isEqualTo(Action.CONFLICT);
  }

  /**
   * A copy made before the host Service carries the federation's finalizer could outlive a deletion
   * that asked to keep it (the Service would go at once, and its copy with it): the member key
   * waits for the host key's finalizer, whose write runs every key again.
   */
  @Test
  void noCopyIsCreatedBeforeTheHostServiceCarriesTheFinalizer() {
    Facts f = ready();
    Facts early =
        new Facts(
            f.memberReady(),
            f.servicesRead(),
            f.namespacedMembers(),
            f.namespaceUnreadable(),
            HOST_WITHOUT_FINALIZER,
            f.refused(),
            f.wanted(),
            f.copy(),
            f.ownership(),
            f.intent(),
            f.leaving(),
            f.leavePolicy());
    assertThat(CopyDecision.decide(early)).isEqualTo(Action.WAIT_FINALIZER);
    assertThat(CopyDecision.decide(withCopy(early, true, Ownership.OWNED)))
        .isEqualTo(Action.UPDATE);
  }

  /**
   * A copy is made only for an intent in the host Service's record, whose nonce it carries: what
   * proves it Pier's until its uid is recorded. A Service in adoption (the earlier version's
   * finalizer, no record) makes its copies as that version did.
   */
  @Test
  void noCopyIsCreatedWithoutTheHostRecordsIntentUnlessTheServiceIsInAdoption() {
    Facts f = ready();
    Facts noIntent =
        new Facts(
            f.memberReady(),
            f.servicesRead(),
            f.namespacedMembers(),
            f.namespaceUnreadable(),
            host(
                b ->
                    b.editMetadata()
                        .addToFinalizers(FederationKeys.FINALIZER)
                        .addToAnnotations(
                            FederationKeys.COPY_UIDS_ANNOTATION, "{\"west\":\"pending:n-2\"}")
                        .endMetadata()),
            f.refused(),
            f.wanted(),
            null,
            Ownership.ABSENT,
            null,
            f.leaving(),
            f.leavePolicy());
    assertThat(CopyDecision.decide(noIntent)).isEqualTo(Action.WAIT_INTENT);

    Facts inAdoption =
        new Facts(
            f.memberReady(),
            f.servicesRead(),
            f.namespacedMembers(),
            f.namespaceUnreadable(),
            HOST,
            f.refused(),
            f.wanted(),
            null,
            Ownership.ABSENT,
            null,
            f.leaving(),
            f.leavePolicy());
    assertThat(CopyDecision.decide(inAdoption)).isEqualTo(Action.CREATE);
  }

  @Test
  void noCopyWantedAndNoneOfPiersIsNothingToWrite() {
    assertThat(CopyDecision.decide(withCopy(ready(), false, Ownership.ABSENT)))
        .isEqualTo(Action.NOT_WANTED);
    assertThat(CopyDecision.decide(withCopy(ready(), false, Ownership.FOREIGN)))
        .as("someone else's Service is never deleted")
        .isEqualTo(Action.NOT_WANTED);
  }

  @Test
  void aLeaveOrphansTheCopiesUnlessItSaysDeleteCopies() {
    Facts orphaning = unwanted(HOST, COPY, true, LeavePolicy.ORPHAN);
    assertThat(CopyDecision.decide(orphaning)).isEqualTo(Action.ORPHAN_ON_LEAVE);
    assertThat(CopyDecision.deletionAsked(orphaning)).isFalse();
    Facts deleting = unwanted(HOST, COPY, true, LeavePolicy.DELETE_COPIES);
    assertThat(CopyDecision.decide(deleting)).isEqualTo(Action.DELETE);
    assertThat(CopyDecision.deletionAsked(deleting)).isTrue();
  }

  @Test
  void aHostDeletionWithTheOrphanPolicyOrphansTheCopy() {
    assertThat(CopyDecision.decide(unwanted(HOST_DELETING_ORPHAN, COPY, false, LeavePolicy.ORPHAN)))
        .isEqualTo(Action.ORPHAN_ON_DELETE);
    assertThat(
            CopyDecision.decide(
                unwanted(
                    host(
                        b ->
                            b.editMetadata()
                                .addToAnnotations(FederationKeys.DELETE_POLICY_ANNOTATION, "orphan")
                                .endMetadata()),
                    COPY,
                    false,
                    LeavePolicy.ORPHAN)))
        .as("the orphan policy counts only for a deletion")
        .isEqualTo(Action.DELETE_GUARDED);
  }

  @Test
  void aCopyBeingDeletedAlreadyIsWaitedFor() {
    assertThat(
            CopyDecision.decide(
                unwanted(HOST_DELETING, COPY_TERMINATING, false, LeavePolicy.ORPHAN)))
        .isEqualTo(Action.WAIT_TERMINATING);
    assertThat(CopyDecision.decide(unwanted(null, COPY_TERMINATING, false, LeavePolicy.ORPHAN)))
        .isEqualTo(Action.WAIT_TERMINATING);
  }

  @Test
  void aHostDeletionAsksForTheDeletionAndOnlyAnUnaskedOneGoesThroughTheGuard() {
    Facts deleted = unwanted(HOST_DELETING, COPY, false, LeavePolicy.ORPHAN);
    assertThat(CopyDecision.decide(deleted)).isEqualTo(Action.DELETE);
    assertThat(CopyDecision.deletionAsked(deleted)).isTrue();
    Facts placementDropped = unwanted(HOST, COPY, false, LeavePolicy.ORPHAN);
    assertThat(CopyDecision.decide(placementDropped)).isEqualTo(Action.DELETE_GUARDED);
    assertThat(CopyDecision.deletionAsked(placementDropped)).isFalse();
    Facts hostGone = unwanted(null, COPY, false, LeavePolicy.ORPHAN);
    assertThat(CopyDecision.decide(hostGone)).isEqualTo(Action.DELETE_GUARDED);
    assertThat(CopyDecision.deletionAsked(hostGone)).isFalse();
  }

  @Test
  void onlyTheDeleteActionsDeleteAndNoneOfThemForACopyPierDoesNotOwn() {
    Set<Action> deleting = EnumSet.of(Action.DELETE, Action.DELETE_GUARDED);
    for (Ownership o : EnumSet.of(Ownership.ABSENT, Ownership.FOREIGN)) {
      for (boolean wanted : new boolean[] {true, false}) {
        assertThat(deleting).doesNotContain(CopyDecision.decide(withCopy(ready(), wanted, o)));
      }
    }
  }

  @Test
  void anUpdateWaitsForTheCacheToShowPiersLastWrite() {
    CopyApply.Change apply = new CopyApply.Change(new JsonObject(), false);
    assertThat(CopyDecision.update("41", "42", apply)).isEqualTo(Update.CACHE_BEHIND);
    assertThat(CopyDecision.update("42", "42", apply)).isEqualTo(Update.APPLY);
    assertThat(CopyDecision.update("43", null, apply)).isEqualTo(Update.APPLY);
  }

  @Test
  void anUpdateWritesOnlyWhatTheCopyLacksMovingPiersFieldsFirstWhenNeeded() {
    assertThat(CopyDecision.update("42", null, null)).isEqualTo(Update.IN_SYNC);
    assertThat(CopyDecision.update("42", null, new CopyApply.Change(new JsonObject(), true)))
        .isEqualTo(Update.MIGRATE_AND_APPLY);
  }
}
