package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.awaitFailure;
import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.nameServer;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.request;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ProviderException;
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

/**
 * The per-Service annotations of the local provider ({@code pier.dev/address-pool}, {@code
 * pier.dev/load-balancer-ips}), with real traffic on loopback.
 */
@ExtendWith(VertxExtension.class)
class LocalProviderAnnotationsTest {

  private static final PoolSpec TEAM_A =
      new PoolSpec("team-a", List.of("127.250.0.0/24"), List.of("team-a"));
  private static final PoolSpec BLUE = new PoolSpec("blue", List.of("127.250.1.0/24"), List.of());
  private static final PoolSpec V6 = new PoolSpec("v6", List.of("fd00:250::/120"), List.of());

  private Vertx vertx;
  private LocalLoadBalancerProvider provider;
  private NetClient client;
  private int nodePort;

  @BeforeEach
  void setUp(Vertx vertx) throws Exception {
    this.vertx = vertx;
    this.provider =
        new LocalLoadBalancerProvider(
            vertx, new LocalProviderOptions().setPools(List.of(TEAM_A, BLUE, V6)));
    this.client = vertx.createNetClient();
    this.nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
  }

  static LbService service(
      String namespace,
      String name,
      List<LbPort> ports,
      String loadBalancerIp,
      Map<String, String> annotations,
      List<String> ipFamilies) {
    return new LbService(
        new ServiceKey("test", namespace, name),
        "uid-" + namespace + "-" + name,
        ports,
        loadBalancerIp,
        "Cluster",
        0,
        "None",
        List.of(),
        annotations,
        ipFamilies,
        LbStatus.EMPTY);
  }

  private String ensure(LbService svc) throws Exception {
    EnsureResult r =
        provider
            .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1")))
            .await(10, TimeUnit.SECONDS);
    return r.status().ingress().get(0).ip();
  }

  private ProviderException.InvalidInput invalid(LbService svc) {
    Throwable failure = awaitFailure(provider.ensureLoadBalancer("test", svc, List.of()));
    assertThat(failure).isInstanceOf(ProviderException.InvalidInput.class);
    return (ProviderException.InvalidInput) failure;
  }

  // pier.dev/address-pool

  @Test
  void addressPoolAnnotationChoosesAmongThePoolsTheNamespaceMayUse() throws Exception {
    int port = freePort();
    String plain =
        ensure(service("team-a", "plain", List.of(tcp(port, nodePort)), null, Map.of(), null));
    String chosen =
        ensure(
            service(
                "team-a",
                "blue",
                List.of(tcp(port, nodePort)),
                null,
                Map.of("pier.dev/address-pool", "blue"),
                null));

    assertThat(plain).isEqualTo("127.250.0.1");
    assertThat(chosen).isEqualTo("127.250.1.1");
    assertThat(request(client, chosen, port, "b")).isEqualTo("n1:b");
  }

  @Test
  void unknownAddressPoolIsInvalidInput() {
    ProviderException.InvalidInput e =
        invalid(
            service(
                "team-a",
                "web",
                List.of(tcp(freePort(), 30000)),
                null,
                Map.of("pier.dev/address-pool", "nope"),
                null));

    assertThat(e.field()).isEqualTo("metadata.annotations[pier.dev/address-pool]");
    assertThat(e.value()).isEqualTo("nope");
    assertThat(e.getMessage()).contains("pier.dev/address-pool", "nope", "blue", "team-a");
  }

  @Test
  void addressPoolOfAnotherNamespaceIsInvalidInput() throws Exception {
    LbService svc =
        service(
            "other",
            "web",
            List.of(tcp(freePort(), 30000)),
            null,
            Map.of("pier.dev/address-pool", "team-a"),
            null);

    ProviderException.InvalidInput e = invalid(svc);

    assertThat(e.field()).isEqualTo("metadata.annotations[pier.dev/address-pool]");
    assertThat(e.value()).isEqualTo("team-a");
    assertThat(e.getMessage()).contains("pier.dev/address-pool", "team-a", "namespace other");
    assertThat(provider.addressOf(svc.key()).await(10, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void requestedAddressOutsideTheChosenPoolIsInvalidInput() {
    ProviderException.InvalidInput e =
        invalid(
            service(
                "team-a",
                "web",
                List.of(tcp(freePort(), 30000)),
                "127.250.0.9",
                Map.of("pier.dev/address-pool", "blue"),
                null));

    assertThat(e.getMessage()).contains("127.250.0.9", "blue", "pier.dev/address-pool");
  }

  // pier.dev/load-balancer-ips

  @Test
  void loadBalancerIpsAnnotationWinsOverSpecLoadBalancerIp() throws Exception {
    int port = freePort();
    String ip =
        ensure(
            service(
                "team-a",
                "web",
                List.of(tcp(port, nodePort)),
                "127.250.1.30",
                Map.of("pier.dev/load-balancer-ips", "127.250.1.20"),
                List.of("IPv4")));

    assertThat(ip).isEqualTo("127.250.1.20");
    assertThat(request(client, "127.250.1.20", port, "x")).isEqualTo("n1:x");
  }

  @Test
  void anIpv4AndAnIpv6AddressServeTheServicesFamilyFirst() throws Exception {
    int port = freePort();
    String ip =
        ensure(
            service(
                "team-a",
                "web",
                List.of(tcp(port, nodePort)),
                null,
                Map.of("pier.dev/load-balancer-ips", "fd00:250::5, 127.250.1.21"),
                List.of("IPv4")));

    assertThat(ip).isEqualTo("127.250.1.21");
    assertThat(request(client, "127.250.1.21", port, "y")).isEqualTo("n1:y");
  }

  @Test
  void badLoadBalancerIpsAreInvalidInputNamingTheAnnotationAndValue() {
    for (String value :
        List.of(
            "127.250.1.5,127.250.1.6",
            "not-an-ip",
            "10.9.9.9",
            "127.250.1.24,fd00:999::1",
            "127.250.0.5",
            "fd00:250::7")) {
      // 127.250.0.5 is in team-a's pool, which namespace other may not use; the Service is
      // IPv4-only, so an IPv6 address alone gives it nothing.
      ProviderException.InvalidInput e =
          invalid(
              service(
                  "other",
                  "web",
                  List.of(tcp(freePort(), 30000)),
                  null,
                  Map.of("pier.dev/load-balancer-ips", value),
                  List.of("IPv4")));

      assertThat(e.field()).as(value).isEqualTo("metadata.annotations[pier.dev/load-balancer-ips]");
      assertThat(e.value()).as(value).isEqualTo(value);
      assertThat(e.getMessage()).as(value).contains("pier.dev/load-balancer-ips", value);
    }
  }
}
