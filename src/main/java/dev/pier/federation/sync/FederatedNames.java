package dev.pier.federation.sync;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.ServingCluster;
import dev.pier.model.LbIngress;
import dev.pier.model.ServiceKey;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import java.util.List;

/**
 * What a federation run needs of DNS: the names of the host's federated Services, fed by the
 * members serving them. {@link PublishedNames} is the real one, over the DNS publisher.
 */
interface FederatedNames {
  /** One member serving a Service: its location, its addresses, whether its endpoints are ready. */
  Future<ServingCluster> servingCluster(
      ClusterLocation location, List<LbIngress> ingress, boolean healthy);

  /**
   * Publishes the names of the host Service (null when gone) from the members serving it; all of
   * them go when it is not {@code federated} any more.
   */
  Future<WorkResult> syncFederated(
      ServiceKey key, Service svc, boolean federated, List<Future<ServingCluster>> serving);
}
