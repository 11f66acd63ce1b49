package dev.pier.federation.sync;

import static dev.pier.federation.sync.FederationReconciler.RUN;

import dev.pier.federation.CopyState;
import dev.pier.federation.FederationOptions;
import dev.pier.kube.ClusterAccess;
import dev.pier.model.FederationKeys;
import dev.pier.model.ServiceKey;
import dev.pier.queue.WorkResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The record of the copies a release left behind. A host Service's record of its copies goes with
 * the Service; when its release gave up on a member (unreachable until the delete timeout, or not
 * ready when the Service stopped being federated), the uid of the copy there moves to one Secret in
 * {@code federation.secretNamespace}, {@code pier-left-copies-<federation>}, which only cluster
 * administrators may write. So that copy is still provably Pier's when its member is back, and
 * goes; then its entry goes too, and the Secret with its last one.
 *
 * <p>The host side writes it (like the member Secrets, under scale-out only shard 0's owner) and
 * keeps what it wrote; a member's side reads it afresh when it finds a marked Service that no other
 * record names, which is rare.
 */
final class LeftCopies {
  private static final Logger log = LoggerFactory.getLogger(FederationReconciler.class);

  private final Context ctx;
  private final ClusterAccess host;
  private final String namespace;
  private final String secret;
  private final Map<String, String> labels;
  private final ServiceCopies copies;

  /** The Secret's data as the host side read it once and then wrote it. */
  private Future<Map<String, String>> known;

  LeftCopies(Context ctx, ClusterAccess host, FederationOptions options, ServiceCopies copies) {
    this.ctx = ctx;
    this.host = host;
    this.namespace = options.secretNamespace();
    this.secret = FederationKeys.LEFT_COPIES_SECRET_PREFIX + options.name();
    this.labels = Map.of(FederationKeys.FEDERATION_LABEL, options.name());
    this.copies = copies;
  }

  /** The uid recorded for the member's copy of the key's Service, or null; read afresh. */
  Future<String> uid(String member, String ns, String name) {
    return host.federationWrites()
        .readLeftCopies(ctx, namespace, secret)
        .map(data -> data.get(entry(member, ns, name)));
  }

  /** Records the copies of the key's Service left behind, by member: their uids. */
  Future<Void> add(ServiceKey key, Map<String, String> uids) {
    if (uids.isEmpty()) {
      return Future.succeededFuture();
    }
    Map<String, String> changes = new TreeMap<>();
    uids.forEach((member, uid) -> changes.put(entry(member, key.namespace(), key.name()), uid));
    return write(changes);
  }

  /**
   * The key's Service is gone, or federated no more: the entries of its copies that are gone from
   * their members go too. A copy still there keeps its entry; its deletion runs this again.
   */
  Future<WorkResult> forget(ServiceKey key) {
    return known()
        .compose(
            data -> {
              Map<String, String> uids = new TreeMap<>();
              data.forEach(
                  (entry, uid) -> {
                    String[] p = entry.split("\\.");
                    if (p.length == 3 && p[1].equals(key.namespace()) && p[2].equals(key.name())) {
                      uids.put(p[0], uid);
                    }
                  });
              return uids.isEmpty()
                  ? Future.succeededFuture(WorkResult.success())
                  : forgetGone(key, uids);
            })
        .recover(
            e -> {
              log.warn(
                  "Federated Service {}/{}: the record of copies left behind (Secret {}/{}) cannot"
                      + " be updated: {}",
                  key.namespace(),
                  key.name(),
                  namespace,
                  secret,
                  e.getMessage());
              return Future.succeededFuture(WorkResult.retry(RUN));
            });
  }

  private Future<WorkResult> forgetGone(ServiceKey key, Map<String, String> uids) {
    return copies
        .read(key, uids.keySet())
        .compose(
            read -> {
              Map<String, String> gone = new TreeMap<>();
              uids.forEach(
                  (member, uid) -> {
                    CopyState s = read.known().get(member);
                    if (s != null && s.synced() && !(s.owned() && uid.equals(s.uid()))) {
                      gone.put(entry(member, key.namespace(), key.name()), null);
                    }
                  });
              return gone.isEmpty()
                  ? Future.succeededFuture(WorkResult.success())
                  : write(gone).map(v -> WorkResult.success());
            });
  }

  private Future<Void> write(Map<String, String> changes) {
    return known()
        .compose(
            data ->
                host.federationWrites()
                    .writeLeftCopies(ctx, namespace, secret, labels, changes)
                    .onSuccess(
                        v ->
                            changes.forEach(
                                (entry, uid) -> {
                                  if (uid == null) {
                                    data.remove(entry);
                                  } else {
                                    data.put(entry, uid);
                                  }
                                })));
  }

  private Future<Map<String, String>> known() {
    if (known == null || known.failed()) {
      known =
          host.federationWrites()
              .readLeftCopies(ctx, namespace, secret)
              .map(data -> (Map<String, String>) new HashMap<>(data));
    }
    return known;
  }

  /** A data key: member, namespace and name are DNS labels, none of which has a dot. */
  private static String entry(String member, String ns, String name) {
    return member + "." + ns + "." + name;
  }
}
