package dev.pier.cloud;

import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import io.vertx.core.Future;
import java.util.List;
import java.util.Optional;

/** A provider that forwards every call to another; decorators override what they change. */
public abstract class ForwardingLoadBalancerProvider implements LoadBalancerProvider {
  protected final LoadBalancerProvider delegate;

  protected ForwardingLoadBalancerProvider(LoadBalancerProvider delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
    return delegate.initialize(cluster, services);
  }

  @Override
  public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
    return delegate.getLoadBalancer(clusterName, service);
  }

  @Override
  public String loadBalancerName(String clusterName, LbService service) {
    return delegate.loadBalancerName(clusterName, service);
  }

  @Override
  public Future<EnsureResult> ensureLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return delegate.ensureLoadBalancer(clusterName, service, nodes);
  }

  @Override
  public Future<VerifyResult> verifyLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return delegate.verifyLoadBalancer(clusterName, service, nodes);
  }

  @Override
  public Future<Void> updateLoadBalancerHosts(
      String clusterName, LbService service, List<LbNode> nodes) {
    return delegate.updateLoadBalancerHosts(clusterName, service, nodes);
  }

  @Override
  public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
    return delegate.ensureLoadBalancerDeleted(clusterName, service);
  }

  @Override
  public Optional<OwnedLoadBalancers> ownedLoadBalancers() {
    return delegate.ownedLoadBalancers();
  }

  @Override
  public Future<Void> close() {
    return delegate.close();
  }
}
