package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.awaitFailure;
import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.nameServer;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.request;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static dev.pier.cloud.local.LbTestSupport.udp;
import static dev.pier.cloud.local.LbTestSupport.udpEchoServer;
import static dev.pier.cloud.local.LbTestSupport.udpRequest;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.ProviderException;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.testkit.Ipv6Loopback;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Dual-stack load balancers of the local provider: one address per IP family, TCP and UDP on both,
 * with real traffic to an IPv4 loopback pool and an IPv6 pool routed to {@code lo}.
 */
@ExtendWith(VertxExtension.class)
class LocalProviderDualStackTest {

  private static final PoolSpec V4 = new PoolSpec("v4", List.of("127.251.0.0/24"), List.of());
  private static final PoolSpec V6 =
      new PoolSpec("v6", List.of(Ipv6Loopback.TEST_POOL), List.of("dual"));
  private static final String DUAL_NS = "dual";

  private Vertx vertx;
  private LocalLoadBalancerProvider provider;
  private NetClient client;
  private int nodePort;

  @BeforeAll
  static void routeIpv6Pool() {
    Ipv6Loopback.ensure(Ipv6Loopback.TEST_POOL);
  }

  @BeforeEach
  void setUp(Vertx vertx) throws Exception {
    this.vertx = vertx;
    this.provider =
        new LocalLoadBalancerProvider(vertx, new LocalProviderOptions().setPools(List.of(V4, V6)));
    this.client = vertx.createNetClient();
    this.nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    udpEchoServer(vertx, "127.0.0.1", nodePort, "u1");
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
  }

  static LbService service(
      String namespace,
      String name,
      List<LbPort> ports,
      String policy,
      List<String> families,
      Map<String, String> annotations,
      LbStatus status) {
    return new LbService(
        new ServiceKey("test", namespace, name),
        "uid-" + namespace + "-" + name,
        ports,
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        annotations,
        families,
        status,
        policy);
  }

  private EnsureResult ensure(LbService svc) throws Exception {
    return provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS);
  }

  private static List<String> ips(EnsureResult r) {
    return r.status().ingress().stream().map(LbIngress::ip).toList();
  }

  @Test
  void preferDualStackGetsAnAddressPerFamilyInTheServicesOrderServingTcpAndUdpOnBoth()
      throws Exception {
    int port = freePort();
    EnsureResult r =
        ensure(
            service(
                DUAL_NS,
                "web",
                List.of(tcp(port, nodePort), udp(port, nodePort)),
                "PreferDualStack",
                List.of("IPv6", "IPv4"),
                Map.of(),
                LbStatus.EMPTY));

    assertThat(ips(r)).containsExactly("fd00:7069:6572::1", "127.251.0.1");
    assertThat(r.warnings()).isEmpty();
    for (LbIngress ingress : r.status().ingress()) {
      assertThat(ingress.ports()).hasSize(2);
    }
    assertThat(request(client, "fd00:7069:6572::1", port, "a")).isEqualTo("n1:a");
    assertThat(request(client, "127.251.0.1", port, "b")).isEqualTo("n1:b");
    assertThat(udpRequest(vertx, "fd00:7069:6572::1", port, "c")).isEqualTo("u1:c");
    assertThat(udpRequest(vertx, "127.251.0.1", port, "d")).isEqualTo("u1:d");
  }

  @Test
  void anIpv4AndAnIpv6AddressInTheAnnotationAreBothServed() throws Exception {
    int port = freePort();
    EnsureResult r =
        ensure(
            service(
                DUAL_NS,
                "web",
                List.of(tcp(port, nodePort)),
                null,
                List.of("IPv4"),
                Map.of("pier.dev/load-balancer-ips", "fd00:7069:6572::7, 127.251.0.7"),
                LbStatus.EMPTY));

    assertThat(ips(r)).containsExactly("127.251.0.7", "fd00:7069:6572::7");
    assertThat(request(client, "fd00:7069:6572::7", port, "a")).isEqualTo("n1:a");
    assertThat(request(client, "127.251.0.7", port, "b")).isEqualTo("n1:b");
  }

  @Test
  void requireDualStackWithoutAPoolOfTheSecondFamilyIsInvalidInputPreferFallsBackToOne()
      throws Exception {
    // Namespace "other" may not use the IPv6 pool.
    Throwable failure =
        awaitFailure(
            provider.ensureLoadBalancer(
                "test",
                service(
                    "other",
                    "web",
                    List.of(tcp(freePort(), nodePort)),
                    "RequireDualStack",
                    List.of("IPv4", "IPv6"),
                    Map.of(),
                    LbStatus.EMPTY),
                List.of()));
    assertThat(failure).isInstanceOf(ProviderException.InvalidInput.class);
    ProviderException.InvalidInput e = (ProviderException.InvalidInput) failure;
    assertThat(e.field()).isEqualTo("spec.ipFamilyPolicy");
    assertThat(e.value()).isEqualTo("RequireDualStack");
    assertThat(e.getMessage()).contains("IPv6", "other");

    int port = freePort();
    EnsureResult r =
        ensure(
            service(
                "other",
                "web",
                List.of(tcp(port, nodePort)),
                "PreferDualStack",
                List.of("IPv4", "IPv6"),
                Map.of(),
                LbStatus.EMPTY));
    assertThat(ips(r)).containsExactly("127.251.0.1");
    assertThat(request(client, "127.251.0.1", port, "a")).isEqualTo("n1:a");
  }

  @Test
  void deletingFreesBothAddressesAndTheOrphanListingHasOneEntryPerService() throws Exception {
    int port = freePort();
    LbService first =
        service(
            DUAL_NS,
            "first",
            List.of(tcp(port, nodePort)),
            "RequireDualStack",
            List.of("IPv4", "IPv6"),
            Map.of(),
            LbStatus.EMPTY);
    assertThat(ips(ensure(first))).containsExactly("127.251.0.1", "fd00:7069:6572::1");

    List<OwnedLoadBalancer> owned =
        provider.ownedLoadBalancers().orElseThrow().list("test").await(10, TimeUnit.SECONDS);
    assertThat(owned).hasSize(1);
    assertThat(owned.get(0).serviceKey()).isEqualTo(first.key().toString());

    provider.ensureLoadBalancerDeleted("test", first).await(10, TimeUnit.SECONDS);
    assertThat(provider.ownedLoadBalancers().orElseThrow().list("test").await(10, TimeUnit.SECONDS))
        .isEmpty();

    EnsureResult next =
        ensure(
            service(
                DUAL_NS,
                "next",
                List.of(tcp(port, nodePort)),
                "RequireDualStack",
                List.of("IPv4", "IPv6"),
                Map.of(),
                LbStatus.EMPTY));
    assertThat(ips(next)).containsExactly("127.251.0.1", "fd00:7069:6572::1");
    assertThat(next.warnings()).isEmpty();
    assertThat(request(client, "fd00:7069:6572::1", port, "a")).isEqualTo("n1:a");
  }

  @Test
  void bothAddressesOfTheStatusAreRestoredAfterARestart() throws Exception {
    LbStatus status =
        new LbStatus(List.of(LbIngress.ip("127.251.0.9"), LbIngress.ip("fd00:7069:6572::9")));
    LbService restored =
        service(
            DUAL_NS,
            "restored",
            List.of(tcp(freePort(), nodePort)),
            "PreferDualStack",
            List.of("IPv4", "IPv6"),
            Map.of(),
            status);
    provider
        .initialize(new ClusterIdentity("test", "kube-system-uid"), List.of(restored))
        .await(10, TimeUnit.SECONDS);

    assertThat(
            provider
                .getLoadBalancer("test", restored)
                .await(10, TimeUnit.SECONDS)
                .orElseThrow()
                .ingress()
                .stream()
                .map(LbIngress::ip))
        .containsExactly("127.251.0.9", "fd00:7069:6572::9");
    // Held: a Service asking for exactly those addresses waits.
    Throwable taken =
        awaitFailure(
            provider.ensureLoadBalancer(
                "test",
                service(
                    DUAL_NS,
                    "thief",
                    List.of(tcp(freePort(), nodePort)),
                    null,
                    List.of("IPv6"),
                    Map.of("pier.dev/load-balancer-ips", "fd00:7069:6572::9"),
                    LbStatus.EMPTY),
                List.of()));
    assertThat(taken).isInstanceOf(ProviderException.Retry.class);
    assertThat(taken.getMessage()).contains("test/dual/restored");
    assertThat(ips(ensure(restored))).containsExactly("127.251.0.9", "fd00:7069:6572::9");
  }
}
