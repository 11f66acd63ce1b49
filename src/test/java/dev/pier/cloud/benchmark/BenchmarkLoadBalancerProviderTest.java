package dev.pier.cloud.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.benchmark.BenchmarkLoadBalancerProvider.Operation;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BenchmarkLoadBalancerProviderTest {
  private Vertx vertx;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() {
    vertx.close().await();
  }

  private static LbService service(String uid, LbStatus status) {
    return new LbService(
        new ServiceKey("kubernetes", "ns", "svc-" + uid),
        uid,
        List.of(),
        null,
        null,
        0,
        "None",
        List.of(),
        Map.of(),
        List.of(),
        status);
  }

  @Test
  void callsCompleteAfterTheDelayWithoutHoldingAThread() throws Exception {
    var provider =
        new BenchmarkLoadBalancerProvider(
            vertx, new BenchmarkProviderOptions().setDelay(Duration.ofMillis(200)));
    List<Future<EnsureResult>> all = new ArrayList<>();
    long start = System.nanoTime();
    // A thousand calls at once on one event loop: they only finish together if none blocks.
    vertx
        .getOrCreateContext()
        .runOnContext(
            v -> {
              for (int i = 0; i < 1000; i++) {
                all.add(
                    provider.ensureLoadBalancer(
                        "kubernetes", service("u" + i, LbStatus.EMPTY), List.<LbNode>of()));
              }
            });
    while (all.size() < 1000) {
      Thread.sleep(5);
    }
    Future.all(all).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(millis).isGreaterThanOrEqualTo(200);
    Set<String> ips = new HashSet<>();
    all.forEach(f -> ips.add(f.result().status().ingress().get(0).ip()));
    assertThat(ips).hasSize(1000).contains("10.0.0.1", "10.0.3.232");
    assertThat(provider.calls(Operation.ENSURE)).isEqualTo(1000);
  }

  @Test
  void keepsAddressesPerServiceAndAcrossRestarts() {
    var options = new BenchmarkProviderOptions().setDelay(Duration.ZERO);
    var provider = new BenchmarkLoadBalancerProvider(vertx, options);
    LbService a = service("a", LbStatus.EMPTY);
    String ip =
        provider.ensureLoadBalancer("k", a, List.of()).await().status().ingress().get(0).ip();
    assertThat(
            provider.ensureLoadBalancer("k", a, List.of()).await().status().ingress().get(0).ip())
        .isEqualTo(ip);
    assertThat(provider.getLoadBalancer("k", a).await()).isPresent();
    provider.updateLoadBalancerHosts("k", a, List.of()).await();
    assertThat(provider.calls(Operation.UPDATE_HOSTS)).isEqualTo(1);
    provider.ensureLoadBalancerDeleted("k", a).await();
    assertThat(provider.getLoadBalancer("k", a).await()).isEmpty();

    var restarted = new BenchmarkLoadBalancerProvider(vertx, options);
    LbService b = service("b", new LbStatus(List.of(LbIngress.ip("10.0.0.7"))));
    restarted.initialize(new ClusterIdentity("k", "uid-k"), List.of(b)).await();
    assertThat(restarted.getLoadBalancer("k", b).await().orElseThrow().ingress().get(0).ip())
        .isEqualTo("10.0.0.7");
  }

  @Test
  void rejectsANegativeDelay() {
    assertThatThrownBy(() -> new BenchmarkProviderOptions().setDelay(Duration.ofMillis(-1)))
        .hasMessageContaining("benchmark.delay");
  }
}
