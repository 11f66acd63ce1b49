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

/** {@link FederatedNames} published by the {@link DnsPublisher}. */
record PublishedNames(DnsPublisher dns) implements FederatedNames {
  /** The publisher's names, or null without DNS. */
  static FederatedNames of(DnsPublisher dns) {
    return dns == null ? null : new PublishedNames(dns);
  }

  @Override
  public Future<ServingCluster> servingCluster(
      ClusterLocation location, List<LbIngress> ingress, boolean healthy) {
    return dns.servingCluster(location, ingress, healthy);
  }

  @Override
  public Future<WorkResult> syncFederated(
      ClusterAccess host,
      ServiceKey key,
      Service svc,
      boolean federated,
      List<Future<ServingCluster>> serving) {
    return dns.syncFederated(host, key, svc, federated, serving);
  }
}
