package dev.pier.leader;

import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.KubeApiException;
import dev.pier.shards.LeaseSightings;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
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

  /** The Pier Leases of the namespace as one list read them. */
  public record Snapshot(
      Map<String, LeaseSightings.Read> replicas, Map<Integer, LeaseSightings.Read> shards) {}

  private final Context context;
  private final AsyncKubeApi api;
  private final String namespace;
  private final String prefix;
  private final String nodeId;
  private final String identity;
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
   */
  public ReplicaLease(
      Context context,
      AsyncKubeApi api,
      String namespace,
      String prefix,
      String nodeId,
      String identity,
      long durationSeconds) {
    this(context, api, namespace, prefix, nodeId, identity, durationSeconds, System::nanoTime);
  }

  ReplicaLease(
      Context context,
      AsyncKubeApi api,
      String namespace,
      String prefix,
      String nodeId,
      String identity,
      long durationSeconds,
      LongSupplier clock) {
    this.context = context;
    this.api = api;
    this.namespace = namespace;
    this.prefix = prefix;
    this.nodeId = nodeId;
    this.identity = identity;
    this.durationSeconds = durationSeconds;
    this.clock = clock;
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

  /** Reads every Pier Lease of the namespace: the replica Leases by name, the shards' by shard. */
  public Future<Snapshot> read() {
    return api.get(context, collection() + "?labelSelector=" + SELECTOR)
        .map(
            list -> {
              Map<String, LeaseSightings.Read> replicas = new HashMap<>();
              Map<Integer, LeaseSightings.Read> shards = new HashMap<>();
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
                } else if (name.startsWith(prefix + "-shard-")) {
                  try {
                    shards.put(
                        Integer.parseInt(name.substring((prefix + "-shard-").length())), read);
                  } catch (NumberFormatException e) {
                    // Not one of this deployment's shard Leases.
                  }
                }
              }
              return new Snapshot(replicas, shards);
            });
  }

  private Future<JsonObject> put(JsonObject current) {
    JsonObject renewed = current.copy();
    JsonObject spec = renewed.getJsonObject("spec", new JsonObject());
    spec.put("holderIdentity", nodeId)
        .put("leaseDurationSeconds", durationSeconds)
        .put("renewTime", LeaseJson.now());
    renewed.put("spec", spec);
    return api.put(context, path(), renewed);
  }

  private JsonObject newLease() {
    JsonObject lease = LeaseJson.held(name(), namespace, nodeId, durationSeconds);
    JsonObject metadata = lease.getJsonObject("metadata");
    metadata.getJsonObject("labels").put("pier.dev/replica", "true");
    metadata.put("annotations", new JsonObject().put("pier.dev/replica-identity", identity));
    return lease;
  }

  private String collection() {
    return LeaseJson.collection(namespace);
  }

  private String path() {
    return collection() + "/" + name();
  }
}
