package dev.pier.faults;

import static org.awaitility.Awaitility.await;

import dev.pier.testkit.KubeApiServer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;

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
    return lines(kube).stream().map(JsonObject::new).filter(AuditWrites::succeededWrite).toList();
  }

  private static boolean succeededWrite(JsonObject e) {
    int code = e.getJsonObject("responseStatus", new JsonObject()).getInteger("code", 0);
    return "ResponseComplete".equals(e.getString("stage"))
        && WRITES.contains(e.getString("verb"))
        && code >= 200
        && code < 300;
  }

  /** The audit log's lines, the last one left out while it may be half written. */
  private static List<String> lines(KubeApiServer kube) {
    try {
      String text = Files.readString(kube.auditLogPath());
      int end = text.lastIndexOf('\n');
      return end < 0
          ? List.of()
          : text.substring(0, end).lines().filter(l -> !l.isBlank()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits until {@code kube}'s audit log records a request (any verb, any answer) of {@code user}
   * received after {@code after}, and returns when it was received: the API server's word that the
   * process of that user still ran then. A process that reads its API server all the time (a
   * standby campaigns for the Lease every retry period) shows up within a period.
   */
  static Instant awaitRequestAfter(
      KubeApiServer kube, String user, Instant after, Duration atMost) {
    AtomicReference<Instant> seen = new AtomicReference<>();
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                seen.set(
                    lines(kube).stream()
                        .filter(l -> l.contains(user))
                        .map(JsonObject::new)
                        .filter(e -> user.equals(user(e)))
                        .map(AuditWrites::received)
                        .filter(t -> t.isAfter(after))
                        .findFirst()
                        .orElse(null));
                return seen.get() != null;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "the API server saw no request of " + user + " after " + after + " within " + atMost, e);
    }
    return seen.get();
  }

  /**
   * Waits until {@code kube}'s audit log records a successful write by {@code user}, received after
   * {@code after}, of one of the {@code resource} objects {@code names} in {@code namespace}, and
   * returns it. Polls every 10 ms, for a caller that stops the writer right after.
   */
  static JsonObject awaitWrite(
      KubeApiServer kube,
      String user,
      String resource,
      String namespace,
      Set<String> names,
      Instant after,
      Duration atMost) {
    AtomicReference<JsonObject> seen = new AtomicReference<>();
    try {
      await()
          .atMost(atMost)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                seen.set(
                    lines(kube).stream()
                        .filter(l -> l.contains(user) && l.contains(namespace))
                        .map(JsonObject::new)
                        .filter(AuditWrites::succeededWrite)
                        .filter(e -> user.equals(user(e)) && received(e).isAfter(after))
                        .filter(
                            e -> {
                              JsonObject ref = e.getJsonObject("objectRef", new JsonObject());
                              return resource.equals(ref.getString("resource"))
                                  && namespace.equals(ref.getString("namespace"))
                                  && names.contains(ref.getString("name"));
                            })
                        .findFirst()
                        .orElse(null));
                return seen.get() != null;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "no write by "
              + user
              + " of "
              + resource
              + " "
              + namespace
              + "/"
              + names
              + " after "
              + after,
          e);
    }
    return seen.get();
  }

  /**
   * When {@code user}'s hold on the Lease {@code namespace/name} ran out: its last successful write
   * of that Lease (its take or a renewal) received before {@code before}, plus {@code
   * leaseDuration}. After that instant a standby may take the Lease, so the user may write nothing.
   */
  static Instant leaseExpiry(
      Collection<JsonObject> writes,
      String user,
      String namespace,
      String name,
      Instant before,
      Duration leaseDuration) {
    return writes.stream()
        .filter(w -> user.equals(user(w)) && received(w).isBefore(before))
        .filter(
            w -> {
              JsonObject ref = w.getJsonObject("objectRef", new JsonObject());
              return "leases".equals(ref.getString("resource"))
                  && namespace.equals(ref.getString("namespace"))
                  && name.equals(ref.getString("name"));
            })
        .map(AuditWrites::received)
        .max(Instant::compareTo)
        .map(t -> t.plus(leaseDuration))
        .orElseThrow(
            () -> new AssertionError(user + " never wrote the Lease " + namespace + "/" + name));
  }

  /** When {@code user} first wrote, over all these writes. */
  static Optional<Instant> first(Collection<JsonObject> writes, String user) {
    return writes.stream()
        .filter(w -> user.equals(user(w)))
        .map(AuditWrites::received)
        .min(Instant::compareTo);
  }

  /**
   * How long after a thaw a request that the frozen process had already let through its leadership
   * fence may still reach the API server: it was on its way (past the fence, in the HTTP client)
   * when the process stopped, and it goes the moment the process runs again. No fence inside the
   * process can call it back (docs/reliability.md says so).
   */
  static final Duration IN_FLIGHT_AT_THAW = Duration.ofSeconds(2);

  /**
   * {@code writes} less the Events received within {@link #IN_FLIGHT_AT_THAW} after {@code
   * thawedAt}: an Event carries no precondition, so one that was in flight at the freeze lands,
   * where a Service write in flight carries its resourceVersion and is refused (no successful
   * write). That Events still queued at the freeze are fenced is {@code
   * KubeEventRecorderTest#aWriteIsFencedRightBeforeItIsSent}'s to show.
   */
  static List<JsonObject> lessEventsInFlightAt(Collection<JsonObject> writes, Instant thawedAt) {
    Instant end = thawedAt.plus(IN_FLIGHT_AT_THAW);
    return writes.stream()
        .filter(
            w ->
                !("events"
                        .equals(
                            w.getJsonObject("objectRef", new JsonObject()).getString("resource"))
                    && !received(w).isBefore(thawedAt)
                    && received(w).isBefore(end)))
        .toList();
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
