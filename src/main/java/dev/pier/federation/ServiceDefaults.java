package dev.pier.federation;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a cluster fills in on a Service by itself: the values its API server defaults a field to,
 * and the fields it allocates. A copy never sets either: a field the host leaves at its default is
 * the member's to set (a policy engine's {@code externalTrafficPolicy: Local} stays), and an
 * allocation is the member's own.
 */
final class ServiceDefaults {
  private ServiceDefaults() {}

  /** spec fields and the value the API server defaults each to. */
  private static final Map<String, Object> SPEC =
      Map.of(
          "type", "ClusterIP",
          "sessionAffinity", "None",
          "externalTrafficPolicy", "Cluster",
          "internalTrafficPolicy", "Cluster",
          "allocateLoadBalancerNodePorts", true);

  /** spec fields each cluster allocates. */
  private static final Set<String> ALLOCATED =
      Set.of("clusterIP", "clusterIPs", "healthCheckNodePort", "ipFamilies", "ipFamilyPolicy");

  private static final String NODE_PORT = "nodePort";
  private static final String TARGET_PORT = "targetPort";

  /** The spec without the fields at their defaults (a port's targetPort equal to its port). */
  static JsonObject strip(JsonObject spec) {
    JsonObject out = spec.copy();
    SPEC.forEach(
        (field, value) -> {
          if (Objects.equals(out.getValue(field), value)) {
            out.remove(field);
          }
        });
    JsonArray ports = out.getJsonArray("ports");
    if (ports != null) {
      for (Object p : ports) {
        JsonObject port = (JsonObject) p;
        if (Objects.equals(port.getValue(TARGET_PORT), port.getValue("port"))) {
          port.remove(TARGET_PORT);
        }
      }
    }
    return out;
  }

  /** Whether the field at {@code path} holds its default in {@code service}. */
  static boolean isDefault(List<String> path, JsonObject service) {
    if (path.size() == 2 && path.get(0).equals("f:spec")) {
      Object def = SPEC.get(path.get(1).substring(2));
      return def != null && Objects.equals(def, FieldPaths.valueAt(service, path));
    }
    if (path.size() == 4
        && path.subList(0, 2).equals(FieldPaths.PORTS)
        && path.get(3).equals("f:" + TARGET_PORT)) {
      Object port = FieldPaths.valueAt(service, path.subList(0, 3));
      return port instanceof JsonObject p
          && Objects.equals(p.getValue(TARGET_PORT), p.getValue("port"));
    }
    return false;
  }

  /** Whether the field at {@code path} is one each cluster allocates for itself. */
  static boolean isAllocated(List<String> path) {
    if (path.size() >= 2 && path.get(0).equals("f:spec")) {
      if (ALLOCATED.contains(path.get(1).substring(2))) {
        return true;
      }
      return path.size() >= 4
          && path.subList(0, 2).equals(FieldPaths.PORTS)
          && path.get(3).equals("f:" + NODE_PORT);
    }
    return false;
  }
}
