package dev.pier.dns.publish;

import dev.pier.dns.AnswerDecision;
import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsException;
import dev.pier.dns.RecordDiff;
import dev.pier.dns.RecordSet;
import dev.pier.dns.ServingCluster;
import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.kube.ClusterAccess;
import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a DNS sync tells the operator: a log line about the Service and, while the Service exists
 * ({@code ref} not null), an Event on it.
 */
final class DnsReports {
  // Under the publisher's name, where every line of DNS publishing is logged.
  private static final ServiceLog serviceLog = ServiceLog.of(DnsPublisher.class);

  private DnsReports() {}

  /** Annotation values a Service's names do not follow, each naming the field and the value. */
  static void answers(
      ClusterAccess cluster,
      ServiceRef service,
      ObjectRef ref,
      List<AnswerDecision.Warning> warnings) {
    for (AnswerDecision.Warning w : warnings) {
      serviceLog.warn(service, "DNS answers: {}", w.message());
      if (ref != null) {
        cluster
            .events()
            .warning(
                ref,
                w.problem() == AnswerDecision.Problem.UNSUPPORTED
                    ? EventReasons.DNS_STRATEGY_UNSUPPORTED
                    : EventReasons.INVALID_DNS_ANNOTATION,
                w.message());
      }
    }
  }

  /** The names a change set changed. */
  static void updated(ClusterAccess cluster, ServiceRef service, ObjectRef ref, ChangeSet done) {
    String summary = summary(done);
    serviceLog.info(service, "DNS updated: {}", summary);
    if (ref != null) {
      cluster.events().normal(ref, EventReasons.UPDATED_DNS, "Updated DNS names: " + summary);
    }
  }

  /** An rrset of the old scheme, rewritten with this cluster's mark. */
  static void adopted(ServiceRef service, RecordSet r, String mark) {
    serviceLog.info(
        service,
        "adopting DNS rrset {} marked pier-owner={} without a cluster: it holds"
            + " exactly this cluster's records; marking it pier-owner={}",
        r.label(),
        r.owner(),
        mark);
  }

  /** A name left alone because records Pier does not own are there. */
  static void conflict(
      ClusterAccess cluster, ServiceRef service, ObjectRef ref, RecordDiff.Conflict c) {
    serviceLog.warn(service, "DNS name left alone: {}", c.describe());
    if (ref != null) {
      cluster
          .events()
          .warning(
              ref,
              EventReasons.DNS_RECORD_CONFLICT,
              "Not publishing " + c.describe() + "; Pier changes only records it created");
    }
  }

  /** A change set the server refused, about to be sent name by name. */
  static void splitting(ServiceRef service, int names, Throwable refusal) {
    serviceLog.warn(
        service,
        "DNS change set of {} names refused ({}); sending each name on its own",
        names,
        refusal.getMessage());
  }

  /** One name the server refused on its own. */
  static void rejected(
      ClusterAccess cluster, ServiceRef service, ObjectRef ref, String name, DnsException e) {
    serviceLog.warn(
        service, "DNS name {} refused, retrying with backoff: {}", name, e.getMessage());
    if (ref != null) {
      cluster
          .events()
          .warning(
              ref,
              EventReasons.DNS_RECORD_REJECTED,
              "Not publishing DNS name "
                  + name
                  + ": "
                  + e.getMessage()
                  + "; retrying with backoff");
    }
  }

  /**
   * One Warning for every desired name that breaks DNS's length limits. Such a name is never sent:
   * retrying cannot shorten it, so the sync does not fail for it; a change of the Service, the
   * nodes' labels or the configuration computes the names again.
   */
  static void invalid(
      ClusterAccess cluster, ServiceRef service, ObjectRef ref, Map<String, String> invalid) {
    if (invalid.isEmpty()) {
      return;
    }
    String msg =
        "Not publishing DNS name"
            + (invalid.size() == 1 ? " " : "s ")
            + invalid.entrySet().stream()
                .map(e -> e.getKey() + " (" + e.getValue() + ")")
                .collect(Collectors.joining(", "))
            + "; a shorter Service name, namespace, dns.federation, dns.suffix or region/zone"
            + " label makes it fit";
    serviceLog.warn(service, "{}", msg);
    if (ref != null) {
      cluster.events().warning(ref, EventReasons.INVALID_DNS_NAME, msg);
    }
  }

  /**
   * One Warning naming the hostnames that did not resolve and the names that keep their records for
   * them.
   */
  static void unresolved(
      ClusterAccess cluster,
      ServiceRef service,
      ObjectRef ref,
      List<ServingCluster> serving,
      Set<String> unknown) {
    String hostnames =
        serving.stream()
            .filter(ServingCluster::addressesUnknown)
            .map(
                c -> "cluster " + c.location().cluster() + ": " + String.join("; ", c.unresolved()))
            .collect(Collectors.joining("; "));
    String msg =
        "Load balancer addresses unknown ("
            + hostnames
            + "): DNS names "
            + String.join(", ", unknown)
            + " keep their records until the hostnames resolve; retrying with backoff";
    serviceLog.warn(service, "{}", msg);
    if (ref != null) {
      cluster.events().warning(ref, EventReasons.DNS_HOSTNAME_UNRESOLVED, msg);
    }
  }

  /** A sync that failed as a whole. */
  static void failed(ClusterAccess cluster, ServiceRef service, ObjectRef ref, Throwable e) {
    String why = e.getMessage() == null ? e.toString() : e.getMessage();
    if (ref != null) {
      cluster
          .events()
          .warning(ref, EventReasons.SYNC_DNS_FAILED, "Error syncing DNS names: " + why);
    }
    serviceLog.warn(
        service,
        "DNS sync failed{}: {}",
        retryable(e) ? ", retrying with backoff" : " (waiting for a change)",
        why);
  }

  /** Whether retrying may help: anything but a DNS error that says it cannot. */
  static boolean retryable(Throwable e) {
    return !(e instanceof DnsException d) || d.retryable();
  }

  static String summary(ChangeSet changes) {
    List<String> parts = new ArrayList<>();
    changes.deletes().forEach(d -> parts.add("-" + d.label()));
    changes.replaces().forEach(r -> parts.add(r.label() + " " + String.join(",", r.records())));
    return parts.stream().collect(Collectors.joining("; "));
  }
}
