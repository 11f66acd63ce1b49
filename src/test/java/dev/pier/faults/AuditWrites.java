package dev.pier.faults;

import dev.pier.testkit.KubeApiServer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The successful writes an API server's audit log records, by user: what tells the writes of two
 * Pier processes apart, each authenticated as its own user.
 */
final class AuditWrites {
  private static final Set<String> WRITES =
      Set.of("create", "update", "patch", "delete", "deletecollection");

  private AuditWrites() {}

  /** The audit log's completed write requests that succeeded. */
  static List<JsonObject> of(KubeApiServer kube) throws IOException {
    return Files.readAllLines(kube.auditLogPath()).stream()
        .filter(l -> !l.isBlank())
        .map(JsonObject::new)
        .filter(e -> "ResponseComplete".equals(e.getString("stage")))
        .filter(e -> WRITES.contains(e.getString("verb")))
        .filter(
            e -> {
              int code = e.getJsonObject("responseStatus", new JsonObject()).getInteger("code", 0);
              return code >= 200 && code < 300;
            })
        .toList();
  }

  /** When {@code user} first wrote, over all these writes. */
  static Optional<Instant> first(Collection<JsonObject> writes, String user) {
    return writes.stream()
        .filter(w -> user.equals(user(w)))
        .map(AuditWrites::received)
        .min(Instant::compareTo);
  }

  /** The writes of {@code user} received after {@code after}, described. */
  static List<String> after(Collection<JsonObject> writes, String user, Instant after) {
    return writes.stream()
        .filter(w -> user.equals(user(w)) && received(w).isAfter(after))
        .map(AuditWrites::describe)
        .toList();
  }

  static String user(JsonObject event) {
    return event.getJsonObject("user", new JsonObject()).getString("username");
  }

  static Instant received(JsonObject event) {
    return Instant.parse(event.getString("requestReceivedTimestamp"));
  }

  static String describe(JsonObject event) {
    JsonObject ref = event.getJsonObject("objectRef", new JsonObject());
    return event.getString("requestReceivedTimestamp")
        + " "
        + event.getString("verb")
        + " "
        + ref.getString("resource")
        + (ref.getString("subresource") == null ? "" : "/" + ref.getString("subresource"))
        + " "
        + ref.getString("namespace")
        + "/"
        + ref.getString("name");
  }
}
