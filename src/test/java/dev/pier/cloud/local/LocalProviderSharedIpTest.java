package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.awaitFailure;
import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.nameServer;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.request;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static dev.pier.cloud.local.LbTestSupport.udp;
import static dev.pier.cloud.local.LbTestSupport.udpEchoServer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.ProviderException;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.net.NetClient;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code pier.dev/allow-shared-ip}: Services sharing one address, with real TCP and UDP. */
@ExtendWith(VertxExtension.class)
class LocalProviderSharedIpTest {

  private static final String SHARED = "127.251.0.1";

  private Vertx vertx;
  private LocalLoadBalancerProvider provider;
  private NetClient client;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    this.provider =
        new LocalLoadBalancerProvider(
            vertx, new LocalProviderOptions().setPools(List.of(PoolSpec.of("127.251.0.0/24"))));
    this.client = vertx.createNetClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
  }

  private static LbService service(
      String namespace, String name, List<LbPort> ports, String shareKey, String policy) {
    return new LbService(
        new ServiceKey("test", namespace, name),
        "uid-" + namespace + "-" + name,
        ports,
        null,
        policy,
        policy.equals("Local") ? 31999 : 0,
        "None",
        List.of(),
        shareKey == null ? Map.of() : Map.of("pier.dev/allow-shared-ip", shareKey),
        List.of("IPv4"),
        LbStatus.EMPTY);
  }

  private static LbService service(String name, List<LbPort> ports, String shareKey) {
    return service("default", name, ports, shareKey, "Cluster");
  }

  private String ensure(LbService svc) throws Exception {
    return provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS)
        .status()
        .ingress()
        .get(0)
        .ip();
  }

  private String udpRequest(String host, int port, String text) throws Exception {
    DatagramSocket socket =
        vertx.createDatagramSocket().listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    try {
      Promise<DatagramPacket> reply = Promise.promise();
      socket.handler(reply::tryComplete);
      socket.send(text, port, host).await(10, TimeUnit.SECONDS);
      return reply.future().await(10, TimeUnit.SECONDS).data().toString();
    } finally {
      socket.close();
    }
  }

  @Test
  void dnsOverTcpAndUdpSharesOneAddressUntilTheLastSharerGoes() throws Exception {
    int tcpNodePort = freePort();
    int udpNodePort = freePort();
    nameServer(vertx, "127.0.0.1", tcpNodePort, "tcp");
    udpEchoServer(vertx, "127.0.0.1", udpNodePort, "udp");
    int port = freePort();
    LbService dnsTcp = service("dns-tcp", List.of(tcp(port, tcpNodePort)), "dns");
    LbService dnsUdp = service("dns-udp", List.of(udp(port, udpNodePort)), "dns");

    assertThat(ensure(dnsTcp)).isEqualTo(SHARED);
    assertThat(ensure(dnsUdp)).isEqualTo(SHARED);
    assertThat(request(client, SHARED, port, "q1")).isEqualTo("tcp:q1");
    assertThat(udpRequest(SHARED, port, "q2")).isEqualTo("udp:q2");
    List<OwnedLoadBalancer> owned =
        provider.ownedLoadBalancers().orElseThrow().list("test").await(10, TimeUnit.SECONDS);
    assertThat(owned)
        .extracting(OwnedLoadBalancer::serviceKey)
        .containsExactlyInAnyOrder(dnsTcp.key().toString(), dnsUdp.key().toString());

    provider.ensureLoadBalancerDeleted("test", dnsTcp).await(10, TimeUnit.SECONDS);

    // The other sharer keeps its listener and the address.
    assertThat(udpRequest(SHARED, port, "q3")).isEqualTo("udp:q3");
    assertThat(provider.addressOf(dnsUdp.key()).await(10, TimeUnit.SECONDS)).contains(SHARED);
    assertThat(ensure(service("web", List.of(tcp(freePort(), tcpNodePort)), null)))
        .isEqualTo("127.251.0.2");

    provider.ensureLoadBalancerDeleted("test", dnsUdp).await(10, TimeUnit.SECONDS);

    assertThat(provider.addressOf(dnsUdp.key()).await(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(ensure(service("next", List.of(tcp(freePort(), tcpNodePort)), null)))
        .isEqualTo(SHARED);
  }

  @Test
  void anOverlappingPortIsInvalidInputNamingTheKeyAndPort() throws Exception {
    int port = freePort();
    ensure(service("a", List.of(tcp(port, 30001)), "k"));
    LbService b = service("b", List.of(udp(port, 30002), tcp(port, 30003)), "k");

    Throwable failure = awaitFailure(provider.ensureLoadBalancer("test", b, List.of()));

    assertThat(failure)
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("metadata.annotations[pier.dev/allow-shared-ip]");
              assertThat(e.value()).isEqualTo("k");
              assertThat(e.getMessage())
                  .contains("pier.dev/allow-shared-ip", "k", "TCP/" + port, "default/a");
            });
    assertThat(provider.addressOf(b.key()).await(10, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void sharingNeedsExternalTrafficPolicyCluster() throws Exception {
    ensure(service("a", List.of(tcp(freePort(), 30001)), "k"));
    LbService local = service("default", "b", List.of(tcp(freePort(), 30002)), "k", "Local");

    Throwable failure = awaitFailure(provider.ensureLoadBalancer("test", local, List.of()));

    assertThat(failure)
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> assertThat(e.getMessage()).contains("pier.dev/allow-shared-ip", "k", "Local"));
  }

  @Test
  void otherKeysAndOtherNamespacesDoNotShare() throws Exception {
    String a = ensure(service("a", List.of(tcp(freePort(), 30001)), "k"));
    String otherKey = ensure(service("b", List.of(tcp(freePort(), 30002)), "j"));
    String otherNamespace =
        ensure(service("other", "c", List.of(tcp(freePort(), 30003)), "k", "Cluster"));
    String none = ensure(service("d", List.of(tcp(freePort(), 30004)), null));

    assertThat(List.of(a, otherKey, otherNamespace, none)).doesNotHaveDuplicates();
  }
}
