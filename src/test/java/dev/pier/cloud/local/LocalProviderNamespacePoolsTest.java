package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.awaitFailure;
import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.nameServer;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.request;
import static dev.pier.cloud.local.LbTestSupport.statusWithIp;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ProviderException;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Pools restricted to namespaces, through the provider, with real traffic on loopback. */
@ExtendWith(VertxExtension.class)
class LocalProviderNamespacePoolsTest {

  private static final PoolSpec TEAM_A =
      new PoolSpec("team-a", List.of("127.247.0.0/24"), List.of("team-a"));
  private static final PoolSpec SHARED = PoolSpec.of("127.247.1.0/24");

  private Vertx vertx;
  private LocalLoadBalancerProvider provider;
  private NetClient client;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    this.provider =
        new LocalLoadBalancerProvider(
            vertx, new LocalProviderOptions().setPools(List.of(TEAM_A, SHARED)));
    this.client = vertx.createNetClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
  }

  private static LbService service(
      String namespace, String name, List<LbPort> ports, String loadBalancerIp, LbStatus status) {
    return new LbService(
        new ServiceKey("test", namespace, name),
        "uid-" + namespace + "-" + name,
        ports,
        loadBalancerIp,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of("IPv4"),
        status);
  }

  @Test
  void eachNamespaceGetsAddressesOnlyFromItsPools() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();

    EnsureResult a =
        provider
            .ensureLoadBalancer(
                "test",
                service("team-a", "web", List.of(tcp(port, nodePort)), null, LbStatus.EMPTY),
                List.of(node("n1", "127.0.0.1")))
            .await(10, TimeUnit.SECONDS);
    EnsureResult other =
        provider
            .ensureLoadBalancer(
                "test",
                service("other", "web", List.of(tcp(port, nodePort)), null, LbStatus.EMPTY),
                List.of(node("n1", "127.0.0.1")))
            .await(10, TimeUnit.SECONDS);

    assertThat(a.status().ingress().get(0).ip()).isEqualTo("127.247.0.1");
    // The first pool would be next in order, but namespace other may not use it.
    assertThat(other.status().ingress().get(0).ip()).isEqualTo("127.247.1.1");
    assertThat(request(client, "127.247.0.1", port, "a")).isEqualTo("n1:a");
    assertThat(request(client, "127.247.1.1", port, "o")).isEqualTo("n1:o");
  }

  @Test
  void requestingAnAddressOfAnotherNamespacesPoolIsInvalidInput() throws Exception {
    LbService thief =
        service("other", "web", List.of(tcp(freePort(), 30000)), "127.247.0.9", LbStatus.EMPTY);

    Throwable failure = awaitFailure(provider.ensureLoadBalancer("test", thief, List.of()));

    assertThat(failure)
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec.loadBalancerIP");
              assertThat(e.value()).isEqualTo("127.247.0.9");
              assertThat(e.getMessage())
                  .contains("spec.loadBalancerIP", "127.247.0.9", "team-a", "namespace other");
            });
    assertThat(provider.addressOf(thief.key()).await(10, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void restoringFromStatusRespectsNamespaces() throws Exception {
    LbService kept = service("team-a", "kept", List.of(), null, statusWithIp("127.247.0.7"));
    LbService notAllowed =
        service("other", "squatter", List.of(), null, statusWithIp("127.247.0.8"));

    provider
        .initialize(new ClusterIdentity("test", "uid-test"), List.of(kept, notAllowed))
        .await(10, TimeUnit.SECONDS);

    assertThat(provider.addressOf(kept.key()).await(10, TimeUnit.SECONDS)).contains("127.247.0.7");
    assertThat(provider.addressOf(notAllowed.key()).await(10, TimeUnit.SECONDS)).isEmpty();
    // Nor does its status win it the address on the next ensure.
    EnsureResult ensured =
        provider
            .ensureLoadBalancer(
                "test",
                service(
                    "other",
                    "squatter",
                    List.of(tcp(freePort(), 30000)),
                    null,
                    notAllowed.status()),
                List.of())
            .await(10, TimeUnit.SECONDS);
    assertThat(ensured.status().ingress().get(0).ip()).isEqualTo("127.247.1.1");
  }

  @Test
  void aNamespaceWithoutAnyPoolIsInvalidInput() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
    provider =
        new LocalLoadBalancerProvider(vertx, new LocalProviderOptions().setPools(List.of(TEAM_A)));
    LbService svc = service("other", "web", List.of(tcp(freePort(), 30000)), null, LbStatus.EMPTY);

    Throwable failure = awaitFailure(provider.ensureLoadBalancer("test", svc, List.of()));

    assertThat(failure)
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> assertThat(e.getMessage()).contains("namespace other", "team-a"));
  }
}
