package dev.pier.federation.sync;

import dev.pier.federation.CopyState;
import dev.pier.federation.MemberServices;
import dev.pier.federation.members.Member;
import dev.pier.model.Views;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * Where the host's aggregate reads a member's copy: the member's own caches where this replica owns
 * the member, else its owner over the clustered event bus ({@link CopyExchange}). A read that fails
 * leaves the copy unknown, and unknown is not unhealthy: the aggregate waits.
 */
@FunctionalInterface
interface CopyReader {
  Future<CopyState> read(Member member, String namespace, String name);

  /** What this replica's caches say of the copies in the members it owns. */
  interface Local {
    /** The member's Service of this name as a {@link CopyState}. */
    CopyState state(Member member, String namespace, String name);

    /** How many copies Pier owns in the member. */
    int owned(Member member);
  }

  /** How many of the member's Services, as its caches in this replica show them, are Pier's. */
  static int owned(Member member, BiPredicate<String, Service> ours) {
    int n = 0;
    for (Service s : member.access().services()) {
      if (ours.test(member.name(), s)) {
        n++;
      }
    }
    return n;
  }

  /**
   * The member's Service of this name from the member's caches, which this replica holds: a Service
   * with the federation's marks is sent with its uid, and whether this process proved it Pier's;
   * the host side decides whether it is ({@code CopyTrust.believe}).
   *
   * @param marked whether a Service carries this federation's marks from this host
   * @param proven the uid this process proved Pier's for the member's Service of this name, or null
   */
  static CopyState local(
      Member member, String namespace, String name, Predicate<Service> marked, String proven) {
    Service copy = member.access().service(namespace, name);
    // A namespace read on its own counts alone: another one missing in the member holds up nothing.
    boolean synced = member.access().servicesSynced(namespace);
    if (!marked.test(copy)) {
      return CopyState.none(synced, member.topology());
    }
    String uid = copy.getMetadata().getUid();
    boolean proof = uid != null && uid.equals(proven);
    return new CopyState(
        synced,
        member.topology(),
        true,
        copy.getMetadata().getDeletionTimestamp() != null,
        Views.status(copy.getStatus() == null ? null : copy.getStatus().getLoadBalancer()),
        member.hasReadyEndpoints(namespace, name),
        uid,
        proof,
        MemberServices.nonce(copy),
        proven != null && !proof);
  }
}
