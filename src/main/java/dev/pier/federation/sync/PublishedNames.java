package dev.pier.federation.sync;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.ServingCluster;
import dev.pier.dns.publish.DnsPublisher;
import dev.pier.kube.ClusterAccess;
import dev.pier.model.LbIngress;
import dev.pier.model.ServiceKey;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import java.util.List;

/** {@link FederatedNames} published by the {@link DnsPublisher}, for the host cluster. */
record PublishedNames(DnsPublisher dns, ClusterAccess host) implements FederatedNames {
  /** The publisher's names of the host's Services, or null without DNS. */
  static FederatedNames of(DnsPublisher dns, ClusterAccess host) {
    return dns == null ? null : new PublishedNames(dns, host);
  }

  @Override
  public Future<ServingCluster> servingCluster(
      ClusterLocation location, List<LbIngress> ingress, boolean healthy) {
    return dns.servingCluster(location, ingress, healthy);
  }

  @Override
  public Future<WorkResult> syncFederated(
      ServiceKey key, Service svc, boolean federated, List<Future<ServingCluster>> serving) {
    return dns.syncFederated(host, key, svc, federated, serving);
  }
}
