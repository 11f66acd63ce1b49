package dev.pier.federation;

import dev.pier.model.FederationKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Whether an owned copy needs Pier's server-side apply, and the one-time move of the fields Pier
 * wrote before it applied (whole-object writes, owned by an Update entry) to its apply manager.
 *
 * <p>Pier's fields are those its apply entry owns, and, in the Update entries of its earlier
 * writes, the spec fields other than allocations and the label and annotation keys it provably
 * copied ({@link CopiedKeys}, its marks, and the keys it sets now). A copy needs an apply when a
 * value Pier sets differs, or Pier owns a field it no longer sets (the host dropped a label or a
 * port, or set a field back to its default): the apply then removes it. A field another manager
 * owns is never Pier's, so it stays and costs no write.
 */
public final class CopyApply {
  /** The field manager of Pier's applies, and of its creates. */
  public static final String MANAGER = FederationKeys.COPY_FIELD_MANAGER;

  static final String LEGACY_MANAGER = FederationKeys.LEGACY_FIELD_MANAGER;

  private static final String APPLY = "Apply";
  private static final String UPDATE = "Update";
  private static final Set<String> MARK_LABELS = Set.of(FederationKeys.FEDERATION_LABEL);
  private static final Set<String> MARK_ANNOTATIONS =
      Set.of(
          FederationKeys.HOST_CLUSTER_UID_ANNOTATION,
          FederationKeys.HOST_SERVICE_UID_ANNOTATION,
          FederationKeys.COPIED_KEYS_ANNOTATION);

  private CopyApply() {}

  /**
   * What to send to bring a copy to {@code want}: the apply configuration, and whether Pier's
   * earlier Update ownership must move to its apply manager first ({@link #migration}).
   */
  public record Change(JsonObject config, boolean migrate) {}

  /**
   * @param want the apply configuration ({@link MemberServices#config})
   * @param have the owned copy as cached: its spec, labels and annotations, and at least Pier's own
   *     managed-fields entries
   * @return what to send, or null when nothing needs writing
   */
  public static Change change(JsonObject want, JsonObject have) {
    Predicate<List<String>> piers = piersFields(want, have);
    Set<List<String>> owned = new HashSet<>();
    boolean legacy = false;
    for (JsonObject entry : entries(have)) {
      JsonObject fields = entry.getJsonObject("fieldsV1", new JsonObject());
      if (isPiersApply(entry)) {
        owned.addAll(FieldPaths.leaves(fields));
      } else if (isPiersUpdate(entry)) {
        JsonObject mine = split(fields, List.of(), piers)[0];
        if (!mine.isEmpty()) {
          owned.addAll(FieldPaths.leaves(mine));
          legacy = true;
        }
      }
    }
    owned.removeIf(p -> ServiceDefaults.isAllocated(p) || ServiceDefaults.isDefault(p, have));
    JsonObject values = want.copy();
    values.remove("apiVersion");
    values.remove("kind");
    boolean same = FieldPaths.contains(have, values) && FieldPaths.of(want).containsAll(owned);
    return same ? null : new Change(want, legacy);
  }

  /**
   * The copy's managed fields with Pier's earlier Update ownership moved to its apply manager, or
   * null when there is none to move. {@code have} must be the copy as the API server returned it,
   * every manager's entry included: the list replaces the copy's whole.
   */
  public static JsonArray migration(JsonObject want, JsonObject have) {
    Predicate<List<String>> piers = piersFields(want, have);
    boolean any =
        entries(have).stream()
            .anyMatch(
                e ->
                    isPiersUpdate(e)
                        && !split(e.getJsonObject("fieldsV1", new JsonObject()), List.of(), piers)[
                            0]
                            .isEmpty());
    return any ? migrated(entries(have), piers) : null;
  }

  /** The copy's managed fields without Pier's entries: what an orphaned copy keeps. */
  public static JsonArray withoutPiers(JsonArray managedFields) {
    JsonArray out = new JsonArray();
    if (managedFields != null) {
      for (Object e : managedFields) {
        if (e instanceof JsonObject entry && !MANAGER.equals(entry.getString("manager"))) {
          out.add(entry);
        }
      }
    }
    return out;
  }

  private static JsonArray migrated(List<JsonObject> entries, Predicate<List<String>> piers) {
    JsonArray out = new JsonArray();
    JsonObject apply = null;
    JsonObject moved = new JsonObject();
    for (JsonObject entry : entries) {
      if (isPiersApply(entry)) {
        apply = entry.copy();
        out.add(apply);
      } else if (isPiersUpdate(entry)) {
        JsonObject[] parts =
            split(entry.getJsonObject("fieldsV1", new JsonObject()), List.of(), piers);
        merge(moved, parts[0]);
        if (!parts[1].isEmpty()) {
          out.add(entry.copy().put("fieldsV1", parts[1]));
        }
      } else {
        out.add(entry);
      }
    }
    if (apply == null) {
      apply =
          new JsonObject()
              .put("manager", MANAGER)
              .put("operation", APPLY)
              .put("apiVersion", "v1")
              .put("fieldsType", "FieldsV1")
              .put("fieldsV1", new JsonObject());
      out.add(apply);
    }
    merge(apply.getJsonObject("fieldsV1"), moved);
    return out;
  }

  /**
   * The fields Pier wrote, among those an earlier Update entry owns: spec fields other than
   * allocations, and the label and annotation keys it copied or marks with.
   */
  private static Predicate<List<String>> piersFields(JsonObject want, JsonObject have) {
    JsonObject haveMeta = have.getJsonObject("metadata", new JsonObject());
    JsonObject wantMeta = want.getJsonObject("metadata", new JsonObject());
    CopiedKeys copied =
        CopiedKeys.of(strings(haveMeta.getJsonObject("annotations", new JsonObject())));
    Set<String> labels = new HashSet<>(copied.labels());
    labels.addAll(MARK_LABELS);
    labels.addAll(wantMeta.getJsonObject("labels", new JsonObject()).fieldNames());
    Set<String> annotations = new HashSet<>(copied.annotations());
    annotations.addAll(MARK_ANNOTATIONS);
    annotations.addAll(wantMeta.getJsonObject("annotations", new JsonObject()).fieldNames());
    return path -> {
      if (path.isEmpty()) {
        return false;
      }
      if (path.get(0).equals("f:spec")) {
        return !ServiceDefaults.isAllocated(path);
      }
      if (path.size() == 2 && path.get(0).equals("f:metadata")) {
        // The maps themselves: an earlier entry left owning a map it no longer has a key of
        // gets its keys back from the API server.
        return path.get(1).equals("f:labels") || path.get(1).equals("f:annotations");
      }
      if (path.size() == 3 && path.get(0).equals("f:metadata")) {
        String key = path.get(2).substring(2);
        return switch (path.get(1)) {
          case "f:labels" -> labels.contains(key);
          case "f:annotations" -> annotations.contains(key);
          default -> false;
        };
      }
      return false;
    };
  }

  /** A fieldsV1 tree split in two: the paths {@code piers} accepts, and the rest. */
  private static JsonObject[] split(
      JsonObject node, List<String> at, Predicate<List<String>> piers) {
    JsonObject mine = new JsonObject();
    JsonObject rest = new JsonObject();
    for (String key : node.fieldNames()) {
      Object value = node.getValue(key);
      if (".".equals(key)) {
        (piers.test(at) ? mine : rest).put(key, new JsonObject());
        continue;
      }
      List<String> path = FieldPaths.append(at, key);
      JsonObject child = value instanceof JsonObject c ? c : new JsonObject();
      if (child.isEmpty()) {
        (piers.test(path) ? mine : rest).put(key, new JsonObject());
        continue;
      }
      JsonObject[] parts = split(child, path, piers);
      if (!parts[0].isEmpty()) {
        mine.put(key, parts[0]);
      }
      if (!parts[1].isEmpty()) {
        rest.put(key, parts[1]);
      }
    }
    return new JsonObject[] {mine, rest};
  }

  /** Adds every path of {@code from} to {@code into}. */
  private static void merge(JsonObject into, JsonObject from) {
    for (String key : from.fieldNames()) {
      JsonObject child = from.getJsonObject(key);
      JsonObject existing = into.getJsonObject(key);
      if (existing == null) {
        into.put(key, child.copy());
      } else {
        merge(existing, child);
      }
    }
  }

  private static boolean isPiersApply(JsonObject entry) {
    return MANAGER.equals(entry.getString("manager")) && APPLY.equals(entry.getString("operation"));
  }

  private static boolean isPiersUpdate(JsonObject entry) {
    String manager = entry.getString("manager");
    String subresource = entry.getString("subresource");
    return UPDATE.equals(entry.getString("operation"))
        && (MANAGER.equals(manager) || LEGACY_MANAGER.equals(manager))
        && (subresource == null || subresource.isEmpty());
  }

  private static List<JsonObject> entries(JsonObject service) {
    JsonArray fields =
        service.getJsonObject("metadata", new JsonObject()).getJsonArray("managedFields");
    if (fields == null) {
      return List.of();
    }
    return fields.stream().filter(e -> e instanceof JsonObject).map(e -> (JsonObject) e).toList();
  }

  private static Map<String, String> strings(JsonObject o) {
    Map<String, String> out = new HashMap<>();
    o.forEach(e -> out.put(e.getKey(), String.valueOf(e.getValue())));
    return out;
  }
}
