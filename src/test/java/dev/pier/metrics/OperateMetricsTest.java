package dev.pier.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ForwardingLoadBalancerProvider;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What users of MetalLB and external-dns graph, scraped from a running Pier: address pool size and
 * use, load balancers by provider and state, and the time of the last successful sync.
 */
@RealKubeApiServer
class OperateMetricsTest {
  /** Six usable addresses: a /29 without its network and broadcast addresses. */
  private static final String POOL = "127.246.1.0/29";

  @Test
  void poolUseLoadBalancerStatesAndLastSyncFollowTheServices(KubeApiServer kube) throws Exception {
    kube.createReadyNode("node-op", "127.0.0.1", Map.of());
    KubernetesClient client = kube.client();
    String ns = kube.createNamespace("op");
    int nodePort = kube.freeNodePort();
    long before = System.currentTimeMillis() / 1000;
    try (TestBackend backend = TestBackend.start("node-op", "127.0.0.1", nodePort);
        InProcessPier pier =
            InProcessPier.start(
                kube, Map.of(PierOptions.LOCAL_POOLS.envName(), POOL), Refusing::new)) {
      int port = pier.pier().adminPort();
      for (String name : List.of("a", "b", Refusing.PREFIX + "c")) {
        client
            .services()
            .inNamespace(ns)
            .resource(Services.loadBalancer(ns, name, 8088, kube.freeNodePort()))
            .create();
      }
      Services.awaitIngress(client, ns, "a");
      Services.awaitIngress(client, ns, "b");
      String pool = "{cluster=\"kubernetes\",pool=\"" + POOL + "\"}";
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(
              () -> {
                String text = MetricsExpositionTest.scrape(port);
                assertThat(text)
                    .contains("pier_address_pool_addresses" + pool + " 6.0")
                    .contains("pier_address_pool_addresses_in_use" + pool + " 2.0")
                    .contains("pier_load_balancers{provider=\"local\",state=\"ready\"} 2.0")
                    .contains("pier_load_balancers{provider=\"local\",state=\"failing\"} 1.0");
              });
      double synced =
          sample(
              MetricsExpositionTest.scrape(port),
              "pier_last_successful_sync_timestamp_seconds{cluster=\"kubernetes\"}");
      assertThat(synced).isBetween((double) before, System.currentTimeMillis() / 1000.0 + 1);

      client.services().inNamespace(ns).withName("b").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(
              () ->
                  assertThat(MetricsExpositionTest.scrape(port))
                      .contains("pier_address_pool_addresses_in_use" + pool + " 1.0")
                      .contains("pier_load_balancers{provider=\"local\",state=\"ready\"} 1.0"));
      assertThat(
              sample(
                  MetricsExpositionTest.scrape(port),
                  "pier_last_successful_sync_timestamp_seconds{cluster=\"kubernetes\"}"))
          .isGreaterThanOrEqualTo(synced);
    }
  }

  private static double sample(String text, String series) {
    return text.lines()
        .filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no sample " + series));
  }

  /** Refuses to ensure load balancers for Services named {@code fail-*}. */
  static final class Refusing extends ForwardingLoadBalancerProvider {
    static final String PREFIX = "fail-";

    Refusing(LoadBalancerProvider delegate) {
      super(delegate);
    }

    @Override
    public Future<EnsureResult> ensureLoadBalancer(
        String clusterName, LbService service, List<LbNode> nodes) {
      if (service.key().name().startsWith(PREFIX)) {
        return Future.failedFuture(new ProviderException.Retry("injected provider failure"));
      }
      return delegate.ensureLoadBalancer(clusterName, service, nodes);
    }
  }
}
