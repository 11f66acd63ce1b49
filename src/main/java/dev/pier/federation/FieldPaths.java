package dev.pier.federation;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Paths of a Service's fields in the API server's managed-fields notation ({@code fieldsV1}): a
 * field is {@code f:<name>}, an item of {@code spec.ports} (a list keyed by port and protocol) is
 * {@code k:{"port":80,"protocol":"TCP"}}, and every other list is one value. A path is the list of
 * its steps from the object's root.
 */
public final class FieldPaths {
  static final List<String> PORTS = List.of("f:spec", "f:ports");
  private static final String SELF = ".";

  private FieldPaths() {}

  /** Every path in an object, intermediate nodes included. */
  static Set<List<String>> of(JsonObject object) {
    Set<List<String>> out = new LinkedHashSet<>();
    walk(object, List.of(), out);
    return out;
  }

  private static void walk(Object value, List<String> at, Set<List<String>> out) {
    if (value instanceof JsonObject o) {
      for (String key : o.fieldNames()) {
        List<String> path = append(at, "f:" + key);
        out.add(path);
        walk(o.getValue(key), path, out);
      }
    } else if (value instanceof JsonArray a && at.equals(PORTS)) {
      for (Object item : a) {
        if (item instanceof JsonObject port) {
          List<String> path = append(at, portKey(port));
          out.add(path);
          walk(port, path, out);
        }
      }
    }
  }

  /** The paths a {@code fieldsV1} set names that have no named path below them. */
  public static Set<List<String>> leaves(JsonObject fieldsV1) {
    Set<List<String>> out = new LinkedHashSet<>();
    leaves(fieldsV1, List.of(), out);
    return out;
  }

  private static void leaves(JsonObject node, List<String> at, Set<List<String>> out) {
    for (String key : node.fieldNames()) {
      if (SELF.equals(key)) {
        continue;
      }
      List<String> path = append(at, key);
      Object child = node.getValue(key);
      if (child instanceof JsonObject c && c.fieldNames().stream().anyMatch(k -> !SELF.equals(k))) {
        leaves(c, path, out);
      } else {
        out.add(path);
      }
    }
  }

  /** A {@code fieldsV1} set of these paths. */
  static JsonObject toFieldsV1(Set<List<String>> paths) {
    JsonObject root = new JsonObject();
    for (List<String> path : paths) {
      JsonObject node = root;
      for (String step : path) {
        JsonObject next = node.getJsonObject(step);
        if (next == null) {
          next = new JsonObject();
          node.put(step, next);
        }
        node = next;
      }
    }
    return root;
  }

  /**
   * Whether {@code have} holds every value {@code want} sets: objects key by key, ports matched by
   * port and protocol, any other list whole. An empty object or list in {@code want} asks for
   * nothing.
   */
  static boolean contains(Object have, Object want) {
    return contains(have, want, List.of());
  }

  private static boolean contains(Object have, Object want, List<String> at) {
    if (want instanceof JsonObject w) {
      if (have != null && !(have instanceof JsonObject)) {
        return false;
      }
      JsonObject h = have == null ? new JsonObject() : (JsonObject) have;
      for (String key : w.fieldNames()) {
        if (!contains(h.getValue(key), w.getValue(key), append(at, "f:" + key))) {
          return false;
        }
      }
      return true;
    }
    if (want instanceof JsonArray w) {
      if (w.isEmpty()) {
        return have == null || have instanceof JsonArray h && h.isEmpty();
      }
      if (!(have instanceof JsonArray h)) {
        return false;
      }
      if (!at.equals(PORTS)) {
        return sameValue(h, w);
      }
      for (Object wanted : w) {
        JsonObject port = (JsonObject) wanted;
        Object match =
            h.stream()
                .filter(x -> x instanceof JsonObject p && portKey(p).equals(portKey(port)))
                .findFirst()
                .orElse(null);
        if (!contains(match, port, append(at, portKey(port)))) {
          return false;
        }
      }
      return true;
    }
    return sameValue(have, want);
  }

  /** The value at a path, or null. */
  static Object valueAt(JsonObject object, List<String> path) {
    Object node = object;
    List<String> at = new ArrayList<>();
    for (String step : path) {
      if (node instanceof JsonObject o && step.startsWith("f:")) {
        node = o.getValue(step.substring(2));
      } else if (node instanceof JsonArray a && at.equals(PORTS)) {
        node =
            a.stream()
                .filter(x -> x instanceof JsonObject p && portKey(p).equals(step))
                .findFirst()
                .orElse(null);
      } else {
        return null;
      }
      at.add(step);
    }
    return node;
  }

  /** The key of a port item, as the API server writes it: its key fields in name order. */
  static String portKey(JsonObject port) {
    String protocol = port.getString("protocol", "TCP");
    return "k:{\"port\":" + port.getValue("port") + ",\"protocol\":\"" + protocol + "\"}";
  }

  private static boolean sameValue(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y) {
      return x.doubleValue() == y.doubleValue();
    }
    return Objects.equals(a, b);
  }

  static List<String> append(List<String> path, String step) {
    List<String> out = new ArrayList<>(path.size() + 1);
    out.addAll(path);
    out.add(step);
    return List.copyOf(out);
  }
}
