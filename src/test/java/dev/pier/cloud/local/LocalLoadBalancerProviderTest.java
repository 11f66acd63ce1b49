package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.awaitFailure;
import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.key;
import static dev.pier.cloud.local.LbTestSupport.nameServer;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.open;
import static dev.pier.cloud.local.LbTestSupport.request;
import static dev.pier.cloud.local.LbTestSupport.service;
import static dev.pier.cloud.local.LbTestSupport.statusWithIp;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static dev.pier.cloud.local.LbTestSupport.udp;
import static dev.pier.cloud.local.LbTestSupport.udpEchoServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ProviderException;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Real traffic through the local load balancer, with in-process backends and no Kubernetes. */
@ExtendWith(VertxExtension.class)
class LocalLoadBalancerProviderTest {

  private static final String POOL = "127.241.0.0/24";
  private static final String FIRST = "127.241.0.1";

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
                .setPoolAddresses(List.of(POOL))
                .setHealthCheckInterval(Duration.ofMillis(200))
                .setHealthCheckTimeout(Duration.ofSeconds(1))
                .setConnectTimeout(Duration.ofSeconds(2)));
    this.client = vertx.createNetClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
  }

  private EnsureResult ensure(LbService svc, LbNode... nodes) throws Exception {
    return provider.ensureLoadBalancer("test", svc, List.of(nodes)).await(10, TimeUnit.SECONDS);
  }

  @Test
  void httpReachesTheBackendThroughTheAllocatedAddress() throws Exception {
    int nodePort = freePort();
    vertx
        .createHttpServer()
        .requestHandler(req -> req.response().end("hello from n1 " + req.path()))
        .listen(nodePort, "127.0.0.1")
        .await(10, TimeUnit.SECONDS);
    int port = freePort();
    LbService svc = service("web", List.of(new LbPort("http", "TCP", port, nodePort)));

    EnsureResult result = ensure(svc, node("n1", "127.0.0.1"));

    assertThat(result.warnings()).isEmpty();
    assertThat(result.status().ingress())
        .containsExactly(
            new LbIngress(
                FIRST, null, "Proxy", List.of(new LbIngress.PortStatus(port, "TCP", null))));
    HttpClient http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false));
    String body =
        http.request(HttpMethod.GET, port, FIRST, "/index.html")
            .compose(req -> req.send().compose(resp -> resp.body()))
            .map(Buffer::toString)
            .await(10, TimeUnit.SECONDS);
    assertThat(body).isEqualTo("hello from n1 /index.html");
    assertThat(provider.getLoadBalancer("test", svc).await(10, TimeUnit.SECONDS))
        .contains(result.status());
    assertThat(provider.name()).isEqualTo("local");
  }

  @Test
  void loadBalancerNameFollowsUpstream() {
    LbService svc =
        new LbService(
            key("web"),
            "6f1c0b2e-8d2a-4f5e-9a7b-0123456789ab",
            List.of(),
            null,
            null,
            0,
            null,
            null,
            null,
            null,
            null);
    assertThat(provider.loadBalancerName("test", svc))
        .isEqualTo("a6f1c0b2e8d2a4f5e9a7b0123456789a");
  }

  @Test
  void resyncWithTheSameSpecKeepsConnectionsOpen() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    LbService svc = service("web", List.of(tcp(port, nodePort)));
    ensure(svc, node("n1", "127.0.0.1"));
    NetSocket held = open(client, FIRST, port);
    Promise<Void> closed = Promise.promise();
    held.closeHandler(v -> closed.tryComplete());

    EnsureResult again = ensure(svc, node("n1", "127.0.0.1"));

    assertThat(again.status().ingress().get(0).ip()).isEqualTo(FIRST);
    Promise<String> reply = Promise.promise();
    held.handler(b -> reply.tryComplete(b.toString()));
    held.write("still there\n");
    assertThat(reply.future().await(10, TimeUnit.SECONDS)).isEqualTo("n1:still there\n");
    assertThat(closed.future().isComplete()).isFalse();
  }

  @Test
  void udpDatagramsAreRelayedBothWays() throws Exception {
    int nodePort = freePort();
    udpEchoServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    LbService svc = service("dns", List.of(udp(port, nodePort)));

    EnsureResult result = ensure(svc, node("n1", "127.0.0.1"));
    assertThat(result.warnings()).isEmpty();
    assertThat(result.status().ingress().get(0).ports())
        .containsExactly(new LbIngress.PortStatus(port, "UDP", null));

    DatagramSocket udpClient =
        vertx.createDatagramSocket().listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    Promise<DatagramPacket> first = Promise.promise();
    udpClient.handler(first::tryComplete);
    udpClient.send("ping", port, FIRST).await(10, TimeUnit.SECONDS);
    DatagramPacket reply = first.future().await(10, TimeUnit.SECONDS);
    assertThat(reply.data().toString()).isEqualTo("n1:ping");
    // The reply comes from the load balancer's address, not the backend's.
    assertThat(reply.sender().host()).isEqualTo(FIRST);
    assertThat(reply.sender().port()).isEqualTo(port);

    // The same client's next datagram uses its session.
    Promise<DatagramPacket> second = Promise.promise();
    udpClient.handler(second::tryComplete);
    udpClient.send("pong", port, FIRST).await(10, TimeUnit.SECONDS);
    assertThat(second.future().await(10, TimeUnit.SECONDS).data().toString()).isEqualTo("n1:pong");
  }

  @Test
  void udpSessionSocketRelaysOnlyTheBackendsDatagrams() throws Exception {
    int nodePort = freePort();
    Promise<Integer> sessionPort = Promise.promise();
    DatagramSocket backend = vertx.createDatagramSocket();
    backend.handler(
        p -> {
          sessionPort.tryComplete(p.sender().port());
          backend.send(
              Buffer.buffer("n1:").appendBuffer(p.data()), p.sender().port(), p.sender().host());
        });
    backend.listen(nodePort, "127.0.0.1").await(10, TimeUnit.SECONDS);
    int port = freePort();
    ensure(service("dns", List.of(udp(port, nodePort))), node("n1", "127.0.0.1"));
    DatagramSocket udpClient =
        vertx.createDatagramSocket().listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
    Promise<Void> ping = Promise.promise();
    Promise<Void> pong = Promise.promise();
    udpClient.handler(
        p -> {
          String text = p.data().toString();
          received.add(text);
          if (text.equals("n1:ping")) {
            ping.tryComplete();
          } else if (text.equals("n1:pong")) {
            pong.tryComplete();
          }
        });
    udpClient.send("ping", port, FIRST).await(10, TimeUnit.SECONDS);
    ping.future().await(10, TimeUnit.SECONDS);
    int session = sessionPort.future().await(10, TimeUnit.SECONDS);

    // Someone other than the backend (here: the backend's host, another port) writes to the
    // session socket; it must not reach the client.
    DatagramSocket stranger =
        vertx.createDatagramSocket().listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    stranger.send("forged", session, "127.0.0.1").await(10, TimeUnit.SECONDS);
    stranger.send("forged", session, "127.0.0.1").await(10, TimeUnit.SECONDS);
    Thread.sleep(300);

    udpClient.send("pong", port, FIRST).await(10, TimeUnit.SECONDS);
    pong.future().await(10, TimeUnit.SECONDS);
    Thread.sleep(200);
    assertThat(received).containsExactly("n1:ping", "n1:pong");
  }

  @Test
  void udpSessionsExpireAfterSilence() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
    provider =
        new LocalLoadBalancerProvider(
            vertx,
            new LocalProviderOptions()
                .setPoolAddresses(List.of(POOL))
                .setUdpSessionTimeout(Duration.ofMillis(300)));
    int nodePort = freePort();
    Map<String, Integer> sources = new HashMap<>();
    DatagramSocket backend = vertx.createDatagramSocket();
    backend.handler(
        p -> {
          synchronized (sources) {
            sources.merge(p.sender().host() + ":" + p.sender().port(), 1, Integer::sum);
          }
          backend.send(p.data(), p.sender().port(), p.sender().host());
        });
    backend.listen(nodePort, "127.0.0.1").await(10, TimeUnit.SECONDS);
    int port = freePort();
    ensure(service("dns", List.of(udp(port, nodePort))), node("n1", "127.0.0.1"));
    DatagramSocket udpClient =
        vertx.createDatagramSocket().listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);

    Promise<DatagramPacket> first = Promise.promise();
    udpClient.handler(first::tryComplete);
    udpClient.send("one", port, FIRST).await(10, TimeUnit.SECONDS);
    first.future().await(10, TimeUnit.SECONDS);
    // After the session expired, the next datagram reaches the backend from a new session socket.
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(600))
        .untilAsserted(
            () -> {
              Promise<DatagramPacket> next = Promise.promise();
              udpClient.handler(next::tryComplete);
              udpClient.send("again", port, FIRST).await(10, TimeUnit.SECONDS);
              next.future().await(10, TimeUnit.SECONDS);
              synchronized (sources) {
                assertThat(sources).hasSizeGreaterThanOrEqualTo(2);
              }
            });
  }

  @Test
  void connectionsAreSpreadRoundRobinOverTwoNodes() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    nameServer(vertx, "127.0.0.2", nodePort, "n2");
    int port = freePort();
    ensure(
        service("web", List.of(tcp(port, nodePort))),
        node("n1", "127.0.0.1"),
        node("n2", "127.0.0.2"));

    Map<String, Integer> answers = new HashMap<>();
    for (int i = 0; i < 10; i++) {
      answers.merge(request(client, FIRST, port, "hi"), 1, Integer::sum);
    }

    assertThat(answers).containsOnly(Map.entry("n1:hi", 5), Map.entry("n2:hi", 5));
  }

  @Test
  void killedBackendIsMarkedDownAndTrafficGoesToTheOther() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    NetServer n2 = nameServer(vertx, "127.0.0.2", nodePort, "n2");
    int port = freePort();
    ensure(
        service("web", List.of(tcp(port, nodePort))),
        node("n1", "127.0.0.1"),
        node("n2", "127.0.0.2"));
    assertThat(request(client, FIRST, port, "a")).isIn("n1:a", "n2:a");
    assertThat(request(client, FIRST, port, "b")).isIn("n1:b", "n2:b");

    n2.close().await(10, TimeUnit.SECONDS);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(provider.backendHealth().await(10, TimeUnit.SECONDS))
                    .containsEntry("tcp://127.0.0.2:" + nodePort, false)
                    .containsEntry("tcp://127.0.0.1:" + nodePort, true));
    for (int i = 0; i < 6; i++) {
      assertThat(request(client, FIRST, port, "c" + i)).isEqualTo("n1:c" + i);
    }
  }

  @Test
  void failedConnectMovesOnToTheNextBackend() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    // 127.0.0.2 has nothing listening on the node port, and health checks have not run yet.
    provider.close().await(10, TimeUnit.SECONDS);
    provider =
        new LocalLoadBalancerProvider(
            vertx,
            new LocalProviderOptions()
                .setPoolAddresses(List.of(POOL))
                .setHealthCheckInterval(Duration.ofMinutes(10)));
    int port = freePort();
    ensure(
        service("web", List.of(tcp(port, nodePort))),
        node("n2", "127.0.0.2"),
        node("n1", "127.0.0.1"));

    for (int i = 0; i < 4; i++) {
      assertThat(request(client, FIRST, port, "x" + i)).isEqualTo("n1:x" + i);
    }
  }

  @Test
  void changedPortMovesTheListenerAndTheOldPortRefuses() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int oldPort = freePort();
    int newPort = freePort();
    ensure(service("web", List.of(tcp(oldPort, nodePort))), node("n1", "127.0.0.1"));
    assertThat(request(client, FIRST, oldPort, "old")).isEqualTo("n1:old");

    EnsureResult result =
        ensure(service("web", List.of(tcp(newPort, nodePort))), node("n1", "127.0.0.1"));

    assertThat(result.status().ingress().get(0).ports())
        .containsExactly(new LbIngress.PortStatus(newPort, "TCP", null));
    assertThat(request(client, FIRST, newPort, "new")).isEqualTo("n1:new");
    assertRefuses(FIRST, oldPort);
  }

  @Test
  void changedNodePortIsFollowedWithoutRebinding() throws Exception {
    int nodePortA = freePort();
    int nodePortB = freePort();
    nameServer(vertx, "127.0.0.1", nodePortA, "a");
    nameServer(vertx, "127.0.0.1", nodePortB, "b");
    int port = freePort();
    ensure(service("web", List.of(tcp(port, nodePortA))), node("n1", "127.0.0.1"));
    NetSocket held = open(client, FIRST, port);
    Promise<Void> closed = Promise.promise();
    held.closeHandler(v -> closed.tryComplete());

    ensure(service("web", List.of(tcp(port, nodePortB))), node("n1", "127.0.0.1"));

    assertThat(request(client, FIRST, port, "x")).isEqualTo("b:x");
    assertThat(closed.future().isComplete()).isFalse();
  }

  @Test
  void portBoundBySomeoneElseWarnsAndTheOtherPortStillWorks() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int busyPort = freePort();
    int freePort = freePort();
    LbService svc = service("web", List.of(tcp(busyPort, nodePort), tcp(freePort, nodePort)));
    EnsureResult result;
    try (ServerSocket blocker = new ServerSocket(busyPort, 1, InetAddress.getByName(FIRST))) {
      result = ensure(svc, node("n1", "127.0.0.1"));

      assertThat(result.status().ingress().get(0).ports())
          .containsExactly(
              new LbIngress.PortStatus(busyPort, "TCP", "AddressInUse"),
              new LbIngress.PortStatus(freePort, "TCP", null));
      assertThat(result.warnings()).hasSize(1);
      EnsureResult.Warning warning = result.warnings().get(0);
      assertThat(warning.reason()).isEqualTo("PortBindFailed");
      assertThat(warning.message())
          .startsWith("cannot listen on " + FIRST + ":" + busyPort + "/TCP: ")
          .endsWith("; other ports are unaffected");
      assertThat(request(client, FIRST, freePort, "ok")).isEqualTo("n1:ok");
    }

    // Once the port is free, the next ensure binds it.
    EnsureResult retried = ensure(svc, node("n1", "127.0.0.1"));
    assertThat(retried.warnings()).isEmpty();
    assertThat(retried.status().ingress().get(0).ports())
        .extracting(LbIngress.PortStatus::error)
        .containsOnlyNulls();
    assertThat(request(client, FIRST, busyPort, "now")).isEqualTo("n1:now");
  }

  @Test
  void updateLoadBalancerHostsSwitchesTheBackend() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    nameServer(vertx, "127.0.0.2", nodePort, "n2");
    int port = freePort();
    LbService svc = service("web", List.of(tcp(port, nodePort), udp(port, nodePort)));
    assertThat(awaitFailure(provider.updateLoadBalancerHosts("test", svc, List.of())))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("default/web");
    ensure(svc, node("n1", "127.0.0.1"));
    assertThat(request(client, FIRST, port, "before")).isEqualTo("n1:before");

    provider
        .updateLoadBalancerHosts("test", svc, List.of(node("n2", "127.0.0.2")))
        .await(10, TimeUnit.SECONDS);

    for (int i = 0; i < 3; i++) {
      assertThat(request(client, FIRST, port, "after" + i)).isEqualTo("n2:after" + i);
    }
  }

  @Test
  void deletedLoadBalancerRefusesConnectionsAndReleasesItsAddress() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    LbService svc = service("web", List.of(tcp(port, nodePort)));
    ensure(svc, node("n1", "127.0.0.1"));
    NetSocket held = open(client, FIRST, port);
    Promise<Void> heldClosed = Promise.promise();
    held.closeHandler(v -> heldClosed.tryComplete());

    provider.ensureLoadBalancerDeleted("test", svc).await(10, TimeUnit.SECONDS);

    // The listening socket is closed by the time the deletion completes, give or take the
    // event loop that owns it.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              try {
                client.connect(port, FIRST).await(5, TimeUnit.SECONDS).close();
                return false;
              } catch (Exception e) {
                // Future.await rethrows the failure itself: refused is what a gone listener says.
                return e instanceof ConnectException;
              }
            });
    heldClosed.future().await(10, TimeUnit.SECONDS);
    assertThat(provider.getLoadBalancer("test", svc).await(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(provider.addressOf(svc.key()).await(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(provider.backendHealth().await(10, TimeUnit.SECONDS)).isEmpty();
    // The address is free for the next Service.
    EnsureResult other =
        ensure(service("other", List.of(tcp(port, nodePort))), node("n1", "127.0.0.1"));
    assertThat(other.status().ingress().get(0).ip()).isEqualTo(FIRST);
    // Deleting what does not exist succeeds.
    provider
        .ensureLoadBalancerDeleted("test", service("never", List.of()))
        .await(10, TimeUnit.SECONDS);
  }

  @Test
  void initializeRestoresAllocationsFromStatus() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    LbService restored =
        service("restored", List.of(tcp(port, nodePort)), null, statusWithIp("127.241.0.7"));
    LbService foreign =
        service("foreign", List.of(tcp(port, nodePort)), null, statusWithIp("10.0.0.1"));
    provider
        .initialize(new ClusterIdentity("test", "uid-test"), List.of(restored, foreign))
        .await(10, TimeUnit.SECONDS);

    assertThat(provider.addressOf(restored.key()).await(10, TimeUnit.SECONDS))
        .contains("127.241.0.7");
    assertThat(provider.addressOf(foreign.key()).await(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(provider.getLoadBalancer("test", restored).await(10, TimeUnit.SECONDS)).isPresent();
    // Another Service asking for the restored address must wait.
    LbService thief = service("thief", List.of(tcp(port, nodePort)), "127.241.0.7", LbStatus.EMPTY);
    assertThat(awaitFailure(provider.ensureLoadBalancer("test", thief, List.of())))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("test/default/restored");
    EnsureResult newcomer =
        ensure(service("newcomer", List.of(tcp(port, nodePort))), node("n1", "127.0.0.1"));
    assertThat(newcomer.status().ingress().get(0).ip()).isEqualTo(FIRST);

    EnsureResult result = ensure(restored, node("n1", "127.0.0.1"));
    assertThat(result.status().ingress().get(0).ip()).isEqualTo("127.241.0.7");
    assertThat(request(client, "127.241.0.7", port, "back")).isEqualTo("n1:back");
  }

  @Test
  void statusAddressIsKeptWithoutInitialize() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    LbService svc = service("web", List.of(tcp(port, nodePort)), null, statusWithIp("127.241.0.9"));
    EnsureResult result = ensure(svc, node("n1", "127.0.0.1"));
    assertThat(result.status().ingress().get(0).ip()).isEqualTo("127.241.0.9");
  }

  @Test
  void requestedAddressMovesTheLoadBalancer() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    ensure(service("web", List.of(tcp(port, nodePort))), node("n1", "127.0.0.1"));
    assertThat(request(client, FIRST, port, "one")).isEqualTo("n1:one");

    EnsureResult moved =
        ensure(
            service("web", List.of(tcp(port, nodePort)), "127.241.0.20", LbStatus.EMPTY),
            node("n1", "127.0.0.1"));

    assertThat(moved.status().ingress().get(0).ip()).isEqualTo("127.241.0.20");
    assertThat(request(client, "127.241.0.20", port, "two")).isEqualTo("n1:two");
    assertRefuses(FIRST, port);
  }

  @Test
  void requestedAddressOutsideThePoolsIsInvalidInput() throws Exception {
    LbService svc = service("web", List.of(tcp(freePort(), 30000)), "10.1.2.3", LbStatus.EMPTY);
    Throwable failure = awaitFailure(provider.ensureLoadBalancer("test", svc, List.of()));
    assertThat(failure)
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec.loadBalancerIP");
              assertThat(e.getMessage())
                  .isEqualTo(
                      "spec.loadBalancerIP 10.1.2.3 is outside the address pools [" + POOL + "]");
            });
    assertThat(provider.getLoadBalancer("test", svc).await(10, TimeUnit.SECONDS))
        .isEqualTo(Optional.empty());
  }

  @Test
  void unsupportedProtocolIsInvalidInputNamingThePort() throws Exception {
    LbService svc =
        service(
            "web", List.of(tcp(freePort(), 30000), new LbPort("sctp", "SCTP", freePort(), 30001)));
    Throwable failure = awaitFailure(provider.ensureLoadBalancer("test", svc, List.of()));
    assertThat(failure)
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec.ports[1].protocol");
              assertThat(e.value()).isEqualTo("SCTP");
            });
    assertThat(provider.addressOf(svc.key()).await(10, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void callsFromAnotherContextCompleteOnThatContext() throws Exception {
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    LbService svc = service("web", List.of(tcp(freePort(), nodePort)));
    Promise<Boolean> sameContext = Promise.promise();
    vertx
        .deployVerticle(
            new VerticleBase() {
              @Override
              public Future<?> start() {
                Context caller = context;
                provider
                    .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1")))
                    .onComplete(ar -> sameContext.complete(Vertx.currentContext() == caller));
                return Future.succeededFuture();
              }
            })
        .await(10, TimeUnit.SECONDS);
    assertThat(sameContext.future().await(10, TimeUnit.SECONDS)).isTrue();
  }

  /**
   * The address refuses connections; asked again for a few seconds, as a listener's socket closes
   * on its event loop right after the call that closed it answered.
   */
  private void assertRefuses(String host, int port) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(awaitFailure(client.connect(port, host)))
                    .isInstanceOf(ConnectException.class));
  }
}
