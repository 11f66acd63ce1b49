package dev.pier.federation;

import dev.pier.federation.MemberServices.Ownership;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Which member Services are Pier's copies. The federation's marks (its label, the host cluster's
 * uid) say only that a Service claims to be one: anyone who may create Services in a member
 * namespace can put them on one. A copy is Pier's when Pier made it: its uid is the one the host
 * Service's {@link CopyRecord} names for that member, or, until the host side has recorded it, this
 * process made it, or it carries the nonce of the record's intent. A Service federated by a version
 * that kept no record (it carries the federation's finalizer and no record) is in adoption: its
 * marked copies count as before, until the host side has read every member and records them, once.
 */
public final class CopyTrust {
  private CopyTrust() {}

  /**
   * Whose a member Service is, as a member key's run decides.
   *
   * @param member the member's name
   * @param copy the member's Service of the key, or null
   * @param marked it carries this federation's marks from this host ({@link MemberServices#marked})
   * @param host the host Service, or null when it is gone
   * @param proof the uid of a copy of this key this process proved Pier's beyond the record (it
   *     made it, or the record of copies left behind names it), or null
   */
  public static Ownership whose(
      String member, Service copy, boolean marked, Service host, String proof) {
    if (copy == null) {
      return Ownership.ABSENT;
    }
    String uid = copy.getMetadata().getUid();
    if (!marked || uid == null) {
      return Ownership.FOREIGN;
    }
    if (uid.equals(proof)) {
      return Ownership.OWNED;
    }
    if (host == null) {
      return Ownership.FOREIGN;
    }
    if (adopting(host)) {
      return Ownership.OWNED;
    }
    CopyRecord record = CopyRecord.of(host);
    if (record == null) {
      return Ownership.FOREIGN;
    }
    boolean ours =
        uid.equals(record.uid(member))
            || (proof == null && madeFor(record.intent(member), MemberServices.nonce(copy)));
    return ours ? Ownership.OWNED : Ownership.FOREIGN;
  }

  /**
   * Whether the host Service was federated by a version that kept no record of its copies: it
   * carries the federation's finalizer, which Pier writes together with the record, and no record.
   */
  public static boolean adopting(Service host) {
    return host != null && Federated.hasFinalizer(host) && CopyRecord.of(host) == null;
  }

  /**
   * The member's copy as the host side takes it: Pier's when the record names its uid, when the
   * member's side proved it Pier's, when it carries the nonce of the record's intent and the
   * member's side knows of no other copy, or while the Service is in adoption ({@code record}
   * null); otherwise no copy at all, so that someone else's Service never reaches the status or
   * DNS.
   */
  public static CopyState believe(CopyRecord record, String member, CopyState state) {
    if (!state.owned()
        || record == null
        || state.proven()
        || (state.uid() != null && state.uid().equals(record.uid(member)))
        || (!state.disproven() && madeFor(record.intent(member), state.nonce()))) {
      return state;
    }
    return CopyState.none(state.synced(), state.topology());
  }

  /**
   * The record after a run of the host key read {@code read}, by member.
   *
   * <p>In adoption ({@code record} null), once every member's Services are read: the uid of every
   * marked copy, Pier's by the earlier version's rule, taken once, and an intent for each placed
   * member without one; until then null (the Service stays in adoption).
   *
   * <p>Otherwise, for each member whose Services are read: a copy Pier made (proven by the member's
   * side, or carrying the nonce of the entry's intent) is recorded by its uid, in place of the
   * intent or of an older copy's uid; a marked Service of someone else's voids the entry (Pier's
   * copy is gone, and none can be made while the name is taken); where there is none, a placed
   * member gets an intent (a copy is to be made, again if one was there) and another member loses
   * its entry. Members not read keep theirs.
   *
   * @param placed the members the Service is placed in
   * @param members every member of the federation
   * @param nonces a new nonce each time, never guessed
   */
  public static CopyRecord next(
      CopyRecord record,
      Map<String, CopyState> read,
      Collection<String> placed,
      Collection<String> members,
      Supplier<String> nonces) {
    if (record == null) {
      return adopt(read, placed, members, nonces);
    }
    CopyRecord next = record;
    for (Map.Entry<String, CopyState> e : new TreeMap<>(read).entrySet()) {
      String member = e.getKey();
      CopyState s = e.getValue();
      if (!s.synced()) {
        continue;
      }
      if (s.owned() && s.uid() != null) {
        if (s.uid().equals(record.uid(member))) {
          continue;
        }
        boolean made = s.proven() || (!s.disproven() && madeFor(record.intent(member), s.nonce()));
        next = made ? next.with(member, s.uid()) : next.without(member);
      } else if (placed.contains(member)) {
        if (record.intent(member) == null) {
          next = next.withIntent(member, nonces.get());
        }
      } else {
        next = next.without(member);
      }
    }
    return next;
  }

  private static CopyRecord adopt(
      Map<String, CopyState> read,
      Collection<String> placed,
      Collection<String> members,
      Supplier<String> nonces) {
    CopyRecord adopted = CopyRecord.EMPTY;
    for (String member : members) {
      CopyState s = read.get(member);
      if (s == null || !s.synced()) {
        return null;
      }
      if (s.owned() && s.uid() != null) {
        adopted = adopted.with(member, s.uid());
      } else if (placed.contains(member)) {
        adopted = adopted.withIntent(member, nonces.get());
      }
    }
    return adopted;
  }

  /** Whether a copy carrying {@code nonce} was made for the intent {@code intent}. */
  private static boolean madeFor(String intent, String nonce) {
    return intent != null && intent.equals(nonce);
  }
}
