package dev.pier.cli;

import dev.pier.config.Durations;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code pier status} shows, read from the host API only: the members as their Secrets say and
 * the federated Services as their annotations say; printed as a table or as JSON.
 */
public record StatusReport(List<MemberRow> members, List<ServiceRow> services) {

  /**
   * @param ready null when Pier has not reported on the member
   * @param leaving when its leave started (the Secret's deletion) or is due (the leave record), or
   *     null while it is a member
   */
  public record MemberRow(
      String name,
      String secret,
      Boolean ready,
      String version,
      String region,
      List<String> zones,
      Instant lastProbe,
      String credential,
      Instant credentialExpiry,
      String reason,
      Instant leaving) {}

  /** One member's copy of a federated Service, as the host's ingress annotation lists it. */
  public record Copy(String cluster, List<String> ingresses) {}

  /** A DNS name of a federated Service and what the DNS server answers for it now. */
  public record NameAnswer(String name, List<String> answers) {}

  /** An Event on a federated host Service: Pier's account of its runs in the members. */
  public record EventRow(String type, String reason, Instant last, int count, String message) {}

  /**
   * @param placement what the Service's annotations say about where it goes
   * @param heldSince since when its status and names hold unreachable members as last seen; null
   *     when they do not
   * @param names its DNS names with their answers; empty when not asked for ({@code --dns-suffix})
   */
  public record ServiceRow(
      String namespace,
      String name,
      String placement,
      List<Copy> copies,
      Instant heldSince,
      List<NameAnswer> names) {
    public ServiceRow {
      names = names == null ? List.of() : List.copyOf(names);
    }

    /** The same Service with its names answered. */
    ServiceRow withNames(List<NameAnswer> answered) {
      return new ServiceRow(namespace, name, placement, copies, heldSince, answered);
    }
  }

  /** The table an operator reads; {@code warnWithin}: credentials expiring sooner get WARN. */
  public String table(Instant now, Duration warnWithin) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        List.of(
            "MEMBER", "READY", "VERSION", "REGION", "ZONES", "LAST PROBE", "CREDENTIAL EXPIRES"));
    for (MemberRow m : members) {
      rows.add(
          List.of(
              m.name(),
              m.leaving() != null
                  ? "Leaving"
                  : m.ready() == null ? "Unknown" : m.ready() ? "True" : "False",
              dash(m.version()),
              dash(m.region()),
              m.zones().isEmpty() ? "-" : String.join(",", m.zones()),
              m.lastProbe() == null ? "-" : ago(m.lastProbe(), now),
              expiry(m, now, warnWithin)));
    }
    StringBuilder out = new StringBuilder();
    render(rows, out);
    for (MemberRow m : members) {
      if (m.leaving() != null) {
        out.append("  ").append(m.name()).append(": leaving (").append(m.leaving()).append(')');
        out.append('\n');
      } else if (m.ready() == null) {
        out.append("  ").append(m.name()).append(": Pier has not reported on it yet\n");
      } else if (!m.reason().isEmpty()) {
        out.append("  ").append(m.name()).append(": ").append(m.reason()).append('\n');
      }
    }
    out.append('\n');
    if (services.isEmpty()) {
      out.append("No federated Services.\n");
    } else {
      out.append(servicesOnly());
    }
    for (ServiceRow s : services) {
      held(s, now, out);
    }
    names(services, out);
    return out.toString();
  }

  /** {@code pier status NAMESPACE/NAME}: one Service, its names and the Events that explain it. */
  public static String detail(ServiceRow s, List<EventRow> events, Instant now) {
    StringBuilder out = new StringBuilder();
    out.append(new StatusReport(List.of(), List.of(s)).servicesOnly());
    held(s, now, out);
    names(List.of(s), out);
    out.append('\n');
    if (events.isEmpty()) {
      out.append("No Events.\n");
      return out.toString();
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("LAST SEEN", "TYPE", "REASON", "COUNT", "MESSAGE"));
    for (EventRow e : events) {
      rows.add(
          List.of(
              e.last() == null ? "-" : ago(e.last(), now),
              e.type(),
              e.reason(),
              Integer.toString(e.count()),
              e.message()));
    }
    render(rows, out);
    return out.toString();
  }

  /** For scripts: the Service as in {@link #json}, with its Events. */
  public static JsonObject detailJson(ServiceRow s, List<EventRow> events) {
    JsonArray es = new JsonArray();
    for (EventRow e : events) {
      es.add(
          new JsonObject()
              .put("type", e.type())
              .put("reason", e.reason())
              .put("lastSeen", str(e.last()))
              .put("count", e.count())
              .put("message", e.message()));
    }
    return service(s).put("events", es);
  }

  private String servicesOnly() {
    List<List<String>> svc = new ArrayList<>();
    svc.add(List.of("SERVICE", "PLACEMENT", "COPIES", "INGRESSES"));
    for (ServiceRow s : services) {
      List<String> copies = new ArrayList<>();
      List<String> ingresses = new ArrayList<>();
      for (Copy c : s.copies()) {
        copies.add(c.cluster());
        ingresses.add(
            c.cluster() + "=" + (c.ingresses().isEmpty() ? "-" : String.join("|", c.ingresses())));
      }
      svc.add(
          List.of(
              s.namespace() + "/" + s.name(),
              s.placement(),
              copies.isEmpty() ? "-" : String.join(",", copies),
              ingresses.isEmpty() ? "-" : String.join(" ", ingresses)));
    }
    StringBuilder out = new StringBuilder();
    render(svc, out);
    return out.toString();
  }

  private static void held(ServiceRow s, Instant now, StringBuilder out) {
    if (s.heldSince() != null) {
      out.append("  ")
          .append(s.namespace())
          .append('/')
          .append(s.name())
          .append(": status and DNS names held as last seen since ")
          .append(s.heldSince().truncatedTo(ChronoUnit.SECONDS))
          .append(" (")
          .append(ago(s.heldSince(), now))
          .append("): too few of its members are reachable\n");
    }
  }

  private static void names(List<ServiceRow> services, StringBuilder out) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("DNS NAME", "ANSWER"));
    for (ServiceRow s : services) {
      for (NameAnswer n : s.names()) {
        rows.add(List.of(n.name(), String.join(" ", n.answers())));
      }
    }
    if (rows.size() > 1) {
      out.append('\n');
      render(rows, out);
    }
  }

  private static String expiry(MemberRow m, Instant now, Duration warnWithin) {
    if (m.credentialExpiry() == null) {
      return m.credential().isEmpty() || m.ready() == null ? "-" : "never (" + m.credential() + ")";
    }
    Duration left = Duration.between(now, m.credentialExpiry());
    String text = m.credentialExpiry().truncatedTo(ChronoUnit.SECONDS) + " (" + left(left) + ")";
    if (left.isNegative()) {
      return "EXPIRED " + text;
    }
    return left.compareTo(warnWithin) < 0 ? "WARN " + text : text;
  }

  private static String left(Duration d) {
    if (d.isNegative()) {
      return left(d.negated()) + " ago";
    }
    if (d.toDays() >= 2) {
      return d.toDays() + "d";
    }
    if (d.toHours() >= 1) {
      return d.toHours() + "h";
    }
    return Math.max(0, d.toMinutes()) + "m";
  }

  private static String ago(Instant t, Instant now) {
    Duration d = Duration.between(t, now);
    if (d.isNegative()) {
      d = Duration.ZERO;
    }
    return Durations.format(d.truncatedTo(ChronoUnit.SECONDS)) + " ago";
  }

  private static String dash(String s) {
    return s == null || s.isEmpty() ? "-" : s;
  }

  private static void render(List<List<String>> rows, StringBuilder out) {
    int[] width = new int[rows.get(0).size()];
    for (List<String> r : rows) {
      for (int i = 0; i < r.size(); i++) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    for (List<String> r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.size(); i++) {
        line.append(r.get(i));
        if (i < r.size() - 1) {
          line.append(" ".repeat(width[i] - r.get(i).length() + 2));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
  }

  /** For scripts: every field, times as RFC 3339, {@code credentialWarning} per member. */
  public JsonObject json(Instant now, Duration warnWithin) {
    JsonArray ms = new JsonArray();
    for (MemberRow m : members) {
      ms.add(
          new JsonObject()
              .put("name", m.name())
              .put("secret", m.secret())
              .put("ready", m.ready())
              .put("version", m.version())
              .put("region", m.region())
              .put("zones", new JsonArray(m.zones()))
              .put("lastProbe", str(m.lastProbe()))
              .put("credential", m.credential())
              .put("credentialExpiry", str(m.credentialExpiry()))
              .put(
                  "credentialWarning",
                  m.credentialExpiry() != null
                      && Duration.between(now, m.credentialExpiry()).compareTo(warnWithin) < 0)
              .put("reason", m.reason())
              .put("leaving", str(m.leaving())));
    }
    JsonArray ss = new JsonArray();
    for (ServiceRow s : services) {
      ss.add(service(s));
    }
    return new JsonObject().put("members", ms).put("services", ss);
  }

  private static JsonObject service(ServiceRow s) {
    JsonArray copies = new JsonArray();
    s.copies()
        .forEach(
            c ->
                copies.add(
                    new JsonObject()
                        .put("cluster", c.cluster())
                        .put("ingresses", new JsonArray(c.ingresses()))));
    JsonArray names = new JsonArray();
    s.names()
        .forEach(
            n ->
                names.add(
                    new JsonObject()
                        .put("name", n.name())
                        .put("answers", new JsonArray(n.answers()))));
    return new JsonObject()
        .put("namespace", s.namespace())
        .put("name", s.name())
        .put("placement", s.placement())
        .put("copies", copies)
        .put("namesHeldSince", str(s.heldSince()))
        .put("names", names);
  }

  private static String str(Instant t) {
    return t == null ? null : t.toString();
  }
}
