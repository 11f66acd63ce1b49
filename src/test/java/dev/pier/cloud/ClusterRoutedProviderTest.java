package dev.pier.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.benchmark.BenchmarkLoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkLoadBalancerProvider.Operation;
import dev.pier.cloud.benchmark.BenchmarkProviderOptions;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClusterRoutedProviderTest {
  private final Vertx vertx = Vertx.vertx();
  private final BenchmarkLoadBalancerProvider east = provider();
  private final BenchmarkLoadBalancerProvider west = provider();
  private final ClusterRoutedProvider routed =
      new ClusterRoutedProvider(Map.of("east", east, "west", west));

  private BenchmarkLoadBalancerProvider provider() {
    return new BenchmarkLoadBalancerProvider(
        vertx, new BenchmarkProviderOptions().setDelay(Duration.ZERO));
  }

  @AfterEach
  void close() {
    vertx.close();
  }

  private static LbService service(String cluster) {
    return new LbService(
        new ServiceKey(cluster, "ns", "web"),
        "uid-" + cluster,
        List.of(),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of("IPv4"),
        LbStatus.EMPTY);
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Test
  void everyCallGoesToTheProviderOfTheClusterItNames() throws Exception {
    await(routed.initialize(new ClusterIdentity("west", "u-west"), List.of()));
    await(routed.ensureLoadBalancer("east", service("east"), List.of()));
    await(routed.ensureLoadBalancer("east", service("east"), List.of()));
    await(routed.ensureLoadBalancerDeleted("west", service("west")));
    assertThat(east.calls(Operation.ENSURE)).isEqualTo(2);
    assertThat(west.calls(Operation.ENSURE)).isZero();
    assertThat(west.calls(Operation.INITIALIZE)).isEqualTo(1);
    assertThat(east.calls(Operation.INITIALIZE)).isZero();
    assertThat(west.calls(Operation.DELETE)).isEqualTo(1);
    assertThat(routed.name()).contains("east:benchmark").contains("west:benchmark");
  }

  @Test
  void aMemberAttachedAtRuntimeIsRoutedToUntilItIsDetached() throws Exception {
    BenchmarkLoadBalancerProvider south = provider();
    routed.attach("south", south);
    await(routed.ensureLoadBalancer("south", service("south"), List.of()));
    assertThat(south.calls(Operation.ENSURE)).isEqualTo(1);
    assertThatThrownBy(() -> routed.attach("south", provider()))
        .hasMessage("cluster south has a load balancer provider");

    assertThat(routed.detach("south")).isSameAs(south);
    assertThatThrownBy(() -> routed.ensureLoadBalancer("south", service("south"), List.of()))
        .hasMessage("cluster south has no load balancer provider");
    assertThat(routed.detach("south")).isNull();
    assertThat(routed.name()).doesNotContain("south");
  }

  @Test
  void aClusterWithoutAProviderIsAnErrorNamingIt() {
    assertThatThrownBy(() -> routed.ensureLoadBalancer("host", service("host"), List.of()))
        .hasMessage("cluster host has no load balancer provider");
  }

  @Test
  void aFederationWithoutLoadBalancersOfItsOwnHasNoProviderAtAll() {
    ClusterRoutedProvider none = new ClusterRoutedProvider(Map.of());
    assertThat(none.name()).isEqualTo("none");
    assertThat(none.ownedLoadBalancers()).isEmpty();
    assertThatThrownBy(() -> none.ensureLoadBalancer("east", service("east"), List.of()))
        .hasMessage("cluster east has no load balancer provider");
  }
}
