package dev.pier.dns.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.dns.DataPathDecision;
import dev.pier.dns.ProbeSpec;
import dev.pier.model.ServiceKey;
import dev.pier.util.EgressPolicy;
import dev.pier.util.RequestFence;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.NetServer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The prober's effects against real sockets on loopback, in about a second each. */
class DataPathProberTest {
  private static final ServiceKey KEY = new ServiceKey("host", "shop", "web");
  private static final String IP = "127.0.0.1";
  private static final EgressPolicy LOOPBACK_ALLOWED =
      EgressPolicy.of(List.of("127.0.0.0/8"), List.of());

  private Vertx vertx;
  private Context ctx;
  private SimpleMeterRegistry registry;
  private final List<ServiceKey> changed = new CopyOnWriteArrayList<>();
  private final AtomicBoolean fenceOpen = new AtomicBoolean(true);
  private DataPathProber prober;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    ctx = vertx.getOrCreateContext();
    registry = new SimpleMeterRegistry();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (prober != null) {
      on(() -> prober.stop());
    }
    vertx.close().await();
  }

  private <T> T on(Supplier<T> s) {
    CompletableFuture<T> f = new CompletableFuture<>();
    ctx.runOnContext(
        v -> {
          try {
            f.complete(s.get());
          } catch (RuntimeException e) {
            f.completeExceptionally(e);
          }
        });
    try {
      return f.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private void start(EgressPolicy egress, int panicThreshold) {
    start(egress, panicThreshold, Duration.ofMillis(50));
  }

  private void start(EgressPolicy egress, int panicThreshold, Duration period) {
    RequestFence fence =
        new RequestFence() {
          @Override
          public long term() {
            return 1;
          }

          @Override
          public RuntimeException refusal(long term, String what) {
            return fenceOpen.get() ? null : new IllegalStateException("not leading: " + what);
          }
        };
    DataPathOptions options =
        new DataPathOptions(period, Duration.ofMillis(300), 2, 2, panicThreshold, egress, fence);
    prober =
        on(
            () -> {
              DataPathProber p =
                  new DataPathProber(
                      vertx,
                      options,
                      () -> true,
                      changed::add,
                      registry,
                      System::currentTimeMillis);
              p.start();
              return p;
            });
  }

  private DataPathDecision probe(ProbeSpec spec, int port, String... addresses) {
    return on(() -> prober.probe(KEY, spec, port, Set.of(addresses)));
  }

  private NetServer tcpServer(boolean closeAtOnce) {
    return vertx
        .createNetServer()
        .connectHandler(
            s -> {
              if (closeAtOnce) {
                s.close();
              }
            })
        .listen(0, IP)
        .await();
  }

  private HttpServer httpServer(AtomicInteger status, AtomicInteger requests) {
    return vertx
        .createHttpServer()
        .requestHandler(
            r -> {
              requests.incrementAndGet();
              if (r.path().equals("/ok")) {
                r.response().setStatusCode(200).end();
              } else if (status.get() == 302) {
                // Where a redirect would lead, the status expected answers.
                r.response()
                    .putHeader("Location", "http://" + IP + ":" + r.localAddress().port() + "/ok")
                    .setStatusCode(302);
                r.response().end();
              } else if (r.path().equals("/healthz")) {
                // A large body: the probe reads none of it.
                r.response().setStatusCode(status.get()).end("x".repeat(1 << 20));
              } else {
                r.response().setStatusCode(404).end();
              }
            })
        .listen(0, IP)
        .await();
  }

  private boolean leaves(ProbeSpec spec, int port) {
    return probe(spec, port, IP, "127.0.0.2").leaving().contains(IP);
  }

  @Test
  void aTcpAddressLeavesWhenItStopsListeningAndReturnsWhenItListensAgain() {
    NetServer server = tcpServer(false);
    int port = server.actualPort();
    start(LOOPBACK_ALLOWED, 0);
    assertThat(probe(ProbeSpec.TCP, port, IP).leaving()).isEmpty();
    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).until(changed::isEmpty);
    server.close().await();
    await().atMost(Duration.ofSeconds(3)).until(() -> leaves(ProbeSpec.TCP, port));
    assertThat(changed).contains(KEY);
    changed.clear();
    vertx.createNetServer().connectHandler(s -> {}).listen(port, IP).await();
    await().atMost(Duration.ofSeconds(3)).until(() -> !leaves(ProbeSpec.TCP, port));
    assertThat(changed).contains(KEY);
  }

  @Test
  void probesAreSpreadOverThePeriodNotSentAllAtOnce() {
    AtomicInteger open = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    AtomicInteger accepted = new AtomicInteger();
    NetServer server =
        vertx
            .createNetServer()
            .connectHandler(
                s -> {
                  accepted.incrementAndGet();
                  peak.accumulateAndGet(open.incrementAndGet(), Math::max);
                  s.closeHandler(v -> open.decrementAndGet());
                })
            .listen(0, IP)
            .await();
    // 10 slots of 100 ms; each probe holds its connection 150 ms (half the timeout).
    start(LOOPBACK_ALLOWED, 0, Duration.ofSeconds(1));
    int services = 40;
    for (int i = 0; i < services; i++) {
      ServiceKey key = new ServiceKey("host", "shop", "web-" + i);
      on(() -> prober.probe(key, ProbeSpec.TCP, server.actualPort(), Set.of(IP)));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> accepted.get() >= 2 * services);
    // All at once, 40 connections would be open together; spread, about 4 a slot, two slots'
    // worth overlapping.
    assertThat(peak.get()).as("connections open at once").isLessThanOrEqualTo(services / 2);
  }

  @Test
  void aTcpLoadBalancerThatClosesAtOnceFailsItsProbe() {
    NetServer server = tcpServer(true);
    start(LOOPBACK_ALLOWED, 0);
    await().atMost(Duration.ofSeconds(3)).until(() -> leaves(ProbeSpec.TCP, server.actualPort()));
  }

  @Test
  void httpComparesTheStatusAndFollowsNoRedirect() {
    AtomicInteger status = new AtomicInteger(200);
    AtomicInteger requests = new AtomicInteger();
    HttpServer server = httpServer(status, requests);
    int port = server.actualPort();
    ProbeSpec spec = ProbeSpec.parse("http:/healthz:200").spec();
    start(LOOPBACK_ALLOWED, 0);
    probe(spec, port, IP, "127.0.0.2");
    await().atMost(Duration.ofSeconds(2)).until(() -> requests.get() >= 4);
    assertThat(leaves(spec, port)).isFalse();

    status.set(500);
    await().atMost(Duration.ofSeconds(3)).until(() -> leaves(spec, port));
    status.set(200);
    await().atMost(Duration.ofSeconds(3)).until(() -> !leaves(spec, port));

    status.set(302);
    await().atMost(Duration.ofSeconds(3)).until(() -> leaves(spec, port));
  }

  @Test
  void anAddressTheEgressRuleRefusesIsNotProbedAndStays() {
    start(EgressPolicy.DEFAULT, 0);
    // Nothing listens on port 1: a probe would fail.
    probe(ProbeSpec.TCP, 1, IP);
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> probe(ProbeSpec.TCP, 1, IP).leaving().isEmpty());
    assertThat(changed).isEmpty();
  }

  @Test
  void aClosedFenceSendsNoProbe() {
    AtomicInteger status = new AtomicInteger(200);
    AtomicInteger requests = new AtomicInteger();
    HttpServer server = httpServer(status, requests);
    fenceOpen.set(false);
    start(LOOPBACK_ALLOWED, 0);
    probe(ProbeSpec.parse("http:/healthz").spec(), server.actualPort(), IP);
    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).until(() -> true);
    assertThat(requests.get()).isZero();
    fenceOpen.set(true);
    await().atMost(Duration.ofSeconds(2)).until(() -> requests.get() > 0);
  }

  @Test
  void everyProbeFailingHoldsTheAddressesWithAGauge() {
    start(LOOPBACK_ALLOWED, 50);
    probe(ProbeSpec.TCP, 1, IP, "127.0.0.2");
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> probe(ProbeSpec.TCP, 1, IP, "127.0.0.2").held());
    assertThat(probe(ProbeSpec.TCP, 1, IP, "127.0.0.2").leaving()).isEmpty();
    assertThat(
            registry
                .get("pier.dns.probe.held.since")
                .tag("namespace", "shop")
                .tag("name", "web")
                .gauge()
                .value())
        .isPositive();
    on(
        () -> {
          prober.forget(KEY);
          return null;
        });
    assertThat(registry.find("pier.dns.probe.held.since").gauge()).isNull();
  }
}
