package dev.pier.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import dev.pier.reconcile.ReconcileDecision;
import dev.pier.util.Futures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every provider call gets a total deadline; a call past it is a retry, never done. */
class MeteredProviderTest {
  private Vertx vertx;
  private SimpleMeterRegistry registry;
  private MeteredProvider provider;

  /** A provider whose every call is accepted and never answered. */
  private static final class Silent implements LoadBalancerProvider {
    @Override
    public String name() {
      return "silent";
    }

    @Override
    public String loadBalancerName(String clusterName, LbService service) {
      return "lb";
    }

    @Override
    public Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
      return Promise.<Void>promise().future();
    }

    @Override
    public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
      return Promise.<Optional<LbStatus>>promise().future();
    }

    @Override
    public Future<EnsureResult> ensureLoadBalancer(
        String clusterName, LbService service, List<LbNode> nodes) {
      return Promise.<EnsureResult>promise().future();
    }

    @Override
    public Future<Void> updateLoadBalancerHosts(
        String clusterName, LbService service, List<LbNode> nodes) {
      return Promise.<Void>promise().future();
    }

    @Override
    public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
      return Promise.<Void>promise().future();
    }

    @Override
    public Optional<OwnedLoadBalancers> ownedLoadBalancers() {
      return Optional.of(
          new OwnedLoadBalancers() {
            @Override
            public Future<List<OwnedLoadBalancer>> list(String clusterName) {
              return Promise.<List<OwnedLoadBalancer>>promise().future();
            }

            @Override
            public Future<Void> delete(String clusterName, OwnedLoadBalancer loadBalancer) {
              return Promise.<Void>promise().future();
            }
          });
    }
  }

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    registry = new SimpleMeterRegistry();
    provider =
        new MeteredProvider(new Silent(), new PierMetrics(registry), vertx, Duration.ofMillis(200));
  }

  @AfterEach
  void tearDown() {
    vertx.close().await();
  }

  private static Throwable failureOf(Future<?> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().handle((v, t) -> t).get(5, TimeUnit.SECONDS);
  }

  @Test
  void aDeleteThatNeverAnswersFailsAtTheDeadlineAndIsRetriedNotTakenAsDone() throws Exception {
    Throwable e = failureOf(provider.ensureLoadBalancerDeleted("c", null));
    assertThat(e)
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessage("provider call delete did not finish within its deadline of 200ms")
        .hasCauseInstanceOf(Futures.DeadlineExceeded.class);
    WorkResult next = ReconcileDecision.afterDeleteFailure(e, Set.of(WorkKind.RECONCILE));
    assertThat(next.outcome()).isEqualTo(WorkResult.Outcome.RETRY);
    assertThat(
            registry
                .find("pier.provider.call.duration")
                .tags("operation", "delete", "result", "deadline_exceeded")
                .timer())
        .isNotNull();
  }

  @Test
  void everyProviderCallHasTheDeadline() throws Exception {
    List<Function<LoadBalancerProvider, Future<?>>> calls =
        List.of(
            p -> p.initialize(null, List.of()),
            p -> p.getLoadBalancer("c", null),
            p -> p.ensureLoadBalancer("c", null, List.of()),
            p -> p.verifyLoadBalancer("c", null, List.of()),
            p -> p.updateLoadBalancerHosts("c", null, List.of()),
            p -> p.ownedLoadBalancers().orElseThrow().list("c"),
            p -> p.ownedLoadBalancers().orElseThrow().delete("c", null));
    for (Function<LoadBalancerProvider, Future<?>> call : calls) {
      Throwable e = failureOf(call.apply(provider));
      assertThat(e).isInstanceOf(ProviderException.Retry.class);
      assertThat(e.getMessage()).contains("did not finish within its deadline of 200ms");
    }
  }
}
