package dev.pier.testkit;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Proof that Pier saw an object, for a test to establish before it asserts that Pier did nothing
 * with it (no load balancer, no write, no copy deleted, no cloud call). Such a check passes on its
 * own when Pier never got to the object (its cache had not delivered it yet, it crashed, it was
 * frozen), so it means something only after one of these holds:
 *
 * <ul>
 *   <li>{@link #event}: an Event about this very object, by its uid (not an earlier object of the
 *       same name), with one of the given reasons;
 *   <li>{@link #logged}: a line Pier logged after a {@link LogMark} about the Service (its {@code
 *       Service <cluster>/<namespace>/<name>:} prefix), or about any Service of a namespace;
 *   <li>{@link #counted}: a counter of Pier's runs that rose past what it was before the change.
 * </ul>
 *
 * Each waits at most the given time and otherwise fails with {@code Pier never showed it saw
 * <subject>}, what was looked for and what there was.
 */
public final class PierSaw {
  private PierSaw() {}

  /**
   * Waits for an Event about {@code object} (kind, namespace, name and uid) with one of {@code
   * reasons} (any reason when none is given), and returns it.
   */
  public static Event event(
      KubernetesClient client, HasMetadata object, Duration atMost, String... reasons) {
    String ns = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    String uid = object.getMetadata().getUid();
    if (uid == null) {
      throw new IllegalArgumentException(
          ns + "/" + name + " has no uid: pass the object as the API server returned it");
    }
    List<String> wanted = Arrays.asList(reasons);
    AtomicReference<Event> found = new AtomicReference<>();
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(250))
          .ignoreExceptions()
          .until(
              () -> {
                found.set(
                    aboutIt(client, object).stream()
                        .filter(e -> wanted.isEmpty() || wanted.contains(e.getReason()))
                        .findFirst()
                        .orElse(null));
                return found.get() != null;
              });
    } catch (ConditionTimeoutException e) {
      List<String> seen =
          Services.events(client, ns, name).stream()
              .map(
                  ev ->
                      ev.getReason()
                          + " (uid "
                          + ev.getInvolvedObject().getUid()
                          + "): "
                          + ev.getMessage())
              .toList();
      throw new AssertionError(
          never(
              ns + "/" + name,
              "no Event about uid "
                  + uid
                  + (wanted.isEmpty() ? "" : " with reason " + wanted)
                  + " within "
                  + atMost
                  + "; the Events on that name: "
                  + seen),
          e);
    }
    return found.get();
  }

  private static List<Event> aboutIt(KubernetesClient client, HasMetadata object) {
    return Services.events(
            client, object.getMetadata().getNamespace(), object.getMetadata().getName())
        .stream()
        .filter(e -> object.getKind().equals(e.getInvolvedObject().getKind()))
        .filter(e -> object.getMetadata().getUid().equals(e.getInvolvedObject().getUid()))
        .toList();
  }

  /**
   * Waits until a line logged after {@code since} is about the Service {@code namespace/name}
   * ({@code name} null: any Service of the namespace) and contains {@code text}, and returns it.
   */
  public static String logged(
      LogMark since, String namespace, String name, String text, Duration atMost) {
    Pattern about =
        Pattern.compile(
            "Service [^/\\s]+/"
                + Pattern.quote(namespace)
                + "/"
                + (name == null ? "[^:\\s]+" : Pattern.quote(name))
                + ": .*"
                + Pattern.quote(text));
    return logged(since, namespace + "/" + (name == null ? "*" : name), about, atMost);
  }

  /**
   * Waits until a line logged after {@code since} matches {@code line} (found anywhere in it), and
   * returns it: for what Pier saw that is no Service, such as the loss of its Lease.
   */
  public static String logged(LogMark since, String subject, Pattern line, Duration atMost) {
    AtomicReference<String> found = new AtomicReference<>();
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                found.set(
                    since
                        .after()
                        .lines()
                        .filter(l -> line.matcher(l).find())
                        .findFirst()
                        .orElse(null));
                return found.get() != null;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          never(
              subject,
              "no line matching '"
                  + line
                  + "' logged after the mark within "
                  + atMost
                  + "; logged after the mark:\n"
                  + tail(since.after())),
          e);
    }
    return found.get();
  }

  /**
   * Waits until {@code counter} (a count of Pier's runs) is above {@code before}, its value before
   * the change Pier is to see, and returns the new value.
   */
  public static double counted(
      String subject, String counterName, double before, DoubleSupplier counter, Duration atMost) {
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(250))
          .ignoreExceptions()
          .until(() -> counter.getAsDouble() > before);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          never(
              subject,
              counterName
                  + " stayed at "
                  + counter.getAsDouble()
                  + ", not above "
                  + before
                  + " within "
                  + atMost),
          e);
    }
    return counter.getAsDouble();
  }

  private static String never(String subject, String detail) {
    return "Pier never showed it saw " + subject + ": " + detail;
  }

  private static String tail(String log) {
    List<String> lines = log.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** A place in a Pier process's log: what follows it was logged after the mark was taken. */
  public static final class LogMark {
    private final Supplier<String> log;
    private final int offset;

    private LogMark(Supplier<String> log) {
      this.log = log;
      this.offset = log.get().length();
    }

    /** The end of {@code pier}'s log now. */
    public static LogMark now(PierProcess pier) {
      return new LogMark(pier::log);
    }

    /** The end of a log read by {@code log} now. */
    public static LogMark now(Supplier<String> log) {
      return new LogMark(log);
    }

    /** What was logged since the mark. */
    public String after() {
      String all = log.get();
      return all.length() <= offset ? "" : all.substring(offset);
    }
  }
}
