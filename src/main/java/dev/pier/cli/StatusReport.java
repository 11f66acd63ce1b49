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

  /**
   * @param placement what the Service's annotations say about where it goes
   */
  public record ServiceRow(String namespace, String name, String placement, List<Copy> copies) {}

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
    if (services.isEmpty()) {
      out.append("No federated Services.\n");
    } else {
      render(svc, out);
    }
    return out.toString();
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
      JsonArray copies = new JsonArray();
      s.copies()
          .forEach(
              c ->
                  copies.add(
                      new JsonObject()
                          .put("cluster", c.cluster())
                          .put("ingresses", new JsonArray(c.ingresses()))));
      ss.add(
          new JsonObject()
              .put("namespace", s.namespace())
              .put("name", s.name())
              .put("placement", s.placement())
              .put("copies", copies));
    }
    return new JsonObject().put("members", ms).put("services", ss);
  }

  private static String str(Instant t) {
    return t == null ? null : t.toString();
  }
}
