package dev.pier.federation.sync;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.DataPathDecision;
import dev.pier.dns.ProbeSpec;
import dev.pier.dns.ServingCluster;
import dev.pier.dns.publish.DataPathProber;
import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.federation.CopyState;
import dev.pier.federation.HeldMembers;
import dev.pier.federation.Placement;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.ClusterAccess;
import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceKey;
import dev.pier.model.Views;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The federated Services' DNS names, from every placed member that has a load balancer for one: its
 * addresses count where the member is ready and its copy has ready endpoints, whatever {@code
 * unreadyClusters} keeps in the status: DNS steers traffic, so it never points at a member known to
 * be down. A Service that asks Pier to probe its load balancers ({@link ProbeSpec#ANNOTATION}) also
 * loses the addresses that stopped answering ({@link DataPathDecision}).
 */
final class ServingNames {
  private static final ServiceLog log = ServiceLog.of(FederationReconciler.class);

  private final Members members;
  private final FederatedNames dns;
  private final DataPathProber probes;
  private final ClusterAccess host;

  /**
   * @param dns the DNS port, or null without DNS
   * @param probes probes the load balancers of the Services that ask for it, or null
   * @param host where a hold by the probes is reported
   */
  ServingNames(Members members, FederatedNames dns, DataPathProber probes, ClusterAccess host) {
    this.members = members;
    this.dns = dns;
    this.probes = probes;
    this.host = host;
  }

  /**
   * Publishes the names of the host Service from the members serving it.
   *
   * @param placement where it is placed, or null when it is federated no more (its names go)
   * @param hold the members held as last seen
   */
  Future<WorkResult> sync(
      ServiceKey key,
      Service svc,
      Placement.Result placement,
      HeldMembers.Decision hold,
      Map<String, CopyState> copies) {
    if (dns == null) {
      return Future.succeededFuture(WorkResult.success());
    }
    List<Future<ServingCluster>> serving = new ArrayList<>();
    for (String name : placement == null ? List.<String>of() : placement.clusters()) {
      Member m = members.get(name);
      CopyState copy = copies.get(name);
      if (m == null || copy == null || !copy.owned()) {
        continue;
      }
      var t = copy.topology();
      serving.add(
          dns.servingCluster(
              new ClusterLocation(m.name(), t.region(), t.zones()),
              copy.status().ingress(),
              (m.ready() || hold.held().contains(name)) && copy.readyEndpoints()));
    }
    ProbeSpec spec = placement == null || svc == null ? null : probeSpec(svc);
    int port = spec == null ? -1 : tcpPort(svc);
    if (spec != null && port < 0) {
      host.events()
          .warning(
              ObjectRef.of(Views.ref(host.name(), svc)),
              EventReasons.INVALID_DNS_ANNOTATION,
              ProbeSpec.ANNOTATION
                  + ": '"
                  + spec
                  + "' needs a TCP port on the Service to probe, and it has none; not probing");
    }
    if (spec == null || port < 0) {
      if (probes != null) {
        probes.forget(key);
      }
      return dns.syncFederated(key, svc, placement != null, serving);
    }
    return Future.all(serving)
        .transform(
            ar -> {
              if (ar.failed()) {
                // As without probes: the publisher reports it.
                return dns.syncFederated(key, svc, true, serving);
              }
              List<ServingCluster> all = ar.result().list();
              DataPathDecision d = probes.probe(key, spec, port, DataPathDecision.published(all));
              if (d.held()) {
                warnHeld(svc, d);
              }
              return dns.syncFederated(
                  key, svc, true, d.apply(all).stream().map(Future::succeededFuture).toList());
            });
  }

  /** The Service's probe, or null: none asked for, none possible, or a value that is no probe. */
  private ProbeSpec probeSpec(Service svc) {
    if (probes == null || svc.getMetadata().getAnnotations() == null) {
      return null;
    }
    // A value that is no probe is reported with the Service's other DNS annotations.
    return ProbeSpec.parse(svc.getMetadata().getAnnotations().get(ProbeSpec.ANNOTATION)).spec();
  }

  /** The port probed: the Service's first TCP port, or -1. */
  static int tcpPort(Service svc) {
    if (svc.getSpec() == null || svc.getSpec().getPorts() == null) {
      return -1;
    }
    for (ServicePort p : svc.getSpec().getPorts()) {
      if ((p.getProtocol() == null || p.getProtocol().equals("TCP")) && p.getPort() != null) {
        return p.getPort();
      }
    }
    return -1;
  }

  private void warnHeld(Service svc, DataPathDecision d) {
    String msg =
        "Only "
            + d.answering()
            + " of "
            + d.probed()
            + " load-balancer addresses answer their probes (below federation.panicThreshold):"
            + " addresses "
            + String.join(", ", new TreeSet<>(d.failing()))
            + " are kept in the DNS names, since Pier cannot tell a dead fleet from its own"
            + " blocked egress";
    log.warn(Views.ref(host.name(), svc), "{}", msg);
    host.events()
        .warning(ObjectRef.of(Views.ref(host.name(), svc)), EventReasons.FEDERATED_NAMES_HELD, msg);
  }
}
