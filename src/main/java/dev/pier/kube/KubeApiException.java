package dev.pier.kube;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** A non-2xx answer of the API server to one of Pier's asynchronous writes. */
public final class KubeApiException extends RuntimeException {
  private static final String FIELD_MANAGER_CONFLICT = "FieldManagerConflict";

  private final int code;
  private final List<String> fieldConflicts;

  public KubeApiException(int code, String message) {
    this(code, message, List.of());
  }

  public KubeApiException(int code, String message, List<String> fieldConflicts) {
    super(message);
    this.code = code;
    this.fieldConflicts = List.copyOf(fieldConflicts);
  }

  public int code() {
    return code;
  }

  public boolean isNotFound() {
    return code == 404;
  }

  public boolean isConflict() {
    return code == 409;
  }

  /** Whether {@code e} is the API server's 404: the object is not there. */
  public static boolean notFound(Throwable e) {
    return e instanceof KubeApiException k && k.isNotFound();
  }

  /** Whether {@code e} is the API server's 409: a precondition failed, or the object exists. */
  public static boolean conflict(Throwable e) {
    return e instanceof KubeApiException k && k.isConflict();
  }

  /**
   * A server-side apply refused because other managers own fields it would change: each as {@code
   * <field> (<manager's conflict message>)}, e.g. {@code .spec.sessionAffinity (conflict with
   * "kube-vip" using v1)}. Empty for any other failure.
   */
  public List<String> fieldConflicts() {
    return fieldConflicts;
  }

  /** The field-manager conflicts a Status body lists in its details' causes. */
  static List<String> fieldConflicts(String body) {
    List<String> out = new ArrayList<>();
    if (body == null || body.isEmpty()) {
      return out;
    }
    try {
      JsonObject details = new JsonObject(body).getJsonObject("details");
      JsonArray causes = details == null ? null : details.getJsonArray("causes");
      if (causes != null) {
        for (Object c : causes) {
          if (c instanceof JsonObject cause
              && FIELD_MANAGER_CONFLICT.equals(cause.getString("reason"))) {
            out.add(cause.getString("field") + " (" + cause.getString("message") + ")");
          }
        }
      }
    } catch (RuntimeException e) {
      // Not a Status: no conflicts to name.
    }
    return out;
  }
}
