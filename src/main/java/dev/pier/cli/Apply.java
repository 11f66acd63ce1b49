package dev.pier.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Applies manifests the way a second run expects: an object that already says everything the
 * manifest says is left alone (not even its managed fields change); any other is server-side
 * applied with the field manager {@code pier-join}.
 */
public final class Apply {
  public static final String FIELD_MANAGER = "pier-join";

  private Apply() {}

  /** What happened to one object: {@code created}, {@code configured} or {@code unchanged}. */
  public static String apply(KubernetesClient client, HasMetadata desired) {
    HasMetadata existing;
    try {
      existing = client.resource(desired).get();
    } catch (KubernetesClientException e) {
      throw CliException.failed("cannot read " + describe(desired) + ": " + message(e));
    }
    if (existing != null && contains(json(existing), json(desired))) {
      return "unchanged";
    }
    try {
      client.resource(desired).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    } catch (KubernetesClientException e) {
      throw CliException.failed("cannot apply " + describe(desired) + ": " + message(e));
    }
    return existing == null ? "created" : "configured";
  }

  /** Deletes the object; one that is gone already is fine. Returns whether it existed. */
  public static boolean delete(KubernetesClient client, HasMetadata object) {
    try {
      return !client.resource(object).delete().isEmpty();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw CliException.failed("cannot delete " + describe(object) + ": " + message(e));
    }
  }

  public static String describe(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return o.getKind().toLowerCase(Locale.ROOT)
        + "/"
        + o.getMetadata().getName()
        + (ns == null ? "" : " (namespace " + ns + ")");
  }

  static String message(KubernetesClientException e) {
    if (e.getStatus() != null && e.getStatus().getMessage() != null) {
      return e.getCode() + " " + e.getStatus().getMessage();
    }
    // Without a status the request did not get an answer: the cause says why (refused, reset,
    // timed out, a certificate).
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause == e ? e.getMessage() : e.getMessage() + " (" + cause + ")";
  }

  private static JsonObject json(HasMetadata o) {
    return new JsonObject(Serialization.asJson(o));
  }

  /** Whether {@code have} says everything {@code want} says (maps by key, lists item by item). */
  static boolean contains(Object have, Object want) {
    if (want instanceof JsonObject w) {
      if (!(have instanceof JsonObject h)) {
        return false;
      }
      for (Map.Entry<String, Object> e : w) {
        if (!contains(h.getValue(e.getKey()), e.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (want instanceof JsonArray w) {
      if (!(have instanceof JsonArray h) || h.size() != w.size()) {
        return false;
      }
      List<?> hl = h.getList();
      for (int i = 0; i < w.size(); i++) {
        if (!contains(h.getValue(i), w.getValue(i))) {
          return false;
        }
      }
      return hl.size() == w.size();
    }
    if (want == null) {
      return true;
    }
    return want.equals(have);
  }
}
