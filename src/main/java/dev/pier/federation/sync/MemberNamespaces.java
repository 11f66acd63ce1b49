package dev.pier.federation.sync;

import dev.pier.federation.members.Member;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;

/**
 * The namespaces being created in members, each once: the copies for a namespace that come
 * meanwhile (a cold start makes many at once) wait for its create instead of each answering 404 and
 * trying it again. Runs on the federation's context.
 */
final class MemberNamespaces {
  private final Context ctx;
  private final String federation;

  /** Namespaces (member/namespace) being created. */
  private final Map<String, Future<Void>> creating = new HashMap<>();

  MemberNamespaces(Context ctx, String federation) {
    this.ctx = ctx;
    this.federation = federation;
  }

  /** Completes when the namespace's create in flight does (at once when none is). */
  Future<Void> ready(Member member, String ns) {
    Future<Void> inFlight = creating.get(key(member, ns));
    return inFlight == null ? Future.succeededFuture() : inFlight;
  }

  /** Creates a namespace the member said was missing, or joins the create in flight. */
  Future<Void> create(Member member, String ns) {
    String key = key(member, ns);
    Future<Void> inFlight = creating.get(key);
    if (inFlight != null) {
      return inFlight;
    }
    Future<Void> created =
        member
            .access()
            .federationWrites()
            .ensureNamespace(ctx, ns, federation)
            .onComplete(ar -> creating.remove(key));
    if (!created.isComplete()) {
      creating.put(key, created);
    }
    return created;
  }

  private static String key(Member member, String ns) {
    return member.name() + "/" + ns;
  }
}
