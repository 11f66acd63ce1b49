package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.DnsQuery;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.PowerDnsServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health of the data path (docs/dns.md): Pier probes the members' load balancers of a Service
 * that asks for it, on three real API servers (a host, east in eu, west in us), the local
 * provider's real load balancers in front of real HTTP backends, and a real PowerDNS. A load
 * balancer whose backend stops answering leaves the names and returns; every probe failing at once
 * holds them.
 */
@RealKubeApiServer
class FederatedDnsProbeTest {
  private static final Logger log = LoggerFactory.getLogger(FederatedDnsProbeTest.class);
  private static final String ZONE = "probe.example";
  private static final Duration CONVERGE = InProcessPier.CONVERGE;
  private static final String EAST_NODE = "127.0.0.1";
  private static final String WEST_NODE = "127.0.0.3";
  private static final Duration PERIOD = Duration.ofMillis(300);
  private static final int FAILURE_THRESHOLD = 2;

  private static KubeApiServer host;
  private static KubeApiServer east;
  private static KubeApiServer west;
  private static PowerDnsServer pdns;

  @BeforeAll
  static void setUp(KubeApiServer server) throws Exception {
    host = server;
    Map<String, KubeApiServer> members = FederatedServices.eastAndWest(EAST_NODE, WEST_NODE);
    east = members.get("east");
    west = members.get("west");
    pdns = PowerDnsServer.create();
  }

  @AfterAll
  static void tearDown() {
    for (AutoCloseable c : new AutoCloseable[] {east, west, pdns}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        log.warn("closing: {}", e.toString());
      }
    }
  }

  /** Pier over the three clusters, probing every 300 ms, 2 failures or passes in a row. */
  private static InProcessPier startPier() {
    String yaml =
        FederationConfig.host(host.kubeconfigPath())
            .loadBalancers(false)
            .member("east", east.kubeconfigPath())
            .pool("127.241.31.0/28")
            .member("west", west.kubeconfigPath())
            .pool("127.241.32.0/28")
            .health("500ms", "400ms")
            .yaml();
    Map<String, String> env = new HashMap<>();
    env.putAll(pdns.pierEnv(ZONE, "pier-probe-test"));
    env.put(PierOptions.DNS_PROBE_PERIOD.envName(), PERIOD.toMillis() + "ms");
    env.put(PierOptions.DNS_PROBE_TIMEOUT.envName(), "250ms");
    env.put(PierOptions.DNS_PROBE_FAILURE_THRESHOLD.envName(), Integer.toString(FAILURE_THRESHOLD));
    env.put(PierOptions.DNS_PROBE_SUCCESS_THRESHOLD.envName(), "2");
    return InProcessPier.startWithConfig(yaml, env);
  }

  private static String global(String ns, String svc) {
    return svc + "." + ns + ".pier.svc." + ZONE + ".";
  }

  private static String region(String ns, String svc, String region) {
    return svc + "." + ns + ".pier.svc." + region + "." + ZONE + ".";
  }

  private static List<String> ask(String name) {
    return DnsQuery.ask(
        new InetSocketAddress("127.0.0.1", pdns.dnsPort()), name, null, Duration.ofSeconds(2));
  }

  private static void awaitA(String name, String... ips) {
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> assertThat(ask(name)).as(name).containsExactlyInAnyOrder(ips));
  }

  private static int nodePort(KubernetesClient member, String ns, String name) {
    return member
        .services()
        .inNamespace(ns)
        .withName(name)
        .get()
        .getSpec()
        .getPorts()
        .get(0)
        .getNodePort();
  }

  /** The member copy's backend on its node's nodePort, an HTTP server answering /healthz. */
  private static TestBackend backend(String member, String node, KubernetesClient c, String ns) {
    return TestBackend.start(member, node, nodePort(c, ns, "web"));
  }

  /** A federated Service probed over HTTP, ready in both members: its two addresses. */
  private static String[] serve(String ns) {
    host.client()
        .resource(
            FederatedServices.federated(
                ns, "web", Map.of("pier.dev/dns-probe", "http:/healthz:200")))
        .create();
    String eastIp = Services.awaitIngress(east.client(), ns, "web");
    String westIp = Services.awaitIngress(west.client(), ns, "web");
    FederatedServices.endpointSlice(east.client(), ns, "web", true);
    FederatedServices.endpointSlice(west.client(), ns, "web", true);
    return new String[] {eastIp, westIp};
  }

  @Test
  void aLoadBalancerWhoseBackendStopsAnsweringLeavesTheNamesAndReturns() {
    String ns = host.createNamespace("probe-leave");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = startPier()) {
      String[] ips = serve(ns);
      String eastIp = ips[0];
      String westIp = ips[1];
      TestBackend westBackend = backend("west", WEST_NODE, west.client(), ns);
      TestBackend eastBackend = backend("east", EAST_NODE, east.client(), ns);
      int eastPort = eastBackend.port();
      try {
        awaitA(global(ns, "web"), eastIp, westIp);
        await().atMost(CONVERGE).until(() -> eastBackend.healthCheckCount() > 2);

        // East's backend stops: its load balancer still accepts, and closes every connection.
        eastBackend.close();
        long stopped = System.nanoTime();
        awaitA(global(ns, "web"), westIp);
        long leftMillis = (System.nanoTime() - stopped) / 1_000_000;
        log.info(
            "Backend stopped to the global name without it: {} ms (period {} ms, failureThreshold"
                + " {})",
            leftMillis,
            PERIOD.toMillis(),
            FAILURE_THRESHOLD);
        // Within threshold x period, with a period to spare for the probe in flight and the write.
        assertThat(leftMillis).isLessThan((FAILURE_THRESHOLD + 2) * PERIOD.toMillis() + 1_000);
        // Its region name falls back to the global one, as an unready member's does.
        awaitA(region(ns, "web", "eu"), westIp);
        awaitA(region(ns, "web", "us"), westIp);

        // It answers again: it returns after the success threshold.
        TestBackend again = TestBackend.start("east", EAST_NODE, eastPort);
        try {
          long restarted = System.nanoTime();
          awaitA(global(ns, "web"), eastIp, westIp);
          log.info(
              "Backend back to the global name with it: {} ms",
              (System.nanoTime() - restarted) / 1_000_000);
          awaitA(region(ns, "web", "eu"), eastIp);
        } finally {
          again.close();
        }
      } finally {
        eastBackend.close();
        westBackend.close();
      }

      // A value that is no probe: a Warning naming the field and the value, and no probing.
      host.client()
          .resource(FederatedServices.federated(ns, "bad", Map.of("pier.dev/dns-probe", "icmp")))
          .create();
      Service bad = host.client().services().inNamespace(ns).withName("bad").get();
      Event e = PierSaw.event(host.client(), bad, CONVERGE, "InvalidDNSAnnotation");
      assertThat(e.getType()).isEqualTo("Warning");
      assertThat(e.getMessage()).contains("pier.dev/dns-probe", "'icmp'", "not probing");

      host.client().services().inNamespace(ns).withName("web").delete();
      awaitA(global(ns, "web"));
    }
  }

  @Test
  void everyProbeFailingAtOnceHoldsTheNames() {
    String ns = host.createNamespace("probe-hold");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = startPier()) {
      String[] ips = serve(ns);
      TestBackend eastBackend = backend("east", EAST_NODE, east.client(), ns);
      TestBackend westBackend = backend("west", WEST_NODE, west.client(), ns);
      awaitA(global(ns, "web"), ips);
      await()
          .atMost(CONVERGE)
          .until(() -> eastBackend.healthCheckCount() > 2 && westBackend.healthCheckCount() > 2);

      // Pier's egress blocked, or every load balancer dead: Pier cannot tell, and keeps them.
      eastBackend.close();
      westBackend.close();
      await()
          .atMost(CONVERGE)
          .until(() -> Services.eventCount(host.client(), ns, "web", "FederatedNamesHeld") > 0);
      assertThat(
              Services.events(host.client(), ns, "web").stream()
                  .filter(ev -> "FederatedNamesHeld".equals(ev.getReason()))
                  .findFirst()
                  .orElseThrow()
                  .getMessage())
          .contains("Only 0 of 2 load-balancer addresses answer their probes");
      assertThat(held(pier, ns, "web")).isPositive();
      // Both stay, at every level (one may have left for a moment, until the other failed too).
      awaitA(global(ns, "web"), ips);
      await()
          .during(Duration.ofMillis(FAILURE_THRESHOLD * PERIOD.toMillis() * 3))
          .atMost(CONVERGE)
          .untilAsserted(() -> assertThat(ask(global(ns, "web"))).containsExactlyInAnyOrder(ips));
      assertThat(ask(region(ns, "web", "eu"))).containsExactly(ips[0]);
      assertThat(ask(region(ns, "web", "us"))).containsExactly(ips[1]);

      // One answers again: the other leaves, and the hold ends.
      TestBackend eastAgain = TestBackend.start("east", EAST_NODE, eastBackend.port());
      try {
        awaitA(global(ns, "web"), ips[0]);
        await().atMost(CONVERGE).until(() -> held(pier, ns, "web") < 0);
      } finally {
        eastAgain.close();
      }
      host.client().services().inNamespace(ns).withName("web").delete();
      awaitA(global(ns, "web"));
    }
  }

  /** When the Service's probed addresses began to be held (epoch seconds), or -1. */
  private static double held(InProcessPier pier, String ns, String name) {
    var gauge =
        pier.pier()
            .metrics()
            .registry()
            .find("pier.dns.probe.held.since")
            .tag("namespace", ns)
            .tag("name", name)
            .gauge();
    return gauge == null ? -1 : gauge.value();
  }
}
