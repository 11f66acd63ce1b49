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
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Times every call of a provider by operation and result ({@code pier_provider_call_duration}), and
 * gives each a total deadline: a call still running after it fails with a {@link
 * ProviderException.Retry} naming the call, so that a provider that trickles its answer never pins
 * a key (a deletion that times out is retried, never taken as done).
 */
public final class MeteredProvider extends ForwardingLoadBalancerProvider {
  public static final Duration DEFAULT_CALL_DEADLINE = Duration.ofMinutes(2);

  private final PierMetrics metrics;
  private final Vertx vertx;
  private final Duration callDeadline;
  private final LoadBalancerStates states = new LoadBalancerStates();

  public MeteredProvider(
      LoadBalancerProvider delegate, PierMetrics metrics, Vertx vertx, Duration callDeadline) {
    super(delegate);
    this.metrics = metrics;
    this.vertx = vertx;
    this.callDeadline = callDeadline;
  }

  /**
   * Also publishes the load balancers of the provider named {@code provider} by state ({@code
   * pier_load_balancers}).
   */
  public MeteredProvider(
      LoadBalancerProvider delegate,
      PierMetrics metrics,
      Vertx vertx,
      Duration callDeadline,
      String provider) {
    this(delegate, metrics, vertx, callDeadline);
    metrics.bindLoadBalancers(provider, states);
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
    return timed("ensure", () -> delegate.ensureLoadBalancer(clusterName, service, nodes))
        .onComplete(
            ar ->
                track(
                    clusterName,
                    service,
                    ar.succeeded()
                        ? LoadBalancerStates.State.READY
                        : LoadBalancerStates.State.FAILING));
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
    return timed("delete", () -> delegate.ensureLoadBalancerDeleted(clusterName, service))
        .onSuccess(v -> track(clusterName, service, null));
  }

  @Override
  public Optional<OwnedLoadBalancers> ownedLoadBalancers() {
    return delegate
        .ownedLoadBalancers()
        .map(
            owned ->
                new OwnedLoadBalancers() {
                  @Override
                  public Future<List<OwnedLoadBalancer>> list(String clusterName) {
                    return timed("owned_list", () -> owned.list(clusterName));
                  }

                  @Override
                  public Future<Void> delete(String clusterName, OwnedLoadBalancer loadBalancer) {
                    return timed("owned_delete", () -> owned.delete(clusterName, loadBalancer));
                  }
                });
  }

  /** Records the load balancer's state; null once it is deleted. */
  private void track(String clusterName, LbService service, LoadBalancerStates.State state) {
    if (service == null) {
      return;
    }
    String key = clusterName + "/" + service.key().objectKey();
    if (state == null) {
      states.remove(key);
    } else {
      states.set(key, state);
    }
  }

  private <T> Future<T> timed(String operation, Supplier<Future<T>> call) {
    long start = System.nanoTime();
    return Futures.withDeadline(
            vertx, Futures.call(call), callDeadline, "provider call " + operation)
        .recover(
            e ->
                Future.failedFuture(
                    e instanceof Futures.DeadlineExceeded
                        ? new ProviderException.Retry(e.getMessage(), e)
                        : e))
        .onComplete(
            ar ->
                metrics.recordProviderCall(
                    operation, result(ar.cause()), System.nanoTime() - start));
  }

  static String result(Throwable error) {
    if (error == null) {
      return "success";
    }
    if (error instanceof ProviderException.Retry
        && error.getCause() instanceof Futures.DeadlineExceeded) {
      return "deadline_exceeded";
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
