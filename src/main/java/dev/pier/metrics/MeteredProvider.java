package dev.pier.metrics;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ForwardingLoadBalancerProvider;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.cloud.VerifyResult;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.util.Futures;
import io.vertx.core.Future;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** Times every call of a provider by operation and result ({@code pier_provider_call_duration}). */
public final class MeteredProvider extends ForwardingLoadBalancerProvider {
  private final PierMetrics metrics;

  public MeteredProvider(LoadBalancerProvider delegate, PierMetrics metrics) {
    super(delegate);
    this.metrics = metrics;
  }

  @Override
  public Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
    return timed("initialize", () -> delegate.initialize(cluster, services));
  }

  @Override
  public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
    return timed("get", () -> delegate.getLoadBalancer(clusterName, service));
  }

  @Override
  public Future<EnsureResult> ensureLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return timed("ensure", () -> delegate.ensureLoadBalancer(clusterName, service, nodes));
  }

  @Override
  public Future<VerifyResult> verifyLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return timed("verify", () -> delegate.verifyLoadBalancer(clusterName, service, nodes));
  }

  @Override
  public Future<Void> updateLoadBalancerHosts(
      String clusterName, LbService service, List<LbNode> nodes) {
    return timed(
        "update_hosts", () -> delegate.updateLoadBalancerHosts(clusterName, service, nodes));
  }

  @Override
  public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
    return timed("delete", () -> delegate.ensureLoadBalancerDeleted(clusterName, service));
  }

  private <T> Future<T> timed(String operation, Supplier<Future<T>> call) {
    long start = System.nanoTime();
    return Futures.call(call)
        .onComplete(
            ar ->
                metrics.recordProviderCall(
                    operation, result(ar.cause()), System.nanoTime() - start));
  }

  static String result(Throwable error) {
    if (error == null) {
      return "success";
    }
    if (error instanceof ProviderException.RetryAfter) {
      return "retry_after";
    }
    if (error instanceof ProviderException.InvalidInput) {
      return "invalid_input";
    }
    if (error instanceof ProviderException.ImplementedElsewhere) {
      return "implemented_elsewhere";
    }
    return "error";
  }
}
