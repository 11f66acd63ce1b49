package dev.pier.leader;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** The coordination.k8s.io/v1 Lease documents scale-out writes: the shards' and each replica's. */
final class LeaseJson {
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private LeaseJson() {}

  /** Now, as a Lease's MicroTime fields want it. */
  static String now() {
    return MICRO_TIME.format(Instant.now());
  }

  /** The API path of the Leases of {@code namespace}. */
  static String collection(String namespace) {
    return "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases";
  }

  /**
   * A new Lease held by {@code holder} from now on, labelled as Pier's; the caller adds its own
   * labels, annotations or spec fields.
   */
  static JsonObject held(String name, String namespace, String holder, long durationSeconds) {
    String time = now();
    return new JsonObject()
        .put("apiVersion", "coordination.k8s.io/v1")
        .put("kind", "Lease")
        .put(
            "metadata",
            new JsonObject()
                .put("name", name)
                .put("namespace", namespace)
                .put("labels", new JsonObject().put("app.kubernetes.io/name", "pier")))
        .put(
            "spec",
            new JsonObject()
                .put("holderIdentity", holder)
                .put("leaseDurationSeconds", durationSeconds)
                .put("acquireTime", time)
                .put("renewTime", time));
  }
}
