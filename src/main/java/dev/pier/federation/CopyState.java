package dev.pier.federation;

import dev.pier.model.LbStatus;
import dev.pier.model.Views;
import dev.pier.nodes.Topology;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What the host's aggregate needs of one member's copy of a federated Service: read from the
 * member's caches by the replica that owns the member, and with scale-out sent to the host's owner
 * over the clustered event bus as this small record (never the Service).
 *
 * <p>The member's side sends what the member has: a Service with the federation's marks is {@code
 * owned} there, with its uid. Whether it is Pier's copy is the host side's to say, against the host
 * Service's {@link CopyRecord} ({@link CopyTrust#believe}); a state the host side does not believe
 * is {@link #none}.
 *
 * @param synced whether the member's Service cache has filled since Pier started
 * @param topology the member's region and zones
 * @param owned whether the member has a Service with this federation's marks from this host (as the
 *     member's side sends it), or Pier's copy (once the host side believed it)
 * @param terminating the owned copy is being deleted, held by finalizers in the member
 * @param status the owned copy's {@code status.loadBalancer}; null when Pier owns no copy
 * @param readyEndpoints the owned copy has at least one ready endpoint
 * @param uid the owned copy's uid; null when Pier owns no copy
 * @param proven the member's side proved the copy Pier's beyond the host's record: Pier made it
 *     (the record of it is on its way) or the record of copies left behind names it
 * @param nonce the nonce the owned copy carries ({@code pier.dev/copy-nonce}), or null
 * @param disproven the member's side holds proof of another copy there: this one is not Pier's,
 *     whatever nonce it carries
 */
public record CopyState(
    boolean synced,
    Topology topology,
    boolean owned,
    boolean terminating,
    LbStatus status,
    boolean readyEndpoints,
    String uid,
    boolean proven,
    String nonce,
    boolean disproven) {

  public CopyState {
    topology = topology == null ? new Topology(null, List.of()) : topology;
    if (!owned) {
      status = null;
      terminating = false;
      readyEndpoints = false;
      uid = null;
      proven = false;
      nonce = null;
      disproven = false;
    } else if (status == null) {
      status = LbStatus.EMPTY;
    }
  }

  /** A copy with no uid to check and no proof: as a state the host side believed already. */
  public CopyState(
      boolean synced,
      Topology topology,
      boolean owned,
      boolean terminating,
      LbStatus status,
      boolean readyEndpoints) {
    this(synced, topology, owned, terminating, status, readyEndpoints, null, false, null, false);
  }

  /** No copy Pier owns. */
  public static CopyState none(boolean synced, Topology topology) {
    return new CopyState(synced, topology, false, false, null, false);
  }

  public JsonObject toJson() {
    JsonObject json =
        new JsonObject()
            .put("synced", synced)
            .put("zones", new JsonArray(topology.zones()))
            .put("owned", owned);
    if (topology.region() != null) {
      json.put("region", topology.region());
    }
    if (owned) {
      json.put("terminating", terminating)
          .put("readyEndpoints", readyEndpoints)
          .put("loadBalancer", Views.statusJson(status))
          .put("proven", proven)
          .put("disproven", disproven);
      if (uid != null) {
        json.put("uid", uid);
      }
      if (nonce != null) {
        json.put("nonce", nonce);
      }
    }
    return json;
  }

  /**
   * @throws IllegalArgumentException when {@code json} is not a copy state, or an owned copy comes
   *     without its uid (a replica of an earlier version: the read fails, and the aggregate waits)
   */
  public static CopyState fromJson(JsonObject json) {
    try {
      JsonArray zones = json.getJsonArray("zones", new JsonArray());
      Topology topology =
          new Topology(json.getString("region"), zones.stream().map(String.class::cast).toList());
      boolean owned = json.getBoolean("owned", false);
      LbStatus status =
          owned
              ? Views.statusFromServiceJson(
                  new JsonObject()
                      .put(
                          "status",
                          new JsonObject()
                              .put(
                                  "loadBalancer",
                                  json.getJsonObject("loadBalancer", new JsonObject()))))
              : null;
      String uid = json.getString("uid");
      if (owned && uid == null) {
        // From a replica of an earlier version: its copy cannot be checked against the record.
        throw new IllegalArgumentException("not a copy state: an owned copy without its uid");
      }
      return new CopyState(
          json.getBoolean("synced", false),
          topology,
          owned,
          json.getBoolean("terminating", false),
          status,
          json.getBoolean("readyEndpoints", false),
          uid,
          json.getBoolean("proven", false),
          json.getString("nonce"),
          json.getBoolean("disproven", false));
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("not a copy state: " + e.getMessage(), e);
    }
  }
}
