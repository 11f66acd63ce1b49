package dev.pier.leader;

import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.KubeApiException;
import dev.pier.shards.LeaseSightings;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * This replica's proof that it is one of Pier's replicas: a {@code coordination.k8s.io} Lease of
 * its own, {@code <prefix>-replica-<node id>}, whose holder is its cluster node id, written with
 * Pier's ServiceAccount and renewed with every tick; deleted when the replica stops. Also reads
 * every Pier Lease of the namespace in one list (the replica Leases and the shard Leases), for
 * {@link dev.pier.shards.ReplicaProofs} and the rescue of abandoned shards. Non-blocking; runs on
 * the caller's context.
 */
public final class ReplicaLease {
  private static final String SELECTOR = "app.kubernetes.io%2Fname%3Dpier";

  /**
   * The Pier Leases of the namespace as one list read them, and the reply keys the replica Leases
   * publish, by the identity each names.
   */
  public record Snapshot(
      Map<String, LeaseSightings.Read> replicas,
      Map<Integer, LeaseSightings.Read> shards,
      Map<String, Set<String>> replyKeys) {}

  static final String IDENTITY_ANNOTATION = "pier.dev/replica-identity";
  static final String REPLY_KEY_ANNOTATION = "pier.dev/reply-key";

  private final Context context;
  private final AsyncKubeApi api;
  private final String namespace;
  private final String prefix;
  private final String nodeId;
  private final String identity;
  private final String replyKey;
  private final long durationSeconds;
  private final LongSupplier clock;
  private JsonObject lease;
  private long writtenAt;
  private boolean written;
  private boolean stopped;

  /**
   * @param nodeId this replica's cluster node id, the Lease's holder
   * @param identity the identity this replica writes into the shard Leases it holds (an annotation,
   *     for people reading the Lease)
   * @param replyKey the key this replica seals its answers on the cluster-wide addresses with
   */
  public ReplicaLease(
      Context context,
      AsyncKubeApi api,
      String namespace,
      String prefix,
      String nodeId,
      String identity,
      String replyKey,
      long durationSeconds) {
    this(
        context,
        api,
        namespace,
        prefix,
        nodeId,
        identity,
        replyKey,
        durationSeconds,
        System::nanoTime);
  }

  ReplicaLease(
      Context context,
      AsyncKubeApi api,
      String namespace,
      String prefix,
      String nodeId,
      String identity,
      String replyKey,
      long durationSeconds,
      LongSupplier clock) {
    this.context = context;
    this.api = api;
    this.namespace = namespace;
    this.prefix = prefix;
    this.nodeId = nodeId;
    this.identity = identity;
    this.replyKey = replyKey;
    this.durationSeconds = durationSeconds;
    this.clock = clock;
  }

  /**
   * The key this replica seals its answers on the cluster-wide addresses with; published in its
   * Lease, which only Pier's ServiceAccount can read or write.
   */
  public String replyKey() {
    return replyKey;
  }

  /** The Lease's name. */
  public String name() {
    return prefix + "-replica-" + nodeId;
  }

  /** Whether the last write of the Lease was sent less than {@code nanos} ago and succeeded. */
  public boolean writtenWithin(long nanos) {
    return written && clock.getAsLong() - writtenAt < nanos;
  }

  /** Creates the Lease, or renews it; after {@link #delete} does nothing. */
  public Future<Void> renew() {
    if (stopped) {
      return Future.succeededFuture();
    }
    long sent = clock.getAsLong();
    Future<JsonObject> write;
    if (lease == null) {
      write =
          api.post(context, collection(), newLease())
              .recover(
                  e ->
                      KubeApiException.conflict(e)
                          ? api.get(context, path()).compose(this::put)
                          : Future.failedFuture(e));
    } else {
      write = put(lease);
    }
    return write
        .onSuccess(
            written -> {
              lease = written;
              writtenAt = sent;
              this.written = true;
            })
        .onFailure(
            e -> {
              if (KubeApiException.conflict(e) || KubeApiException.notFound(e)) {
                lease = null;
              }
            })
        .mapEmpty();
  }

  /** Deletes the Lease: a replica that stops proves nothing any more. */
  public Future<Void> delete() {
    stopped = true;
    written = false;
    return api.delete(context, path(), null)
        .recover(
            e -> KubeApiException.notFound(e) ? Future.succeededFuture() : Future.failedFuture(e))
        .mapEmpty();
  }

  /**
   * Deletes another replica's Lease that has gone unrenewed (its replica died without deleting it),
   * only as it was read: the resourceVersion precondition makes the API server refuse the delete
   * when the replica renewed it since.
   */
  public Future<Void> deleteStale(String name, String resourceVersion) {
    JsonObject options =
        new JsonObject()
            .put("kind", "DeleteOptions")
            .put("apiVersion", "v1")
            .put("preconditions", new JsonObject().put("resourceVersion", resourceVersion));
    return api.delete(context, collection() + "/" + name, options).mapEmpty();
  }

  /** Reads every Pier Lease of the namespace: the replica Leases by name, the shards' by shard. */
  public Future<Snapshot> read() {
    return api.get(context, collection() + "?labelSelector=" + SELECTOR)
        .map(
            list -> {
              Map<String, LeaseSightings.Read> replicas = new HashMap<>();
              Map<Integer, LeaseSightings.Read> shards = new HashMap<>();
              Map<String, Set<String>> replyKeys = new HashMap<>();
              JsonArray items = list.getJsonArray("items", new JsonArray());
              for (int i = 0; i < items.size(); i++) {
                JsonObject item = items.getJsonObject(i);
                JsonObject metadata = item.getJsonObject("metadata", new JsonObject());
                String name = metadata.getString("name", "");
                LeaseSightings.Read read =
                    new LeaseSightings.Read(
                        item.getJsonObject("spec", new JsonObject())
                            .getString("holderIdentity", ""),
                        metadata.getString("resourceVersion", ""));
                if (name.startsWith(prefix + "-replica-")) {
                  replicas.put(name, read);
                  JsonObject annotations = metadata.getJsonObject("annotations", new JsonObject());
                  String owner = annotations.getString(IDENTITY_ANNOTATION, "");
                  String key = annotations.getString(REPLY_KEY_ANNOTATION, "");
                  if (!owner.isEmpty() && !key.isEmpty()) {
                    replyKeys.computeIfAbsent(owner, o -> new HashSet<>()).add(key);
                  }
                } else if (name.startsWith(prefix + "-shard-")) {
                  try {
                    shards.put(
                        Integer.parseInt(name.substring((prefix + "-shard-").length())), read);
                  } catch (NumberFormatException e) {
                    // Not one of this deployment's shard Leases.
                  }
                }
              }
              return new Snapshot(replicas, shards, replyKeys);
            });
  }

  private Future<JsonObject> put(JsonObject current) {
    JsonObject renewed = current.copy();
    JsonObject spec = renewed.getJsonObject("spec", new JsonObject());
    spec.put("holderIdentity", nodeId)
        .put("leaseDurationSeconds", durationSeconds)
        .put("renewTime", LeaseJson.now());
    renewed.put("spec", spec);
    JsonObject metadata = renewed.getJsonObject("metadata", new JsonObject());
    metadata.put("annotations", annotations());
    renewed.put("metadata", metadata);
    return api.put(context, path(), renewed);
  }

  private JsonObject newLease() {
    JsonObject lease = LeaseJson.held(name(), namespace, nodeId, durationSeconds);
    JsonObject metadata = lease.getJsonObject("metadata");
    metadata.getJsonObject("labels").put("pier.dev/replica", "true");
    metadata.put("annotations", annotations());
    return lease;
  }

  private JsonObject annotations() {
    return new JsonObject().put(IDENTITY_ANNOTATION, identity).put(REPLY_KEY_ANNOTATION, replyKey);
  }

  private String collection() {
    return LeaseJson.collection(namespace);
  }

  private String path() {
    return collection() + "/" + name();
  }
}
