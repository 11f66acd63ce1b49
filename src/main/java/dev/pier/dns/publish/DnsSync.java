package dev.pier.dns.publish;

import dev.pier.kube.ClusterAccess;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import java.util.Set;
import java.util.function.Consumer;

/** Brings a Service's DNS names in line with its load balancer; run by the per-key queue. */
public interface DnsSync {
  /**
   * Called once before the first sync, on the context syncs run on. Fails only for what retrying
   * cannot fix (an ambiguous zone); an unreachable DNS server is retried by the syncs.
   *
   * @param holders told, whenever the DNS server's state is read in full, the {@code
   *     namespace/name} of every Service that holds names, so that names of Services deleted while
   *     Pier was not running get their cleanup too
   */
  default Future<Void> start(Consumer<Set<String>> holders) {
    return Future.succeededFuture();
  }

  /**
   * @param svc the cached Service, or null when it is gone (its names are removed)
   * @param status the load balancer's status; empty when the Service has no load balancer
   * @return never failed: the outcome, with {@code DNS} as the kind to retry
   */
  Future<WorkResult> sync(ClusterAccess cluster, ServiceKey key, Service svc, LbStatus status);
}
