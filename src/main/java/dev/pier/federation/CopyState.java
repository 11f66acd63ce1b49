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
 * @param synced whether the member's Service cache has filled since Pier started
 * @param topology the member's region and zones
 * @param owned whether Pier owns a copy there (this federation's, of this host)
 * @param terminating the owned copy is being deleted, held by finalizers in the member
 * @param status the owned copy's {@code status.loadBalancer}; null when Pier owns no copy
 * @param readyEndpoints the owned copy has at least one ready endpoint
 */
public record CopyState(
    boolean synced,
    Topology topology,
    boolean owned,
    boolean terminating,
    LbStatus status,
    boolean readyEndpoints) {

  public CopyState {
    topology = topology == null ? new Topology(null, List.of()) : topology;
    if (!owned) {
      status = null;
      terminating = false;
      readyEndpoints = false;
    } else if (status == null) {
      status = LbStatus.EMPTY;
    }
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
          .put("loadBalancer", Views.statusJson(status));
    }
    return json;
  }

  /**
   * @throws IllegalArgumentException when {@code json} is not a copy state
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
      return new CopyState(
          json.getBoolean("synced", false),
          topology,
          owned,
          json.getBoolean("terminating", false),
          status,
          json.getBoolean("readyEndpoints", false));
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("not a copy state: " + e.getMessage(), e);
    }
  }
}
