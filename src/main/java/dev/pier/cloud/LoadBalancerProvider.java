package dev.pier.cloud;

import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import io.vertx.core.Future;
import java.util.List;
import java.util.Optional;

/**
 * The cloud provider SPI, mirroring {@code cloudprovider.LoadBalancer}. Every call is non-blocking
 * and may be made for many Services at once, but never twice at once for one Service (the reconcile
 * queue serializes each key). Arguments are immutable.
 *
 * <p>Failures are reported as a {@link ProviderException} kind: {@link ProviderException.Retry}
 * (backoff), {@link ProviderException.RetryAfter} (fixed delay), {@link
 * ProviderException.ImplementedElsewhere} and {@link ProviderException.InvalidInput} (permanent
 * until the Service changes). Any other exception counts as {@code Retry}.
 */
public interface LoadBalancerProvider {

  /** The provider's name as configured ({@code local}, ...). */
  String name();

  /**
   * Called once per cluster before any other call, with the cluster's identity and every Service
   * the cluster holds that has, or wants, a load balancer. Later calls name the cluster by {@link
   * ClusterIdentity#name()}; a provider that marks what it makes as its own (labels, tags, request
   * fields) keeps {@link ClusterIdentity#uid()} from here and puts it in every mark, and treats as
   * its own only what carries it. Providers that keep local state (address allocations) rebuild it
   * here from the Services' status.
   */
  default Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
    return Future.succeededFuture();
  }

  /** The load balancer's status if it exists. Exists only for load balancers this provider made. */
  Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service);

  /** The provider's name for the Service's load balancer. */
  String loadBalancerName(String clusterName, LbService service);

  /** Creates or updates the load balancer so that it serves the Service on the given nodes. */
  Future<EnsureResult> ensureLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes);

  /**
   * Checks the Service's load balancer against what it should be and repairs what differs (deleted
   * or changed out of band); called periodically for every load balancer Pier serves. The default
   * runs {@link #ensureLoadBalancer}, which providers implement idempotently, and cannot tell what
   * it repaired; providers that can, say so in {@link VerifyResult#repairs()}.
   */
  default Future<VerifyResult> verifyLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return ensureLoadBalancer(clusterName, service, nodes).map(r -> new VerifyResult(r, List.of()));
  }

  /** Points an existing load balancer at a new node set; nothing else changes. */
  Future<Void> updateLoadBalancerHosts(String clusterName, LbService service, List<LbNode> nodes);

  /** Deletes the load balancer; succeeds when it does not exist. Never ImplementedElsewhere. */
  Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service);

  /**
   * Lists the load balancers this provider owns in the cluster, for providers that can find orphans
   * (load balancers whose Service was deleted while Pier was down). Empty when unsupported; a
   * provider that learns only by asking (the webhook's optional {@code list}) may offer it and then
   * answer empty lists. The sweep runs only when {@code orphans.cleanup} is on.
   */
  default Optional<OwnedLoadBalancers> ownedLoadBalancers() {
    return Optional.empty();
  }

  /** Releases listeners, clients and timers. */
  default Future<Void> close() {
    return Future.succeededFuture();
  }

  /** The optional "list what I own" capability. */
  interface OwnedLoadBalancers {
    /** The owned load balancers of the cluster, each with the Service it was made for. */
    Future<List<OwnedLoadBalancer>> list(String clusterName);

    /** Deletes an owned load balancer found by {@link #list}. */
    Future<Void> delete(String clusterName, OwnedLoadBalancer loadBalancer);
  }

  /**
   * A load balancer found by {@link OwnedLoadBalancers#list}.
   *
   * @param serviceKey the {@code cluster/namespace/name} key of the Service it was made for
   */
  record OwnedLoadBalancer(String id, String name, String serviceUid, String serviceKey) {
    /** The Service it was made for, as log lines name Services. */
    public ServiceRef service(String cluster) {
      try {
        return ServiceRef.of(ServiceKey.parse(serviceKey), serviceUid);
      } catch (IllegalArgumentException | NullPointerException e) {
        return new ServiceRef(cluster, "", String.valueOf(serviceKey), serviceUid);
      }
    }
  }
}
