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
import dev.pier.testkit.UnboundResolver;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
 * DNS strategies of federated Services (docs/dns.md, "Strategies") on three real API servers (a
 * host, east in region eu, west in region us), a real PowerDNS with LUA records, and a real
 * recursive resolver (Unbound at its caching defaults) in front of it, checked with real queries.
 */
@RealKubeApiServer
class FederatedDnsStrategyTest {
  private static final Logger log = LoggerFactory.getLogger(FederatedDnsStrategyTest.class);
  private static final String ZONE = "steer.example";
  private static final Duration CONVERGE = InProcessPier.CONVERGE;
  private static final int QUERIES = 10_000;

  private static KubeApiServer host;
  private static KubeApiServer east;
  private static KubeApiServer west;
  private static PowerDnsServer pdns;
  private static UnboundResolver resolver;

  @BeforeAll
  static void setUp(KubeApiServer server) throws Exception {
    host = server;
    Map<String, KubeApiServer> members = FederatedServices.eastAndWest("127.0.0.1", "127.0.0.1");
    east = members.get("east");
    west = members.get("west");
    pdns = PowerDnsServer.create();
    resolver = UnboundResolver.start(pdns, ZONE + ".");
  }

  @AfterAll
  static void tearDown() {
    for (AutoCloseable c : new AutoCloseable[] {resolver, east, west, pdns}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        log.warn("closing: {}", e.toString());
      }
    }
  }

  /** Pier over the three clusters, eu clients in 10.1.0.0/16, us clients in 10.2.0.0/16. */
  private static InProcessPier startPier() {
    String yaml =
        FederationConfig.host(host.kubeconfigPath())
            .loadBalancers(false)
            .member("east", east.kubeconfigPath())
            .pool("127.241.21.0/28")
            .member("west", west.kubeconfigPath())
            .pool("127.241.22.0/28")
            .health("500ms", "400ms")
            .yaml();
    Map<String, String> env = new HashMap<>();
    env.putAll(pdns.pierEnv(ZONE, "pier-steer-test"));
    env.put(PierOptions.DNS_VIEWS.envName(), "eu=10.1.0.0/16,us=10.2.0.0/16,eu=10.3.0.0/16");
    return InProcessPier.startWithConfig(yaml, env);
  }

  private static String global(String ns, String svc) {
    return svc + "." + ns + ".pier.svc." + ZONE + ".";
  }

  private static String region(String ns, String svc, String region) {
    return svc + "." + ns + ".pier.svc." + region + "." + ZONE + ".";
  }

  private static InetSocketAddress authoritative() {
    return new InetSocketAddress("127.0.0.1", pdns.dnsPort());
  }

  private static List<String> ask(InetSocketAddress server, String name, String subnet) {
    return DnsQuery.ask(server, name, subnet, Duration.ofSeconds(2));
  }

  /** Until the name answers exactly these addresses (asked of PowerDNS, from that subnet). */
  private static void awaitA(String name, String subnet, String... ips) {
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () ->
                assertThat(ask(authoritative(), name, subnet))
                    .as(name + " from " + subnet)
                    .containsExactlyInAnyOrder(ips));
  }

  /** A federated Service with ready endpoints in both members: its two addresses, east first. */
  private static String[] serve(String ns, String name, Map<String, String> annotations) {
    host.client().resource(FederatedServices.federated(ns, name, annotations)).create();
    String eastIp = Services.awaitIngress(east.client(), ns, name);
    String westIp = Services.awaitIngress(west.client(), ns, name);
    FederatedServices.endpointSlice(east.client(), ns, name, true);
    FederatedServices.endpointSlice(west.client(), ns, name, true);
    return new String[] {eastIp, westIp};
  }

  @Test
  void failoverAnswersTheFirstHealthyRegionAndReturnsToItOnceItIsBack() {
    String ns = host.createNamespace("steer-failover");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = startPier()) {
      String[] ips =
          serve(
              ns,
              "web",
              Map.of("pier.dev/dns-strategy", "failover", "pier.dev/dns-failover", "us,eu"));
      String eastIp = ips[0];
      String westIp = ips[1];
      // us first: the global name answers west alone; region names keep their own addresses.
      awaitA(global(ns, "web"), null, westIp);
      awaitA(region(ns, "web", "eu"), null, eastIp);
      awaitA(region(ns, "web", "us"), null, westIp);

      // us loses its endpoints: the next entry answers.
      FederatedServices.endpointSlice(west.client(), ns, "web", false);
      awaitA(global(ns, "web"), null, eastIp);
      // And the preferred one is restored once it is healthy again.
      FederatedServices.endpointSlice(west.client(), ns, "web", true);
      awaitA(global(ns, "web"), null, westIp);
      assertThat(ask(resolver.address(), global(ns, "web"), null)).containsExactly(westIp);

      host.client().services().inNamespace(ns).withName("web").delete();
      awaitA(global(ns, "web"), null);
    }
  }

  /**
   * Weights survive a caching resolver: 10,000 queries through Unbound land within 3 percentage
   * points of 3:1. PowerDNS's own query counter shows how many of them reached it, i.e. that the
   * resolver did not answer from its cache (TTL 0).
   */
  @Test
  void weightsHoldOverTenThousandQueriesThroughARecursiveResolver() {
    String ns = host.createNamespace("steer-weighted");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = startPier()) {
      String[] ips =
          serve(
              ns,
              "api",
              Map.of("pier.dev/dns-strategy", "weighted", "pier.dev/dns-weights", "eu=3,us=1"));
      String name = global(ns, "api");
      // One address per answer, from both.
      await()
          .atMost(CONVERGE)
          .untilAsserted(
              () -> {
                List<String> a = ask(authoritative(), name, null);
                assertThat(a).hasSize(1);
                assertThat(ips).contains(a.get(0));
              });
      Map<String, Integer> counts = new HashMap<>();
      long before = pdns.statistic("udp-queries");
      long started = System.nanoTime();
      try (DnsQuery q = new DnsQuery(resolver.address(), Duration.ofSeconds(2))) {
        for (int i = 0; i < QUERIES; i++) {
          List<String> a = q.a(name, null);
          assertThat(a).as("answer %d", i).hasSize(1);
          counts.merge(a.get(0), 1, Integer::sum);
        }
      }
      long ms = (System.nanoTime() - started) / 1_000_000;
      long reached = pdns.statistic("udp-queries") - before;
      double eu = 100.0 * counts.getOrDefault(ips[0], 0) / QUERIES;
      double us = 100.0 * counts.getOrDefault(ips[1], 0) / QUERIES;
      log.info(
          "weighted eu=3,us=1 over {} queries through Unbound in {} ms: eu {}%, us {}%;"
              + " {} queries reached PowerDNS",
          QUERIES, ms, String.format("%.2f", eu), String.format("%.2f", us), reached);
      assertThat(eu).as("eu's share, weight 3 of 4").isBetween(72.0, 78.0);
      assertThat(us).as("us's share, weight 1 of 4").isBetween(22.0, 28.0);
      // TTL 0: the resolver asked PowerDNS for (almost) every query instead of its cache.
      assertThat(reached)
          .as("queries that reached PowerDNS")
          .isGreaterThanOrEqualTo(QUERIES * 95 / 100);

      // us loses its endpoints: every answer is eu's.
      FederatedServices.endpointSlice(west.client(), ns, "api", false);
      await()
          .atMost(CONVERGE)
          .untilAsserted(
              () -> {
                for (int i = 0; i < 50; i++) {
                  assertThat(ask(resolver.address(), name, null)).containsExactly(ips[0]);
                }
              });
      host.client().services().inNamespace(ns).withName("api").delete();
      awaitA(name, null);
    }
  }

  @Test
  void viewsAnswerEachClientSubnetItsRegionAndEveryoneElseEverything() {
    String ns = host.createNamespace("steer-views");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = startPier()) {
      String[] ips = serve(ns, "shop", Map.of("pier.dev/dns-strategy", "views"));
      String eastIp = ips[0];
      String westIp = ips[1];
      String name = global(ns, "shop");
      awaitA(name, "10.1.2.0/24", eastIp);
      awaitA(name, "10.3.0.0/24", eastIp);
      awaitA(name, "10.2.9.0/24", westIp);
      awaitA(name, "192.0.2.0/24", eastIp, westIp);
      awaitA(name, null, eastIp, westIp);

      // Behind a resolver that sends EDNS Client Subnet and caches per scope: each subnet keeps
      // its own answer, asked in turn, twice (the second time from the resolver's cache).
      try (UnboundResolver ecs = UnboundResolver.startWithClientSubnet(pdns, ZONE + ".")) {
        for (int round = 0; round < 2; round++) {
          assertThat(ask(ecs.address(), name, "10.1.2.0/24"))
              .as("east's clients")
              .containsExactly(eastIp);
          assertThat(ask(ecs.address(), name, "10.2.9.0/24"))
              .as("west's clients")
              .containsExactly(westIp);
          assertThat(ask(ecs.address(), name, "192.0.2.0/24"))
              .as("everyone else")
              .containsExactlyInAnyOrder(eastIp, westIp);
        }
      }

      // A region without healthy addresses: its clients get every healthy address.
      FederatedServices.endpointSlice(west.client(), ns, "shop", false);
      awaitA(name, "10.2.9.0/24", eastIp);
      awaitA(name, "10.1.2.0/24", eastIp);
      FederatedServices.endpointSlice(west.client(), ns, "shop", true);
      awaitA(name, "10.2.9.0/24", westIp);

      host.client().services().inNamespace(ns).withName("shop").delete();
      awaitA(name, null);
    }
  }

  @Test
  void aBadValueIsAWarningNamingItAndTheServiceAnswersRoundRobin() {
    String ns = host.createNamespace("steer-bad");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = startPier()) {
      String[] ips =
          serve(
              ns,
              "bad",
              Map.of(
                  "pier.dev/dns-strategy", "weighted",
                  "pier.dev/dns-weights", "eu=three",
                  "pier.dev/dns-ttl", "30"));
      awaitA(global(ns, "bad"), null, ips);
      Service bad = host.client().services().inNamespace(ns).withName("bad").get();
      Event e = PierSaw.event(host.client(), bad, CONVERGE, "InvalidDNSAnnotation");
      assertThat(e.getType()).isEqualTo("Warning");
      assertThat(e.getMessage()).contains("pier.dev/dns-weights", "eu=three");
      // The TTL annotation still holds.
      assertThat(ttlOf(global(ns, "bad"))).isEqualTo(30);

      host.client().services().inNamespace(ns).withName("bad").delete();
      awaitA(global(ns, "bad"), null);
    }
  }

  private static long ttlOf(String name) {
    JsonArray rrsets = new JsonObject(pdns.zoneJson(ZONE + ".")).getJsonArray("rrsets");
    for (Object o : rrsets) {
      JsonObject r = (JsonObject) o;
      if (name.equals(r.getString("name")) && "A".equals(r.getString("type"))) {
        return r.getLong("ttl");
      }
    }
    return -1;
  }
}
