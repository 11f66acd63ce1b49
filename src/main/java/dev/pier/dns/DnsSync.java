package dev.pier.dns;

import dev.pier.kube.Cluster;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;

/** Brings a Service's DNS names in line with its load balancer; run by the per-key queue. */
public interface DnsSync {
  /**
   * Called once before the first sync, on the context syncs run on. Fails only for what retrying
   * cannot fix (an ambiguous zone); an unreachable DNS server is retried by the syncs.
   */
  default Future<Void> start() {
    return Future.succeededFuture();
  }

  /**
   * @param svc the cached Service, or null when it is gone (its names are removed)
   * @param status the load balancer's status; empty when the Service has no load balancer
   * @return never failed: the outcome, with {@code DNS} as the kind to retry
   */
  Future<WorkResult> sync(Cluster cluster, ServiceKey key, Service svc, LbStatus status);
}
