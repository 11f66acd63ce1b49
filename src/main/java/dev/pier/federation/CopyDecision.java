package dev.pier.federation;

import dev.pier.model.ResourceVersions;
import io.fabric8.kubernetes.api.model.Service;

/**
 * The decisions of a member key's run, as pure functions of what the run read: the member's state,
 * the host Service, the copy in the member and whose it is ({@link CopyTrust}). The member side of
 * the federation's reconciler carries them out. A member Service Pier did not make, whatever marks
 * it carries, is never changed or deleted, and a member that is unknown, not ready or not read yet
 * has nothing deleted in it.
 */
public final class CopyDecision {
  private CopyDecision() {}

  /** What a member key's run does with the copy. */
  public enum Action {
    /** Hold: the member is unknown or not ready; a member turning ready runs every key again. */
    MEMBER_UNAVAILABLE,
    /** Hold: the member's Services are not read yet; their read runs every key again. */
    SERVICES_UNREAD,
    /** Wait (memberScope namespaces): the key's namespace cannot be read there yet; no Warning. */
    NAMESPACE_UNREAD,
    /**
     * Wait (memberScope namespaces): a copy is wanted in a namespace the member does not let Pier
     * read or write: a Warning says so, and Pier never creates the namespace.
     */
    NAMESPACE_MISSING,
    /**
     * Hold: federation asked for in a namespace not opted in; nothing is created, changed or
     * deleted.
     */
    REFUSED,
    /** Hold: a copy is wanted, but a Service of that name that Pier did not create is there. */
    CONFLICT,
    /**
     * Wait: a copy is wanted, but the host Service does not carry the federation's finalizer yet. A
     * copy made before it could outlive a deletion that asked to keep it, or the other way round:
     * the Service would go at once, before Pier saw the deletion. The host key adds the finalizer,
     * and that change runs every key again.
     */
    WAIT_FINALIZER,
    /**
     * Wait: a copy is wanted and there is none, but the host Service's record has no intent for
     * this member yet: the copy is made carrying the intent's nonce, so that it is provably Pier's
     * before its uid is recorded. The host key writes the intent, and that change runs every key
     * again.
     */
    WAIT_INTENT,
    /**
     * Ensure: a copy is wanted, there is none, the host Service carries the finalizer and an intent
     * for this member (or is in adoption, {@link CopyTrust#adopting}).
     */
    CREATE,
    /** Ensure: a copy is wanted and Pier's is there: bring it in line ({@link #update}). */
    UPDATE,
    /** No copy is wanted and there is none of Pier's: nothing to write. */
    NOT_WANTED,
    /** Orphan: the member left the federation with the orphan policy. */
    ORPHAN_ON_LEAVE,
    /** Orphan: the host Service is being deleted with its copies left in place. */
    ORPHAN_ON_DELETE,
    /** Wait: the copy is being deleted already, held by finalizers in the member. */
    WAIT_TERMINATING,
    /** Delete: asked for, by the host Service's deletion or a leave that deletes the copies. */
    DELETE,
    /**
     * Delete unless the deletion guard holds it: no one asked (placement dropped the member, or the
     * host Service is gone).
     */
    DELETE_GUARDED
  }

  /** What an update of Pier's copy does. */
  public enum Update {
    /**
     * The cache has not seen Pier's last write to the copy; that write's event runs the key again.
     */
    CACHE_BEHIND,
    /** The copy is as the host wants it: nothing to write. */
    IN_SYNC,
    /** Apply the host's fields. */
    APPLY,
    /** Move Pier's earlier Update ownership to its apply manager, then apply the host's fields. */
    MIGRATE_AND_APPLY
  }

  /**
   * What a member key's run read.
   *
   * @param memberReady the member is known and ready
   * @param servicesRead the member's Services in the key's namespace are read
   * @param namespacedMembers members grant a Role per listed namespace (memberScope namespaces)
   * @param namespaceUnreadable why a list of the key's namespace in the member failed, or null
   * @param host the host Service, or null when it is gone
   * @param refused the host Service asks for federation from a namespace not opted in ({@link
   *     FederationScope#refused})
   * @param wanted the member is to have a copy ({@link FederationScope#wanted})
   * @param copy the member's Service of the key, or null
   * @param ownership whose that Service is ({@link CopyTrust#whose})
   * @param intent the nonce of the host record's intent to make a copy in this member, or null
   * @param leaving the member is leaving the federation
   * @param leavePolicy what its leaving does to the copies Pier owns there
   */
  public record Facts(
      boolean memberReady,
      boolean servicesRead,
      boolean namespacedMembers,
      String namespaceUnreadable,
      Service host,
      boolean refused,
      boolean wanted,
      Service copy,
      MemberServices.Ownership ownership,
      String intent,
      boolean leaving,
      LeavePolicy leavePolicy) {

    /** A member that is unknown or not ready: nothing else is read. */
    public static Facts memberUnavailable() {
      return new Facts(
          false,
          false,
          false,
          null,
          null,
          false,
          false,
          null,
          MemberServices.Ownership.ABSENT,
          null,
          false,
          LeavePolicy.ORPHAN);
    }
  }

  /** What the run does with the copy. */
  public static Action decide(Facts f) {
    if (!f.memberReady()) {
      return Action.MEMBER_UNAVAILABLE;
    }
    if (!f.servicesRead()) {
      return unread(f);
    }
    if (f.refused()) {
      return Action.REFUSED;
    }
    if (f.wanted()) {
      return switch (f.ownership()) {
        case FOREIGN -> Action.CONFLICT;
        case ABSENT -> absent(f);
        case OWNED -> Action.UPDATE;
      };
    }
    if (f.ownership() != MemberServices.Ownership.OWNED) {
      return Action.NOT_WANTED;
    }
    return unwanted(f);
  }

  /**
   * Whether the host Service's deletion or the member's leave asked for the copy's deletion: such a
   * deletion does not go through the deletion guard.
   */
  public static boolean deletionAsked(Facts f) {
    return hostDeleting(f.host()) || (f.leaving() && f.leavePolicy() == LeavePolicy.DELETE_COPIES);
  }

  /**
   * What an update of Pier's copy does.
   *
   * @param cachedVersion the copy's resourceVersion in the cache
   * @param lastWritten the version Pier's last apply to this copy answered with, or null
   * @param change what the copy needs ({@link MemberServices#change}), or null for nothing
   */
  public static Update update(String cachedVersion, String lastWritten, CopyApply.Change change) {
    if (ResourceVersions.older(cachedVersion, lastWritten)) {
      return Update.CACHE_BEHIND;
    }
    if (change == null) {
      return Update.IN_SYNC;
    }
    return change.migrate() ? Update.MIGRATE_AND_APPLY : Update.APPLY;
  }

  /** A wanted copy that is not there. */
  private static Action absent(Facts f) {
    if (!Federated.hasFinalizer(f.host())) {
      return Action.WAIT_FINALIZER;
    }
    return f.intent() != null || CopyTrust.adopting(f.host()) ? Action.CREATE : Action.WAIT_INTENT;
  }

  private static Action unread(Facts f) {
    if (!f.namespacedMembers()) {
      return Action.SERVICES_UNREAD;
    }
    return f.namespaceUnreadable() != null && !f.refused() && f.wanted()
        ? Action.NAMESPACE_MISSING
        : Action.NAMESPACE_UNREAD;
  }

  /** Pier's copy, no longer wanted in the member. */
  private static Action unwanted(Facts f) {
    if (f.leaving() && f.leavePolicy() == LeavePolicy.ORPHAN) {
      return Action.ORPHAN_ON_LEAVE;
    }
    if (hostDeleting(f.host()) && Federated.orphanOnDelete(f.host())) {
      return Action.ORPHAN_ON_DELETE;
    }
    if (f.copy().getMetadata().getDeletionTimestamp() != null) {
      return Action.WAIT_TERMINATING;
    }
    return deletionAsked(f) ? Action.DELETE : Action.DELETE_GUARDED;
  }

  private static boolean hostDeleting(Service host) {
    return host != null && host.getMetadata().getDeletionTimestamp() != null;
  }
}
