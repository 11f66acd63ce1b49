package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.awaitFailure;
import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.open;
import static dev.pier.cloud.local.LbTestSupport.request;
import static dev.pier.cloud.local.LbTestSupport.serviceWithSourceRanges;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static dev.pier.cloud.local.LbTestSupport.udp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ProviderException;
import dev.pier.model.LbIngress;
import dev.pier.model.LbService;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code spec.loadBalancerSourceRanges} enforced by the local proxy, on loopback. */
@ExtendWith(VertxExtension.class)
class LocalProviderSourceRangesTest {

  private static final String FIRST = "127.246.0.1";

  private Vertx vertx;
  private LocalLoadBalancerProvider provider;
  private NetClient client;
  private final AtomicInteger backendConnections = new AtomicInteger();
  private final List<String> backendDatagrams = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    this.provider =
        new LocalLoadBalancerProvider(
            vertx, new LocalProviderOptions().setPoolAddresses(List.of("127.246.0.0/24")));
    this.client = vertx.createNetClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
  }

  private EnsureResult ensure(LbService svc) throws Exception {
    return provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS);
  }

  /** A TCP backend answering {@code n1:line}, counting its connections. */
  private int tcpBackend() throws Exception {
    int nodePort = freePort();
    NetServer server =
        vertx
            .createNetServer()
            .connectHandler(
                so -> {
                  backendConnections.incrementAndGet();
                  so.handler(b -> so.write(Buffer.buffer("n1:").appendBuffer(b)));
                });
    server.listen(nodePort, "127.0.0.1").await(10, TimeUnit.SECONDS);
    return nodePort;
  }

  /** A UDP backend echoing {@code n1:datagram}, recording what it receives. */
  private int udpBackend() throws Exception {
    int nodePort = freePort();
    DatagramSocket socket = vertx.createDatagramSocket();
    socket.handler(
        p -> {
          backendDatagrams.add(p.data().toString());
          socket.send(
              Buffer.buffer("n1:").appendBuffer(p.data()), p.sender().port(), p.sender().host());
        });
    socket.listen(nodePort, "127.0.0.1").await(10, TimeUnit.SECONDS);
    return nodePort;
  }

  /** Whether a connection is closed by the proxy within a short while. */
  /**
   * Connects from {@code from} with a plain blocking socket and tells whether the proxy ends the
   * connection (end of stream or reset) within five seconds. A blocking read sees a close however
   * early it comes, which a close handler set after the connect completed can miss.
   */
  private static boolean closedSoon(String from, String host, int port) {
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.bind(new java.net.InetSocketAddress(from, 0));
      socket.connect(new java.net.InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(5_000);
      try {
        return socket.getInputStream().read() == -1;
      } catch (java.net.SocketTimeoutException stillOpen) {
        return false;
      } catch (java.io.IOException reset) {
        return true;
      }
    } catch (java.io.IOException refused) {
      return true;
    }
  }

  private NetClient clientFrom(String localAddress) {
    return vertx.createNetClient(new NetClientOptions().setLocalAddress(localAddress));
  }

  /** Sends one datagram from {@code from} and returns the answer, or null after a short wait. */
  private String udpRequest(String from, int port, String text) throws Exception {
    DatagramSocket socket =
        vertx.createDatagramSocket().listen(0, from).await(10, TimeUnit.SECONDS);
    try {
      Promise<String> reply = Promise.promise();
      socket.handler(p -> reply.tryComplete(p.data().toString()));
      socket.send(text, port, FIRST).await(10, TimeUnit.SECONDS);
      try {
        return reply.future().await(1, TimeUnit.SECONDS);
      } catch (Exception e) {
        return null;
      }
    } finally {
      socket.close();
    }
  }

  @Test
  void tcpClientOutsideTheRangesIsClosedAtOnce() throws Exception {
    int nodePort = tcpBackend();
    int port = freePort();
    ensure(serviceWithSourceRanges("web", List.of(tcp(port, nodePort)), List.of("10.0.0.0/8")));

    assertThat(closedSoon("127.0.0.1", FIRST, port)).isTrue();
    assertThat(backendConnections.get()).isZero();
  }

  @Test
  void tcpClientInsideTheRangesIsAdmitted() throws Exception {
    int nodePort = tcpBackend();
    int port = freePort();
    ensure(
        serviceWithSourceRanges(
            "web", List.of(tcp(port, nodePort)), List.of("fd00::/8", "127.0.0.0/8")));

    assertThat(request(client, FIRST, port, "hi")).isEqualTo("n1:hi");
  }

  @Test
  void udpDatagramsFromOutsideTheRangesAreDropped() throws Exception {
    int nodePort = udpBackend();
    int port = freePort();
    ensure(serviceWithSourceRanges("dns", List.of(udp(port, nodePort)), List.of("10.0.0.0/8")));

    assertThat(udpRequest("127.0.0.1", port, "q")).isNull();
    assertThat(backendDatagrams).isEmpty();
  }

  @Test
  void udpDatagramsFromInsideTheRangesAreRelayed() throws Exception {
    int nodePort = udpBackend();
    int port = freePort();
    ensure(serviceWithSourceRanges("dns", List.of(udp(port, nodePort)), List.of("127.0.0.0/8")));

    assertThat(udpRequest("127.0.0.1", port, "q")).isEqualTo("n1:q");
  }

  @Test
  void emptyRangesAdmitEveryone() throws Exception {
    int nodePort = tcpBackend();
    int port = freePort();
    ensure(serviceWithSourceRanges("web", List.of(tcp(port, nodePort)), List.of()));

    assertThat(request(client, FIRST, port, "hi")).isEqualTo("n1:hi");
  }

  @Test
  void changedRangesApplyOnTheNextEnsureWithoutRebinding() throws Exception {
    int tcpNodePort = tcpBackend();
    int udpNodePort = udpBackend();
    int port = freePort();
    LbService open =
        serviceWithSourceRanges(
            "web", List.of(tcp(port, tcpNodePort), udp(port, udpNodePort)), List.of());
    ensure(open);
    NetClient fromOne = clientFrom("127.0.0.1");
    NetClient fromTwo = clientFrom("127.0.0.2");
    NetSocket heldByOne = open(fromOne, FIRST, port);
    NetSocket heldByTwo = open(fromTwo, FIRST, port);
    Promise<Void> oneClosed = Promise.promise();
    heldByOne.closeHandler(v -> oneClosed.tryComplete());
    Promise<Void> twoClosed = Promise.promise();
    heldByTwo.closeHandler(v -> twoClosed.tryComplete());
    assertThat(udpRequest("127.0.0.1", port, "before")).isEqualTo("n1:before");

    EnsureResult narrowed =
        ensure(
            serviceWithSourceRanges(
                "web",
                List.of(tcp(port, tcpNodePort), udp(port, udpNodePort)),
                List.of("127.0.0.2/32")));

    assertThat(narrowed.status().ingress().get(0).ports())
        .extracting(LbIngress.PortStatus::error)
        .containsOnlyNulls();
    // New connections and datagrams from 127.0.0.1 are refused; an open one from it is closed.
    assertThat(closedSoon("127.0.0.1", FIRST, port)).isTrue();
    oneClosed.future().await(10, TimeUnit.SECONDS);
    assertThat(udpRequest("127.0.0.1", port, "after")).isNull();
    // 127.0.0.2's connection, opened before the change, still works: the port was not re-bound.
    Promise<String> reply = Promise.promise();
    heldByTwo.handler(b -> reply.tryComplete(b.toString()));
    heldByTwo.write("still\n");
    assertThat(reply.future().await(10, TimeUnit.SECONDS)).isEqualTo("n1:still\n");
    assertThat(twoClosed.future().isComplete()).isFalse();
    assertThat(request(fromTwo, FIRST, port, "new")).isEqualTo("n1:new");
    assertThat(udpRequest("127.0.0.2", port, "two")).isEqualTo("n1:two");

    // Widening again admits 127.0.0.1.
    ensure(open);
    assertThat(request(fromOne, FIRST, port, "again")).isEqualTo("n1:again");
  }

  @Test
  void anInvalidRangeIsInvalidInput() throws Exception {
    LbService svc =
        serviceWithSourceRanges(
            "web", List.of(tcp(freePort(), 30000)), List.of("127.0.0.0/8", "10.0.0.0/33"));

    Throwable failure =
        awaitFailure(provider.ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1"))));

    assertThat(failure)
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec.loadBalancerSourceRanges");
              assertThat(e.value()).isEqualTo("10.0.0.0/33");
              assertThat(e.getMessage()).contains("spec.loadBalancerSourceRanges", "10.0.0.0/33");
            });
    assertThat(provider.addressOf(svc.key()).await(10, TimeUnit.SECONDS)).isEmpty();
  }
}
