package dev.pier.cloud;

import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One provider per cluster behind the one SPI the reconciler calls: each cluster with load
 * balancers has its own provider section (its own {@code local.pools}, its own cloud project), and
 * every call goes to the provider of the cluster it names. A member that joins through a Secret
 * with a provider of its own is {@link #attach attached} while it is a member.
 */
public final class ClusterRoutedProvider implements LoadBalancerProvider {
  // Replaced whole on attach and detach: calls read it without a lock.
  private volatile Map<String, LoadBalancerProvider> byCluster;

  /**
   * @param byCluster the provider of each cluster with load balancers; may be empty (a federation
   *     whose members' load balancers all come from their clouds)
   */
  public ClusterRoutedProvider(Map<String, LoadBalancerProvider> byCluster) {
    this.byCluster = new LinkedHashMap<>(byCluster);
  }

  /**
   * Routes a cluster's calls to {@code provider} from now on.
   *
   * @throws IllegalStateException when the cluster has a provider already
   */
  public synchronized void attach(String cluster, LoadBalancerProvider provider) {
    if (byCluster.containsKey(cluster)) {
      throw new IllegalStateException("cluster " + cluster + " has a load balancer provider");
    }
    Map<String, LoadBalancerProvider> next = new LinkedHashMap<>(byCluster);
    next.put(cluster, provider);
    byCluster = next;
  }

  /** Stops routing a cluster's calls; returns its provider, for the caller to close, or null. */
  public synchronized LoadBalancerProvider detach(String cluster) {
    Map<String, LoadBalancerProvider> next = new LinkedHashMap<>(byCluster);
    LoadBalancerProvider removed = next.remove(cluster);
    byCluster = next;
    return removed;
  }

  private LoadBalancerProvider of(String cluster) {
    LoadBalancerProvider p = byCluster.get(cluster);
    if (p == null) {
      throw new IllegalArgumentException("cluster " + cluster + " has no load balancer provider");
    }
    return p;
  }

  @Override
  public String name() {
    List<String> names = new ArrayList<>();
    byCluster.forEach((c, p) -> names.add(c + ":" + p.name()));
    return names.isEmpty() ? "none" : String.join(",", names);
  }

  @Override
  public Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
    return of(cluster.name()).initialize(cluster, services);
  }

  @Override
  public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
    return of(clusterName).getLoadBalancer(clusterName, service);
  }

  @Override
  public String loadBalancerName(String clusterName, LbService service) {
    return of(clusterName).loadBalancerName(clusterName, service);
  }

  @Override
  public Future<EnsureResult> ensureLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return of(clusterName).ensureLoadBalancer(clusterName, service, nodes);
  }

  @Override
  public Future<VerifyResult> verifyLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return of(clusterName).verifyLoadBalancer(clusterName, service, nodes);
  }

  @Override
  public Future<Void> updateLoadBalancerHosts(
      String clusterName, LbService service, List<LbNode> nodes) {
    return of(clusterName).updateLoadBalancerHosts(clusterName, service, nodes);
  }

  @Override
  public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
    return of(clusterName).ensureLoadBalancerDeleted(clusterName, service);
  }

  /**
   * Offered when every cluster's provider can list what it owns. A cluster attached later whose
   * provider cannot list fails the listing of that cluster, so nothing of it is swept.
   */
  @Override
  public Optional<OwnedLoadBalancers> ownedLoadBalancers() {
    if (byCluster.isEmpty()) {
      return Optional.empty();
    }
    for (LoadBalancerProvider p : byCluster.values()) {
      if (p.ownedLoadBalancers().isEmpty()) {
        return Optional.empty();
      }
    }
    return Optional.of(
        new OwnedLoadBalancers() {
          @Override
          public Future<List<OwnedLoadBalancer>> list(String clusterName) {
            LoadBalancerProvider p = of(clusterName);
            return p.ownedLoadBalancers()
                .map(o -> o.list(clusterName))
                .orElseGet(
                    () ->
                        Future.failedFuture(
                            "cluster "
                                + clusterName
                                + ": provider "
                                + p.name()
                                + " cannot list its load balancers"));
          }

          @Override
          public Future<Void> delete(String clusterName, OwnedLoadBalancer loadBalancer) {
            return of(clusterName)
                .ownedLoadBalancers()
                .orElseThrow()
                .delete(clusterName, loadBalancer);
          }
        });
  }

  @Override
  public Future<Void> close() {
    List<Future<Void>> closed = new ArrayList<>();
    byCluster.values().forEach(p -> closed.add(p.close()));
    return Future.join(closed).mapEmpty();
  }
}
