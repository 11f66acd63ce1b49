package dev.pier.federation.sync;

import dev.pier.model.FederationKeys;
import dev.pier.testkit.KubeApiServer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The federation's write requests to its copies in a member, from the member's audit log, where
 * Pier authenticates as a user of its own: every write the API server answered, refused ones (the
 * 409 of a server-side apply's field conflict) included. This is what "Pier wrote nothing" is
 * checked against; the {@code UpdatedInCluster} Events are no such count, since Pier reports only
 * the writes that succeeded.
 *
 * <p>The federation's writes are those under its field manager ({@code ?fieldManager=}{@value
 * FederationKeys#COPY_FIELD_MANAGER}: create, apply, the one-time move of its fields, replace) and
 * the deletes; the member's load-balancer controller, which is Pier under the same user, writes its
 * finalizer (without that field manager) and the status subresource, which are left out.
 *
 * <p>The log is read on from where the last read stopped, so that a check polled through a window
 * does not parse a growing file again and again.
 */
final class MemberWrites {
  private static final Set<String> WRITES =
      Set.of("create", "update", "patch", "delete", "deletecollection");

  private static final String FEDERATION_MANAGER =
      "fieldManager=" + FederationKeys.COPY_FIELD_MANAGER;

  private final Path log;
  private final String user;
  private final List<JsonObject> writes = new ArrayList<>();
  private long offset;
  private byte[] partial = new byte[0];

  private MemberWrites(Path log, String user) {
    this.log = log;
    this.user = user;
  }

  /** The writes {@code user} sends to {@code member} (built with its audit log). */
  static MemberWrites of(KubeApiServer member, String user) {
    return new MemberWrites(member.auditLogPath(), user);
  }

  /**
   * The federation's completed write requests to the Service {@code namespace/name}, in the order
   * the server received them, whatever their answer.
   */
  synchronized List<JsonObject> to(String namespace, String name) {
    readOn();
    return writes.stream()
        .filter(
            w -> {
              JsonObject ref = w.getJsonObject("objectRef");
              return namespace.equals(ref.getString("namespace"))
                  && name.equals(ref.getString("name"))
                  && ref.getString("subresource") == null
                  && ("delete".equals(w.getString("verb"))
                      || w.getString("requestURI").contains(FEDERATION_MANAGER));
            })
        .toList();
  }

  /** {@link #to}, from the {@code from}-th on, one line each. */
  List<String> since(int from, String namespace, String name) {
    List<String> all = described(namespace, name);
    return all.subList(Math.min(from, all.size()), all.size());
  }

  /** How many of {@link #to} there are. */
  int count(String namespace, String name) {
    return to(namespace, name).size();
  }

  /** {@link #to}, one line each: when, verb, URI and the server's answer. */
  List<String> described(String namespace, String name) {
    return to(namespace, name).stream().map(MemberWrites::describe).toList();
  }

  static int code(JsonObject write) {
    return write.getJsonObject("responseStatus", new JsonObject()).getInteger("code", 0);
  }

  private static String describe(JsonObject w) {
    return w.getString("requestReceivedTimestamp")
        + " "
        + w.getString("verb")
        + " "
        + w.getString("requestURI")
        + " -> "
        + code(w);
  }

  private void readOn() {
    byte[] fresh;
    try (FileChannel channel = FileChannel.open(log, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size <= offset) {
        return;
      }
      ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(size - offset));
      while (buffer.hasRemaining() && channel.read(buffer, offset + buffer.position()) > 0) {
        // read to the end seen
      }
      fresh = new byte[partial.length + buffer.position()];
      System.arraycopy(partial, 0, fresh, 0, partial.length);
      System.arraycopy(buffer.array(), 0, fresh, partial.length, buffer.position());
      offset += buffer.position();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int end = fresh.length;
    while (end > 0 && fresh[end - 1] != '\n') {
      end--;
    }
    partial = Arrays.copyOfRange(fresh, end, fresh.length);
    String userField = "\"username\":\"" + user + "\"";
    for (String line : new String(fresh, 0, end, StandardCharsets.UTF_8).split("\n")) {
      // Cheap tests first: the log holds every request of every client.
      if (!line.contains(userField) || !line.contains("\"ResponseComplete\"")) {
        continue;
      }
      JsonObject event = new JsonObject(line);
      JsonObject ref = event.getJsonObject("objectRef");
      if ("ResponseComplete".equals(event.getString("stage"))
          && user.equals(event.getJsonObject("user", new JsonObject()).getString("username"))
          && WRITES.contains(event.getString("verb"))
          && ref != null
          && "services".equals(ref.getString("resource"))) {
        writes.add(event);
      }
    }
  }
}
