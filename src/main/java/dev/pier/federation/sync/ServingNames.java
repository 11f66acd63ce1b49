package dev.pier.federation.sync;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.ServingCluster;
import dev.pier.federation.CopyState;
import dev.pier.federation.HeldMembers;
import dev.pier.federation.Placement;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.model.ServiceKey;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The federated Services' DNS names, from every placed member that has a load balancer for one: its
 * addresses count where the member is ready and its copy has ready endpoints, whatever {@code
 * unreadyClusters} keeps in the status: DNS steers traffic, so it never points at a member known to
 * be down.
 */
final class ServingNames {
  private final Members members;
  private final FederatedNames dns;

  /**
   * @param dns the DNS port, or null without DNS
   */
  ServingNames(Members members, FederatedNames dns) {
    this.members = members;
    this.dns = dns;
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
    return dns.syncFederated(key, svc, placement != null, serving);
  }
}
