package dev.pier.federation.sync;

import dev.pier.federation.CopyState;
import dev.pier.federation.MemberServices;
import dev.pier.federation.members.Member;
import dev.pier.model.Views;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import java.util.function.Function;

/**
 * Where the host's aggregate reads a member's copy: the member's own caches where this replica owns
 * the member, else its owner over the clustered event bus ({@link CopyExchange}). A read that fails
 * leaves the copy unknown, and unknown is not unhealthy: the aggregate waits.
 */
@FunctionalInterface
interface CopyReader {
  Future<CopyState> read(Member member, String namespace, String name);

  /** How many copies Pier owns in the member, as its caches in this replica show them. */
  static int owned(Member member, Function<Service, MemberServices.Ownership> ownership) {
    int n = 0;
    for (Service s : member.access().services()) {
      if (ownership.apply(s) == MemberServices.Ownership.OWNED) {
        n++;
      }
    }
    return n;
  }

  /** The copy's state from the member's caches, which this replica holds. */
  static CopyState local(
      Member member,
      String namespace,
      String name,
      Function<Service, MemberServices.Ownership> ownership) {
    Service copy = member.access().service(namespace, name);
    // A namespace read on its own counts alone: another one missing in the member holds up nothing.
    boolean synced = member.access().servicesSynced(namespace);
    if (ownership.apply(copy) != MemberServices.Ownership.OWNED) {
      return CopyState.none(synced, member.topology());
    }
    return new CopyState(
        synced,
        member.topology(),
        true,
        copy.getMetadata().getDeletionTimestamp() != null,
        Views.status(copy.getStatus() == null ? null : copy.getStatus().getLoadBalancer()),
        member.hasReadyEndpoints(namespace, name));
  }
}
