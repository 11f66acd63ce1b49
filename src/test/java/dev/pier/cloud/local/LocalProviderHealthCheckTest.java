package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.localTrafficService;
import static dev.pier.cloud.local.LbTestSupport.nameServer;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.request;
import static dev.pier.cloud.local.LbTestSupport.service;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static dev.pier.cloud.local.LbTestSupport.udp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.cloud.local.LbTestSupport.Healthz;
import dev.pier.model.LbService;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Health checks of the local load balancer, observed through real traffic. */
@ExtendWith(VertxExtension.class)
class LocalProviderHealthCheckTest {

  private static final String FIRST = "127.242.0.1";

  private Vertx vertx;
  private LocalLoadBalancerProvider provider;
  private NetClient client;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    this.provider =
        new LocalLoadBalancerProvider(
            vertx,
            new LocalProviderOptions()
                .setPoolAddresses(List.of("127.242.0.0/24"))
                .setHealthCheckInterval(Duration.ofMillis(200))
                .setHealthCheckTimeout(Duration.ofSeconds(1))
                .setUnhealthyThreshold(2)
                .setHealthyThreshold(2));
    this.client = vertx.createNetClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void localTrafficPolicyUsesHealthzAndSkipsFailingNodes() throws Exception {
    int nodePort = freePort();
    int hcPort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    nameServer(vertx, "127.0.0.2", nodePort, "n2");
    new Healthz(vertx, "127.0.0.1", hcPort);
    Healthz n2Health = new Healthz(vertx, "127.0.0.2", hcPort);
    n2Health.status = 503;
    int port = freePort();
    LbService svc = localTrafficService("web", List.of(tcp(port, nodePort)), hcPort);

    provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1"), node("n2", "127.0.0.2")))
        .await(10, TimeUnit.SECONDS);

    awaitHealth("http://127.0.0.2:" + hcPort, false);
    assertThat(provider.backendHealth().await(10, TimeUnit.SECONDS))
        .containsOnlyKeys("http://127.0.0.1:" + hcPort, "http://127.0.0.2:" + hcPort);
    // n2's node port accepts connections, yet it gets none while its /healthz fails.
    for (int i = 0; i < 6; i++) {
      assertThat(request(client, FIRST, port, "r" + i)).isEqualTo("n1:r" + i);
    }

    n2Health.status = 200;
    awaitHealth("http://127.0.0.2:" + hcPort, true);
    assertThat(spread(port, 6)).containsOnly(Map.entry("n1", 3), Map.entry("n2", 3));
  }

  @Test
  void healthzAppliesToUdpPortsToo() throws Exception {
    int nodePort = freePort();
    int hcPort = freePort();
    Healthz health = new Healthz(vertx, "127.0.0.1", hcPort);
    health.status = 500;
    LbService svc = localTrafficService("dns", List.of(udp(freePort(), nodePort)), hcPort);

    provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS);

    awaitHealth("http://127.0.0.1:" + hcPort, false);
  }

  @Test
  void whenEveryBackendIsUnhealthyTrafficStillFlows() throws Exception {
    int nodePort = freePort();
    int hcPort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    nameServer(vertx, "127.0.0.2", nodePort, "n2");
    new Healthz(vertx, "127.0.0.1", hcPort).status = 503;
    new Healthz(vertx, "127.0.0.2", hcPort).status = 503;
    int port = freePort();
    LbService svc = localTrafficService("web", List.of(tcp(port, nodePort)), hcPort);
    provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1"), node("n2", "127.0.0.2")))
        .await(10, TimeUnit.SECONDS);

    awaitHealth("http://127.0.0.1:" + hcPort, false);
    awaitHealth("http://127.0.0.2:" + hcPort, false);

    assertThat(spread(port, 4)).containsOnlyKeys("n1", "n2");
  }

  @Test
  void checksAreSharedBetweenServicesAndStopWhenUnused() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    LbService a = service("a", List.of(tcp(freePort(), nodePort)));
    LbService b = service("b", List.of(tcp(freePort(), nodePort)));
    provider
        .ensureLoadBalancer("test", a, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS);
    provider
        .ensureLoadBalancer("test", b, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS);

    assertThat(provider.backendHealth().await(10, TimeUnit.SECONDS))
        .containsOnlyKeys("tcp://127.0.0.1:" + nodePort);

    provider.ensureLoadBalancerDeleted("test", a).await(10, TimeUnit.SECONDS);
    assertThat(provider.backendHealth().await(10, TimeUnit.SECONDS))
        .containsOnlyKeys("tcp://127.0.0.1:" + nodePort);

    provider
        .updateLoadBalancerHosts("test", b, List.of(node("n2", "127.0.0.2")))
        .await(10, TimeUnit.SECONDS);
    assertThat(provider.backendHealth().await(10, TimeUnit.SECONDS))
        .containsOnlyKeys("tcp://127.0.0.2:" + nodePort);

    provider.ensureLoadBalancerDeleted("test", b).await(10, TimeUnit.SECONDS);
    assertThat(provider.backendHealth().await(10, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void recoveredBackendGetsTrafficAgain() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    LbService svc = service("web", List.of(tcp(port, nodePort)));
    provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1"), node("n2", "127.0.0.2")))
        .await(10, TimeUnit.SECONDS);
    awaitHealth("tcp://127.0.0.2:" + nodePort, false);

    nameServer(vertx, "127.0.0.2", nodePort, "n2");

    awaitHealth("tcp://127.0.0.2:" + nodePort, true);
    assertThat(spread(port, 4)).containsOnly(Map.entry("n1", 2), Map.entry("n2", 2));
  }

  private void awaitHealth(String check, boolean healthy) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(provider.backendHealth().await(10, TimeUnit.SECONDS))
                    .containsEntry(check, healthy));
  }

  /** Sends {@code n} requests and counts the answers per backend name. */
  private Map<String, Integer> spread(int port, int n) throws Exception {
    Map<String, Integer> answers = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String reply = request(client, FIRST, port, "s" + i);
      answers.merge(reply.substring(0, reply.indexOf(':')), 1, Integer::sum);
    }
    return answers;
  }
}
