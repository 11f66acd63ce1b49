package dev.pier.cli;

import dev.pier.config.Durations;
import dev.pier.dns.DnsNames;
import dev.pier.dns.publish.DnsOptions;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.IngressAnnotation;
import dev.pier.federation.LeaveRecord;
import dev.pier.federation.MemberStatus;
import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * {@code pier status}: the federation as the host API shows it. Members come from their Secrets
 * (the state Pier records in {@code pier.dev/member-status}) and leave records; federated Services
 * from the host Services' annotations. Members configured in Pier's config file have no Secret and
 * show only as copies.
 */
final class Status {
  static final String DEFAULT_SECRET_NAMESPACE = "pier";
  static final Duration DEFAULT_EXPIRY_WARNING =
      FederationOptions.DEFAULT_CREDENTIAL_EXPIRY_WARNING;
  static final Duration POLL = Duration.ofMillis(500);
  static final Set<String> VALUED =
      KubeTarget.flags(
          KubeTarget.HOST_FLAGS,
          Set.of(
              "-o",
              "--output",
              "--expiry-warning",
              "--dns-suffix",
              "--dns-federation",
              "--dns-server"));

  private Status() {}

  static int run(List<String> args, PrintStream out) {
    Flags f = Flags.parse(args, VALUED, Set.of());
    if (f.positional().size() > 1) {
      throw CliException.usage("unexpected argument '" + f.positional().get(1) + "'");
    }
    String[] only = f.positional().isEmpty() ? null : serviceArgument(f.positional().get(0));
    DnsNames dnsNames = dnsNames(f);
    String format = f.string("-o", f.string("--output", "table"));
    if (!format.equals("table") && !format.equals("json")) {
      throw CliException.usage(
          "flag "
              + (f.has("-o") ? "-o" : "--output")
              + ": invalid value '"
              + format
              + "': table or json");
    }
    Duration warn = f.duration("--expiry-warning", DEFAULT_EXPIRY_WARNING);
    KubeTarget host =
        KubeTarget.of("host", f.string("--host-kubeconfig", ""), f.string("--host-context", ""));
    StatusReport report;
    List<StatusReport.EventRow> events = List.of();
    try (KubernetesClient h = host.client()) {
      report = read(h, secretNamespace(f));
      if (only != null) {
        report = new StatusReport(report.members(), List.of(find(report, only)));
        events = events(h, only[0], only[1]);
      }
    }
    if (dnsNames != null) {
      report = answered(report, dnsNames, f.string("--dns-server", ""));
    }
    Instant now = Instant.now();
    if (only != null) {
      StatusReport.ServiceRow s = report.services().get(0);
      out.print(
          format.equals("json")
              ? StatusReport.detailJson(s, events).encodePrettily() + "\n"
              : StatusReport.detail(s, events, now));
      return 0;
    }
    out.print(
        format.equals("json")
            ? report.json(now, warn).encodePrettily() + "\n"
            : report.table(now, warn));
    return 0;
  }

  /** NAMESPACE/NAME of one federated host Service. */
  private static String[] serviceArgument(String arg) {
    String[] parts = arg.split("/", -1);
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      throw CliException.usage("argument '" + arg + "': a federated Service as NAMESPACE/NAME");
    }
    return parts;
  }

  /** The names Pier publishes, when {@code --dns-suffix} says under which suffix; else null. */
  private static DnsNames dnsNames(Flags f) {
    String suffix = f.string("--dns-suffix", "");
    String federation = f.string("--dns-federation", DnsOptions.DEFAULT_FEDERATION);
    if (f.has("--dns-federation") && !DnsNames.isLabel(federation)) {
      throw CliException.usage(
          "flag --dns-federation: invalid value '" + federation + "': a DNS label");
    }
    if (suffix.isEmpty()) {
      if (f.has("--dns-server") || f.has("--dns-federation")) {
        throw CliException.usage(
            "flag --dns-suffix: needed with --dns-server and --dns-federation (the dns.suffix"
                + " Pier publishes under)");
      }
      return null;
    }
    if (!DnsNames.isDomain(suffix)) {
      throw CliException.usage("flag --dns-suffix: invalid value '" + suffix + "': a domain name");
    }
    return new DnsNames(federation, suffix);
  }

  private static StatusReport.ServiceRow find(StatusReport report, String[] only) {
    return report.services().stream()
        .filter(s -> s.namespace().equals(only[0]) && s.name().equals(only[1]))
        .findFirst()
        .orElseThrow(
            () ->
                CliException.failed(
                    "no federated Service " + only[0] + "/" + only[1] + " on the host"));
  }

  /** Every Service's names with what the DNS server answers for them now. */
  private static StatusReport answered(StatusReport report, DnsNames names, String server) {
    Map<String, ServiceNames.Place> places = new HashMap<>();
    for (StatusReport.MemberRow m : report.members()) {
      places.put(m.name(), new ServiceNames.Place(m.region(), m.zones()));
    }
    Map<StatusReport.ServiceRow, List<String>> byService = new LinkedHashMap<>();
    Set<String> all = new LinkedHashSet<>();
    for (StatusReport.ServiceRow s : report.services()) {
      List<String> ofService =
          ServiceNames.of(
              names,
              s.namespace(),
              s.name(),
              s.copies().stream().map(StatusReport.Copy::cluster).toList(),
              places);
      byService.put(s, ofService);
      all.addAll(ofService);
    }
    Map<String, List<String>> answers;
    try (NameLookup lookup = new NameLookup(server)) {
      answers = lookup.answers(all);
    }
    List<StatusReport.ServiceRow> rows = new ArrayList<>();
    byService.forEach(
        (s, ofService) ->
            rows.add(
                s.withNames(
                    ofService.stream()
                        .map(n -> new StatusReport.NameAnswer(n, answers.get(n)))
                        .toList())));
    return new StatusReport(report.members(), rows);
  }

  /** The Events on one host Service, oldest first. */
  private static List<StatusReport.EventRow> events(
      KubernetesClient host, String namespace, String name) {
    List<Event> events;
    try {
      events = host.v1().events().inNamespace(namespace).list().getItems();
    } catch (KubernetesClientException e) {
      throw CliException.failed(
          "host: cannot read the Events of " + namespace + "/" + name + ": " + Apply.message(e));
    }
    List<StatusReport.EventRow> rows = new ArrayList<>();
    for (Event e : events) {
      ObjectReference o = e.getInvolvedObject();
      if (o != null && "Service".equals(o.getKind()) && name.equals(o.getName())) {
        rows.add(
            new StatusReport.EventRow(
                Objects.toString(e.getType(), ""),
                Objects.toString(e.getReason(), ""),
                lastSeen(e),
                count(e),
                Objects.toString(e.getMessage(), "")));
      }
    }
    rows.sort(
        Comparator.comparing(
            StatusReport.EventRow::last, Comparator.nullsFirst(Comparator.naturalOrder())));
    return rows;
  }

  /**
   * When an Event was last seen. Events written through events.k8s.io (as the apiserver's own
   * controllers do) leave {@code lastTimestamp} empty and carry the time in their series or {@code
   * eventTime}.
   */
  static Instant lastSeen(Event e) {
    if (e.getLastTimestamp() != null) {
      return Instant.parse(e.getLastTimestamp());
    }
    if (e.getSeries() != null && e.getSeries().getLastObservedTime() != null) {
      return Instant.parse(e.getSeries().getLastObservedTime().getTime());
    }
    if (e.getEventTime() != null && e.getEventTime().getTime() != null) {
      return Instant.parse(e.getEventTime().getTime());
    }
    return e.getFirstTimestamp() == null ? null : Instant.parse(e.getFirstTimestamp());
  }

  private static int count(Event e) {
    if (e.getCount() != null) {
      return e.getCount();
    }
    return e.getSeries() != null && e.getSeries().getCount() != null ? e.getSeries().getCount() : 1;
  }

  static String secretNamespace(Flags f) {
    return f.string("--secret-namespace", DEFAULT_SECRET_NAMESPACE);
  }

  static StatusReport read(KubernetesClient host, String namespace) {
    List<StatusReport.MemberRow> members = new ArrayList<>();
    List<Secret> secrets;
    List<Secret> records;
    List<Service> services;
    try {
      secrets =
          host.secrets()
              .inNamespace(namespace)
              .withLabel(FederationKeys.CLUSTER_SECRET_LABEL)
              .list()
              .getItems();
      records =
          host.secrets()
              .inNamespace(namespace)
              .withLabel(FederationKeys.LEAVING_LABEL)
              .list()
              .getItems();
      services = host.services().inAnyNamespace().list().getItems();
    } catch (KubernetesClientException e) {
      throw CliException.failed("host: cannot read the federation: " + Apply.message(e));
    }
    for (Secret s : secrets) {
      String name = s.getMetadata().getLabels().get(FederationKeys.CLUSTER_SECRET_LABEL);
      members.add(
          row(
              name,
              s,
              s.getMetadata().getDeletionTimestamp() == null
                  ? null
                  : Instant.parse(s.getMetadata().getDeletionTimestamp())));
    }
    for (Secret r : records) {
      String name = LeaveRecord.member(r);
      if (name != null && members.stream().noneMatch(m -> m.name().equals(name))) {
        Instant at = LeaveRecord.leaveAt(r);
        members.add(row(name, r, at == null ? Instant.EPOCH : at));
      }
    }
    members.sort(Comparator.comparing(StatusReport.MemberRow::name));
    List<StatusReport.ServiceRow> rows = new ArrayList<>();
    for (Service s : services) {
      Map<String, String> a = s.getMetadata().getAnnotations();
      if (a == null) {
        continue;
      }
      boolean federated = "true".equals(a.get(FederationKeys.FEDERATED_ANNOTATION));
      String ingresses = a.get(FederationKeys.INGRESSES_ANNOTATION);
      if (!federated && ingresses == null) {
        continue;
      }
      List<StatusReport.Copy> copies = new ArrayList<>();
      if (ingresses != null) {
        for (IngressAnnotation.ClusterIngresses c : IngressAnnotation.parse(ingresses)) {
          copies.add(
              new StatusReport.Copy(c.cluster(), c.items().stream().map(Status::address).toList()));
        }
      }
      String held = a.get(FederationKeys.NAMES_HELD_ANNOTATION);
      rows.add(
          new StatusReport.ServiceRow(
              s.getMetadata().getNamespace(),
              s.getMetadata().getName(),
              placement(a),
              copies,
              heldSince(held),
              List.of()));
    }
    rows.sort(
        Comparator.comparing(StatusReport.ServiceRow::namespace)
            .thenComparing(StatusReport.ServiceRow::name));
    return new StatusReport(members, rows);
  }

  private static StatusReport.MemberRow row(String name, Secret s, Instant leaving) {
    Map<String, String> a = s.getMetadata().getAnnotations();
    MemberStatus st =
        a == null ? null : MemberStatus.parse(a.get(FederationKeys.MEMBER_STATUS_ANNOTATION));
    if (st == null) {
      return new StatusReport.MemberRow(
          name, s.getMetadata().getName(), null, "", "", List.of(), null, "", null, "", leaving);
    }
    return new StatusReport.MemberRow(
        name,
        s.getMetadata().getName(),
        st.ready(),
        st.version(),
        st.region(),
        st.zones(),
        st.lastProbe(),
        st.credential(),
        st.credentialExpiry(),
        st.reason(),
        leaving);
  }

  private static Instant heldSince(String annotation) {
    if (annotation == null) {
      return null;
    }
    try {
      return Instant.parse(annotation);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static String placement(Map<String, String> a) {
    if (a.containsKey(FederationKeys.CLUSTERS_ANNOTATION)) {
      return "clusters=" + a.get(FederationKeys.CLUSTERS_ANNOTATION);
    }
    if (a.containsKey(FederationKeys.CLUSTER_SELECTOR_ANNOTATION)) {
      return "selector=" + a.get(FederationKeys.CLUSTER_SELECTOR_ANNOTATION);
    }
    return "all";
  }

  private static String address(LoadBalancerIngress i) {
    return i.getIp() != null ? i.getIp() : Objects.toString(i.getHostname(), "?");
  }

  /** A Secret's data as text, or null. */
  static String data(Secret s, String key) {
    if (s.getStringData() != null && s.getStringData().containsKey(key)) {
      return s.getStringData().get(key);
    }
    String b64 = s.getData() == null ? null : s.getData().get(key);
    if (b64 == null) {
      return null;
    }
    try {
      return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Waits until Pier reports the member ready on its Secret, with {@code expiry} as its credential
   * expiry when one is expected (Pier took the new token). Returns the exit status.
   */
  static int awaitReady(
      KubernetesClient host,
      String namespace,
      String member,
      Instant expiry,
      boolean changed,
      Duration wait,
      PrintStream out) {
    out.println(
        "waiting up to "
            + Durations.format(wait)
            + " for Pier to report cluster "
            + member
            + " ready");
    long deadline = System.nanoTime() + wait.toNanos();
    MemberStatus last = null;
    while (true) {
      try {
        Secret s = host.secrets().inNamespace(namespace).withName(Join.secretName(member)).get();
        Map<String, String> a = s == null ? null : s.getMetadata().getAnnotations();
        last =
            a == null ? null : MemberStatus.parse(a.get(FederationKeys.MEMBER_STATUS_ANNOTATION));
      } catch (KubernetesClientException e) {
        // Retried until the deadline: a blip of the host is not a failed join.
      }
      if (last != null
          && last.ready()
          && (expiry == null || expiry.equals(last.credentialExpiry()))) {
        out.println(
            "cluster "
                + member
                + ": ready ("
                + (last.version().isEmpty() ? "version unknown" : last.version())
                + (last.region().isEmpty() ? "" : ", region " + last.region())
                + (last.zones().isEmpty() ? "" : ", zones " + String.join(",", last.zones()))
                + ")");
        return 0;
      }
      if (System.nanoTime() > deadline) {
        break;
      }
      sleep(POLL);
    }
    String why =
        last == null
            ? "Pier has not reported on it: is Pier running, leading, with this cluster as its"
                + " federation host and federation.secretNamespace "
                + namespace
                + "?"
            : !last.ready()
                ? "Pier reports it not ready: "
                    + (last.reason().isEmpty() ? "no reason given" : last.reason())
                : "Pier has not taken the new token yet";
    throw CliException.failed(
        "cluster " + member + ": not ready after " + Durations.format(wait) + ": " + why);
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliException.failed("interrupted");
    }
  }
}
