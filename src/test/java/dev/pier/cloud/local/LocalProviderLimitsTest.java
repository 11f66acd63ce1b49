package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.key;
import static dev.pier.cloud.local.LbTestSupport.nameServer;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.service;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static dev.pier.cloud.local.LbTestSupport.udp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.ServiceRef;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The local provider's limits on connections and UDP sessions, with real traffic. */
@ExtendWith(VertxExtension.class)
class LocalProviderLimitsTest {

  private static final Logger log = LoggerFactory.getLogger(LocalProviderLimitsTest.class);

  private static final String POOL = "127.249.0.0/24";
  private static final String FIRST = "127.249.0.1";
  private static final String SECOND = "127.249.0.2";

  /** An Event as the provider reported it, with when. */
  record Recorded(ObjectRef ref, String type, String reason, String message, long nanos) {}

  private Vertx vertx;
  private LocalLoadBalancerProvider provider;
  private PrometheusMeterRegistry registry;
  private final List<Recorded> events = new ArrayList<>();
  private NetClient client;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    this.client = vertx.createNetClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (provider != null) {
      provider.close().await(10, TimeUnit.SECONDS);
    }
  }

  private void start(LocalProviderOptions options) {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    EventSink sink =
        (ref, type, reason, message) -> {
          synchronized (events) {
            events.add(new Recorded(ref, type, reason, message, System.nanoTime()));
          }
        };
    provider =
        new LocalLoadBalancerProvider(
            vertx, options.setPoolAddresses(List.of(POOL)), registry, sink);
  }

  private List<Recorded> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  private void ensure(LbService svc) throws Exception {
    provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS);
  }

  /** The value of one sample of the Prometheus text, or null when absent. */
  private Double sample(String name, String service, String limit) {
    return sample(name, "default", service, limit);
  }

  private Double sample(String name, String namespace, String service, String limit) {
    String labels =
        "cluster=\"test\","
            + (limit == null ? "" : "limit=\"" + limit + "\",")
            + "namespace=\""
            + namespace
            + "\",service=\""
            + service
            + "\"";
    String prefix = name + "{" + labels + "} ";
    for (String line : registry.scrape().split("\n")) {
      if (line.startsWith(prefix)) {
        return Double.valueOf(line.substring(prefix.length()));
      }
    }
    return null;
  }

  @Test
  void aConnectionOverTheLoadBalancersLimitIsClosedAndOneClosingAdmitsAnother() throws Exception {
    start(new LocalProviderOptions().setMaxConnectionsPerLoadBalancer(2));
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int portA = freePort();
    int portB = freePort();
    ensure(service("web", List.of(tcp(portA, nodePort), tcp(portB, nodePort))));

    // The limit counts over all ports of the load balancer.
    Line first = Line.open(vertx, client, FIRST, portA);
    assertThat(first.ask("one")).isEqualTo("n1:one");
    Line second = Line.open(vertx, client, FIRST, portB);
    assertThat(second.ask("two")).isEqualTo("n1:two");

    Line third = Line.open(vertx, client, FIRST, portA);
    third.closed.await(10, TimeUnit.SECONDS);
    assertThat(first.ask("still")).isEqualTo("n1:still");
    assertThat(sample("pier_local_connections", "web", null)).isEqualTo(2.0);
    assertThat(sample("pier_local_connections_refused_total", "web", "load_balancer"))
        .isEqualTo(1.0);
    assertThat(sample("pier_local_connections_refused_total", "web", "global")).isNull();

    first.socket.close().await(5, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> sample("pier_local_connections", "web", null) == 1.0);
    Line fourth = Line.open(vertx, client, FIRST, portA);
    assertThat(fourth.ask("four")).isEqualTo("n1:four");
    assertThat(sample("pier_local_connections", "web", null)).isEqualTo(2.0);
    assertThat(sample("pier_local_connections_refused_total", "web", "load_balancer"))
        .isEqualTo(1.0);

    // A deleted load balancer's series go with it, and its connections leave the provider's count.
    provider
        .ensureLoadBalancerDeleted("test", service("web", List.of()))
        .await(10, TimeUnit.SECONDS);
    assertThat(sample("pier_local_connections", "web", null)).isNull();
    assertThat(sample("pier_local_connections_refused_total", "web", "load_balancer")).isNull();
    second.closed.await(5, TimeUnit.SECONDS);
    fourth.closed.await(5, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> provider.openOf(null).await(5, TimeUnit.SECONDS).connections() == 0);
  }

  @Test
  void theProvidersLimitRefusesAConnectionOfAnyLoadBalancer() throws Exception {
    start(new LocalProviderOptions().setMaxConnections(2));
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    ensure(service("a", List.of(tcp(port, nodePort))));
    ensure(service("b", List.of(tcp(port, nodePort))));

    Line a1 = Line.open(vertx, client, FIRST, port);
    assertThat(a1.ask("a1")).isEqualTo("n1:a1");
    Line a2 = Line.open(vertx, client, FIRST, port);
    assertThat(a2.ask("a2")).isEqualTo("n1:a2");
    Line b1 = Line.open(vertx, client, SECOND, port);
    b1.closed.await(10, TimeUnit.SECONDS);

    assertThat(sample("pier_local_connections_refused_total", "b", "global")).isEqualTo(1.0);
    assertThat(sample("pier_local_connections", "a", null)).isEqualTo(2.0);
    assertThat(sample("pier_local_connections", "b", null)).isEqualTo(0.0);
    assertThat(events()).singleElement().satisfies(e -> assertThat(e.ref().name()).isEqualTo("b"));
    assertThat(events().get(0).message()).contains("local.maxConnections");
  }

  @Test
  void anIdleConnectionIsClosedAndOnesWithTrafficEitherWayAreNot() throws Exception {
    start(new LocalProviderOptions().setTcpIdleTimeout(Duration.ofSeconds(1)));
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int pushPort = freePort();
    // A backend that sends a line every 150 ms, for a client that sends nothing.
    vertx
        .createNetServer()
        .connectHandler(
            so -> {
              long timer = vertx.setPeriodic(150, t -> so.write("tick\n"));
              so.closeHandler(v -> vertx.cancelTimer(timer));
            })
        .listen(pushPort, "127.0.0.1")
        .await(10, TimeUnit.SECONDS);
    int port = freePort();
    int pushedPort = freePort();
    ensure(service("web", List.of(tcp(port, nodePort), tcp(pushedPort, pushPort))));

    long start = System.nanoTime();
    Line idle = Line.open(vertx, client, FIRST, port);
    Line talking = Line.open(vertx, client, FIRST, port);
    Line listening = Line.open(vertx, client, FIRST, pushedPort);
    long talk = vertx.setPeriodic(150, t -> talking.socket.write("hi\n"));
    try {
      idle.closed.await(8, TimeUnit.SECONDS);
      long idleClosedMillis = (System.nanoTime() - start) / 1_000_000;
      log.info("idle connection closed after {} ms (timeout 1000 ms)", idleClosedMillis);
      assertThat(idleClosedMillis).isBetween(900L, 5_000L);
      Thread.sleep(2_000);
      assertThat(talking.closed.isComplete()).isFalse();
      assertThat(listening.closed.isComplete()).isFalse();
      int ticks = listening.lines();
      await().atMost(Duration.ofSeconds(2)).until(() -> listening.lines() > ticks);
    } finally {
      vertx.cancelTimer(talk);
    }
  }

  @Test
  void aNewUdpClientAtTheLoadBalancersLimitEndsTheLeastRecentlyUsedSession() throws Exception {
    start(new LocalProviderOptions().setMaxUdpSessionsPerLoadBalancer(2));
    int nodePort = freePort();
    portEchoServer(nodePort);
    int port = freePort();
    ensure(service("dns", List.of(udp(port, nodePort))));
    Udp c1 = Udp.open(vertx);
    Udp c2 = Udp.open(vertx);
    Udp c3 = Udp.open(vertx);

    String s1 = c1.ask(FIRST, port);
    String s2 = c2.ask(FIRST, port);
    assertThat(c1.ask(FIRST, port)).isEqualTo(s1); // c1 used last: c2 is now the least recent
    c3.ask(FIRST, port);

    assertThat(c1.ask(FIRST, port)).as("c1 keeps its session").isEqualTo(s1);
    assertThat(sample("pier_local_udp_sessions_evicted_total", "dns", "load_balancer"))
        .isEqualTo(1.0);
    assertThat(c2.ask(FIRST, port)).as("c2's session was ended").isNotEqualTo(s2);
    assertThat(sample("pier_local_udp_sessions", "dns", null)).isEqualTo(2.0);
    assertThat(sample("pier_local_udp_sessions_evicted_total", "dns", "load_balancer"))
        .isEqualTo(2.0);
    assertThat(provider.openOf(key("dns")).await(5, TimeUnit.SECONDS))
        .isEqualTo(new ProxyLimits.Open(0, 2));
  }

  /**
   * A flood on one load balancer never ends another's sessions: at the provider's limit a new
   * client ends the least recently used session of its own load balancer, and is refused when that
   * load balancer holds none.
   */
  @Test
  void aNewUdpClientAtTheProvidersLimitEndsOnlyItsOwnLoadBalancersSessionOrIsRefused()
      throws Exception {
    start(new LocalProviderOptions().setMaxUdpSessions(2));
    int nodePort = freePort();
    portEchoServer(nodePort);
    int port = freePort();
    ensure(service("a", List.of(udp(port, nodePort))));
    ensure(service("b", List.of(udp(port, nodePort))));
    Udp c1 = Udp.open(vertx);
    Udp c2 = Udp.open(vertx);
    Udp c3 = Udp.open(vertx);
    Udp c4 = Udp.open(vertx);

    String s1 = c1.ask(FIRST, port);
    String s2 = c2.ask(FIRST, port);

    assertThat(c3.silent(SECOND, port)).as("b holds no session to end: refused").isTrue();
    assertThat(sample("pier_local_udp_sessions_refused_total", "b", "global")).isEqualTo(1.0);
    assertThat(c1.ask(FIRST, port)).as("a's sessions stay").isEqualTo(s1);
    assertThat(c2.ask(FIRST, port)).isEqualTo(s2);
    assertThat(events())
        .anySatisfy(
            e -> {
              assertThat(e.ref().name()).isEqualTo("b");
              assertThat(e.message()).contains("refused a new UDP client", "local.maxUdpSessions");
            });

    // a's own next client ends a's least recently used session (c1's), not anyone else's.
    c4.ask(FIRST, port);
    assertThat(sample("pier_local_udp_sessions_evicted_total", "a", "global")).isEqualTo(1.0);
    assertThat(c2.ask(FIRST, port)).isEqualTo(s2);
    assertThat(sample("pier_local_udp_sessions", "a", null)).isEqualTo(2.0);
    assertThat(sample("pier_local_udp_sessions", "b", null)).isEqualTo(0.0);
  }

  /**
   * A namespace's budget holds its load balancers together, and leaves the rest of the limits to
   * other namespaces: TCP past it is refused, UDP past it ends the load balancer's own least
   * recently used session or is refused.
   */
  @Test
  void aNamespacesBudgetCapsItsLoadBalancersTogetherAndNoOtherNamespace() throws Exception {
    start(
        new LocalProviderOptions()
            .setMaxConnectionsPerNamespace(1)
            .setMaxUdpSessionsPerNamespace(1));
    int tcpNode = freePort();
    nameServer(vertx, "127.0.0.1", tcpNode, "n1");
    int udpNode = freePort();
    portEchoServer(udpNode);
    int tcpPort = freePort();
    int udpPort = freePort();
    List<LbPort> ports = List.of(tcp(tcpPort, tcpNode), udp(udpPort, udpNode));
    ensure(inNamespace(service("a", ports), "tenant"));
    ensure(inNamespace(service("b", ports), "tenant"));
    ensure(inNamespace(service("c", ports), "other"));

    Line a1 = Line.open(vertx, client, FIRST, tcpPort);
    assertThat(a1.ask("a1")).isEqualTo("n1:a1");
    Line b1 = Line.open(vertx, client, SECOND, tcpPort);
    b1.closed.await(10, TimeUnit.SECONDS);
    Line c1 = Line.open(vertx, client, "127.249.0.3", tcpPort);
    assertThat(c1.ask("c1")).as("another namespace has its own budget").isEqualTo("n1:c1");
    assertThat(sample("pier_local_connections_refused_total", "tenant", "b", "namespace"))
        .isEqualTo(1.0);

    Udp u1 = Udp.open(vertx);
    Udp u2 = Udp.open(vertx);
    Udp u3 = Udp.open(vertx);
    String s1 = u1.ask(FIRST, udpPort);
    assertThat(u2.silent(SECOND, udpPort)).as("b's tenant budget is held by a").isTrue();
    assertThat(sample("pier_local_udp_sessions_refused_total", "tenant", "b", "namespace"))
        .isEqualTo(1.0);
    assertThat(u3.ask("127.249.0.3", udpPort)).isNotEmpty();
    assertThat(u1.ask(FIRST, udpPort)).as("a keeps its session").isEqualTo(s1);
    // b's Warning already went for its TCP refusal: one per Service per limitWarningInterval.
    assertThat(events())
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .contains("namespace tenant", "local.maxConnectionsPerNamespace"));
  }

  private static LbService inNamespace(LbService s, String namespace) {
    return new LbService(
        new dev.pier.model.ServiceKey(s.key().cluster(), namespace, s.key().name()),
        s.uid(),
        s.ports(),
        s.loadBalancerIp(),
        s.externalTrafficPolicy(),
        s.healthCheckNodePort(),
        s.sessionAffinity(),
        s.sourceRanges(),
        s.annotations(),
        s.ipFamilies(),
        s.status(),
        s.ipFamilyPolicy());
  }

  @Test
  void aLimitThatBitesWarnsTheServiceAtMostOncePerInterval() throws Exception {
    start(
        new LocalProviderOptions()
            .setMaxConnectionsPerLoadBalancer(1)
            .setLimitWarningInterval(Duration.ofSeconds(2)));
    int nodePort = freePort();
    nameServer(vertx, "127.0.0.1", nodePort, "n1");
    int port = freePort();
    ensure(service("web", List.of(tcp(port, nodePort))));
    Line open = Line.open(vertx, client, FIRST, port);
    assertThat(open.ask("hi")).isEqualTo("n1:hi");

    for (int i = 0; i < 3; i++) {
      Line.open(vertx, client, FIRST, port).closed.await(10, TimeUnit.SECONDS);
    }
    assertThat(events()).hasSize(1);
    Recorded first = events().get(0);
    assertThat(first.ref()).isEqualTo(ObjectRef.of(ServiceRef.of(key("web"), "uid-web")));
    assertThat(first.type()).isEqualTo(EventSink.WARNING);
    assertThat(first.reason()).isEqualTo(EventReasons.LIMIT_REACHED);
    assertThat(first.message())
        .contains("refused a connection from 127.0.0.1 on " + FIRST + ":" + port + "/TCP")
        .contains("local.maxConnectionsPerLoadBalancer");

    // Generous waits: a refused connection closes at once, but a loaded machine may be slow.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Line.open(vertx, client, FIRST, port).closed.await(10, TimeUnit.SECONDS);
              return events().size() > 1;
            });
    assertThat(events()).hasSize(2);
    Recorded second = events().get(1);
    assertThat(second.nanos() - first.nanos()).isGreaterThanOrEqualTo(2_000_000_000L);
    assertThat(second.message()).containsPattern("\\(\\d+ more since the last");
    assertThat(sample("pier_local_connections_refused_total", "web", "load_balancer"))
        .isGreaterThanOrEqualTo(5.0);
  }

  /** A UDP backend that answers each datagram with the port it came from. */
  private void portEchoServer(int port) throws Exception {
    DatagramSocket backend = vertx.createDatagramSocket();
    backend.handler(
        p ->
            backend.send(
                Buffer.buffer(String.valueOf(p.sender().port())),
                p.sender().port(),
                p.sender().host()));
    backend.listen(port, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  /** A kept TCP connection that asks one line at a time and notices being closed. */
  private static final class Line {
    final NetSocket socket;
    final Promise<Void> closedPromise = Promise.promise();
    final Future<Void> closed = closedPromise.future();
    private final StringBuilder received = new StringBuilder();
    private Promise<String> answer;

    private Line(NetSocket socket) {
      this.socket = socket;
      socket.closeHandler(v -> closedPromise.tryComplete());
      socket.handler(
          b -> {
            synchronized (this) {
              received.append(b.toString());
              int end = received.indexOf("\n");
              if (answer != null && end >= 0) {
                answer.tryComplete(received.substring(0, end));
                received.delete(0, end + 1);
              }
            }
          });
    }

    /**
     * Connects from an event loop, so the handlers are in place before the socket's first event:
     * from the test's thread the connection could be refused and closed before they were set.
     */
    static Line open(Vertx vertx, NetClient client, String host, int port) throws Exception {
      Promise<Line> line = Promise.promise();
      vertx
          .getOrCreateContext()
          .runOnContext(v -> client.connect(port, host).map(Line::new).onComplete(line));
      return line.future().await(10, TimeUnit.SECONDS);
    }

    String ask(String text) throws Exception {
      Promise<String> p = Promise.promise();
      synchronized (this) {
        answer = p;
      }
      socket.write(text + "\n");
      return p.future().await(5, TimeUnit.SECONDS);
    }

    /** How many line breaks arrived so far, for a connection that only listens. */
    synchronized int lines() {
      return (int) received.chars().filter(c -> c == '\n').count();
    }
  }

  /** A UDP client on its own port. */
  private static final class Udp {
    final DatagramSocket socket;

    private Udp(DatagramSocket socket) {
      this.socket = socket;
    }

    static Udp open(Vertx vertx) throws Exception {
      return new Udp(
          vertx.createDatagramSocket().listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS));
    }

    /** Sends a datagram; true when no answer comes within a second (the client was refused). */
    boolean silent(String host, int port) throws Exception {
      Promise<DatagramPacket> reply = Promise.promise();
      socket.handler(reply::tryComplete);
      socket.send("ask", port, host).await(5, TimeUnit.SECONDS);
      try {
        reply.future().await(1, TimeUnit.SECONDS);
        return false;
      } catch (java.util.concurrent.TimeoutException e) {
        return true;
      }
    }

    /** Sends a datagram and returns the answer: the port of the session that relayed it. */
    String ask(String host, int port) throws Exception {
      Promise<DatagramPacket> reply = Promise.promise();
      socket.handler(reply::tryComplete);
      socket.send("ask", port, host).await(5, TimeUnit.SECONDS);
      return reply.future().await(5, TimeUnit.SECONDS).data().toString();
    }
  }
}
