package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.PowerDnsServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Federated DNS on three real API servers (a host, east in region eu with zones eu-a and eu-b, west
 * in region us with zone us-a) and a real PowerDNS, checked with real DNS queries: names follow the
 * members' load balancers, their endpoints and their health, and all go with the Service.
 */
@RealKubeApiServer
class FederatedDnsTest {
  private static final Logger log = LoggerFactory.getLogger(FederatedDnsTest.class);
  private static final String ZONE = "fed.test";
  private static final Duration CONVERGE = InProcessPier.CONVERGE;

  private static KubeApiServer host;
  private static KubeApiServer east;
  private static KubeApiServer west;
  private static PowerDnsServer pdns;

  @BeforeAll
  static void setUp(KubeApiServer server) throws Exception {
    host = server;
    Map<String, KubeApiServer> members = FederatedServices.eastAndWest("127.0.0.1", "127.0.0.1");
    east = members.get("east");
    west = members.get("west");
    east.createReadyNode(
        "east-2",
        "127.0.0.1",
        Map.of(
            "failure-domain.beta.kubernetes.io/region",
            "eu",
            "failure-domain.beta.kubernetes.io/zone",
            "eu-b"));
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

  private static InProcessPier startPier() {
    return startPier("");
  }

  /** Pier over the three clusters, with more of the federation section (indented by two). */
  private static InProcessPier startPier(String federationExtra) {
    String yaml =
        FederationConfig.host(host.kubeconfigPath())
            .loadBalancers(false)
            .member("east", east.kubeconfigPath())
            .pool("127.241.5.0/28")
            .member("west", west.kubeconfigPath())
            .pool("127.241.6.0/28")
            .health("500ms", "400ms")
            .federationYaml(federationExtra)
            .yaml();
    Map<String, String> env = new HashMap<>();
    env.putAll(pdns.pierEnv(ZONE, "pier-fed-test"));
    return InProcessPier.startWithConfig(yaml, env);
  }

  private static String global(String ns, String svc) {
    return svc + "." + ns + ".pier.svc." + ZONE + ".";
  }

  private static String region(String ns, String svc, String region) {
    return svc + "." + ns + ".pier.svc." + region + "." + ZONE + ".";
  }

  private static String zone(String ns, String svc, String zone, String region) {
    return svc + "." + ns + ".pier.svc." + zone + "." + region + "." + ZONE + ".";
  }

  private static List<String> allNames(String ns, String svc) {
    return List.of(
        global(ns, svc),
        region(ns, svc, "eu"),
        region(ns, svc, "us"),
        zone(ns, svc, "eu-a", "eu"),
        zone(ns, svc, "eu-b", "eu"),
        zone(ns, svc, "us-a", "us"));
  }

  private static void awaitA(String name, String... ips) {
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> assertThat(pdns.dig(name, "A")).as(name).containsExactlyInAnyOrder(ips));
  }

  private static void awaitCname(String name, String target) {
    await()
        .atMost(CONVERGE)
        .untilAsserted(() -> assertThat(pdns.dig(name, "CNAME")).as(name).containsExactly(target));
  }

  private static void awaitGone(String name) {
    awaitGone(name, CONVERGE);
  }

  private static void awaitGone(String name, Duration within) {
    await()
        .atMost(within)
        .untilAsserted(
            () -> assertThat(pdns.digStatus(name, "ANY")).as(name).isEqualTo("NXDOMAIN"));
  }

  /** Every rrset of the zone at a name of the Service, as name/type: duplicates would show. */
  private static List<String> rrsetsOf(String ns, String svc) {
    List<String> out = new ArrayList<>();
    new JsonObject(pdns.zoneJson(ZONE + "."))
        .getJsonArray("rrsets")
        .forEach(
            o -> {
              JsonObject r = (JsonObject) o;
              if (r.getString("name").startsWith(svc + "." + ns + ".pier.svc.")) {
                out.add(r.getString("name") + " " + r.getString("type"));
              }
            });
    return out;
  }

  private static double ready(InProcessPier pier, String cluster) {
    var gauge =
        pier.pier().metrics().registry().find("pier.cluster.ready").tag("cluster", cluster).gauge();
    return gauge == null ? -1 : gauge.value();
  }

  @Test
  void everyLevelFollowsTheMembersTheirEndpointsAndTheirHealthAndGoesWithTheService() {
    String ns = host.createNamespace("fed-dns");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = startPier()) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      String eastIp = Services.awaitIngress(east.client(), ns, "web");
      String westIp = Services.awaitIngress(west.client(), ns, "web");

      // No ready endpoints anywhere: zones fall back to regions, regions to global, no global.
      awaitCname(zone(ns, "web", "eu-a", "eu"), region(ns, "web", "eu"));
      awaitCname(region(ns, "web", "us"), global(ns, "web"));
      awaitGone(global(ns, "web"));

      // Ready endpoints in both: A records at every level, every zone of every member.
      FederatedServices.endpointSlice(east.client(), ns, "web", true);
      FederatedServices.endpointSlice(west.client(), ns, "web", true);
      awaitA(global(ns, "web"), eastIp, westIp);
      awaitA(region(ns, "web", "eu"), eastIp);
      awaitA(region(ns, "web", "us"), westIp);
      awaitA(zone(ns, "web", "eu-a", "eu"), eastIp);
      awaitA(zone(ns, "web", "eu-b", "eu"), eastIp);
      awaitA(zone(ns, "web", "us-a", "us"), westIp);
      // The members' copies get no names of their own: only the federated Service's exist.
      assertThat(rrsetsOf(ns, "web")).hasSize(6);

      // East's endpoints go: its zones turn into CNAMEs, its address leaves region and global.
      FederatedServices.endpointSlice(east.client(), ns, "web", false);
      awaitCname(zone(ns, "web", "eu-a", "eu"), region(ns, "web", "eu"));
      awaitCname(region(ns, "web", "eu"), global(ns, "web"));
      awaitA(global(ns, "web"), westIp);
      FederatedServices.endpointSlice(east.client(), ns, "web", true);
      awaitA(global(ns, "web"), eastIp, westIp);

      // West's API server stops answering: once west is unready its address leaves every set.
      long frozen = System.nanoTime();
      west.freeze();
      try {
        awaitA(global(ns, "web"), eastIp);
        long gone = System.nanoTime();
        log.info(
            "West's API server frozen to its address gone from the global name: {} ms",
            (gone - frozen) / 1_000_000);
        assertThat(ready(pier, "west")).isEqualTo(0.0);
        awaitCname(zone(ns, "web", "us-a", "us"), region(ns, "web", "us"));
        awaitCname(region(ns, "web", "us"), global(ns, "web"));
      } finally {
        west.thaw();
      }
      long thawed = System.nanoTime();
      awaitA(global(ns, "web"), eastIp, westIp);
      log.info(
          "West's API server back to its address in the global name: {} ms",
          (System.nanoTime() - thawed) / 1_000_000);
      awaitA(zone(ns, "web", "us-a", "us"), westIp);

      // PowerDNS restarted mid-run, with a change while it was down: converges, nothing doubled.
      pdns.stop();
      FederatedServices.endpointSlice(west.client(), ns, "web", false);
      pdns.start();
      awaitA(global(ns, "web"), eastIp);
      awaitCname(region(ns, "web", "us"), global(ns, "web"));
      assertThat(rrsetsOf(ns, "web")).doesNotHaveDuplicates().hasSize(6);

      // Deleted: no name left at any level (the seed leaked zone and region CNAMEs).
      host.client().services().inNamespace(ns).withName("web").delete();
      for (String name : allNames(ns, "web")) {
        awaitGone(name);
      }
      await()
          .atMost(CONVERGE)
          .until(() -> host.client().services().inNamespace(ns).withName("web").get() == null);
      assertThat(rrsetsOf(ns, "web")).isEmpty();
    }
  }

  /**
   * Pier loses contact with every member at once (its egress blocked, or tokens that expired
   * together) while the members go on serving: no name may go. Below the panic threshold every name
   * keeps its last answer, with a Warning and a metric, until federation.maxHold.
   */
  @Test
  void losingContactWithEveryMemberKeepsEveryNameUntilMaxHold() {
    String ns = host.createNamespace("fed-dns-held");
    FederatedServices.optIn(host.client(), ns);
    Duration maxHold = Duration.ofSeconds(15);
    try (InProcessPier pier = startPier("  maxHold: " + maxHold.toSeconds() + "s\n")) {
      host.client().resource(FederatedServices.federated(ns, "shop", Map.of())).create();
      String eastIp = Services.awaitIngress(east.client(), ns, "shop");
      String westIp = Services.awaitIngress(west.client(), ns, "shop");
      FederatedServices.endpointSlice(east.client(), ns, "shop", true);
      FederatedServices.endpointSlice(west.client(), ns, "shop", true);
      awaitA(global(ns, "shop"), eastIp, westIp);
      awaitA(zone(ns, "shop", "us-a", "us"), westIp);

      east.freeze();
      west.freeze();
      try {
        long frozen = System.nanoTime();
        await().atMost(CONVERGE).until(() -> ready(pier, "east") == 0 && ready(pier, "west") == 0);
        // Pier saw both go and ran the Service: it says it holds them.
        await()
            .atMost(CONVERGE)
            .until(() -> Services.eventCount(host.client(), ns, "shop", "FederatedNamesHeld") > 0);
        assertThat(held(pier, ns, "shop")).isPositive();
        // The names are written after the Event: wait for the held answer, not for a look. (When
        // Pier sees one member go before the other, it drops the first while the second is still
        // reachable, and puts it back once both are held.)
        awaitA(global(ns, "shop"), eastIp, westIp);
        awaitA(region(ns, "shop", "eu"), eastIp);
        awaitA(zone(ns, "shop", "us-a", "us"), westIp);
        assertThat(
                Services.events(host.client(), ns, "shop").stream()
                    .filter(e -> "FederatedNamesHeld".equals(e.getReason()))
                    .findFirst()
                    .orElseThrow()
                    .getMessage())
            .contains("Only 0 of 2 placed clusters are reachable", "east, west", "at most 15s");

        // After maxHold, losing contact counts as failure after all: the names go. The hold began
        // before the held answer was seen, so this bounds the time after its end by CONVERGE.
        awaitGone(global(ns, "shop"), maxHold.plus(CONVERGE));
        log.info(
            "Every member frozen to the global name gone (maxHold 15s): {} ms",
            (System.nanoTime() - frozen) / 1_000_000);
        assertThat(held(pier, ns, "shop")).isNegative();
      } finally {
        east.thaw();
        west.thaw();
      }
      awaitA(global(ns, "shop"), eastIp, westIp);
      host.client().services().inNamespace(ns).withName("shop").delete();
      awaitGone(global(ns, "shop"));
    }
  }

  /**
   * The host's API server stops answering (frozen): Pier can neither read nor write the host
   * Services, and no name changes while it is down (a lost host is not a deleted Service); once it
   * is back, a member's change reaches the names as before.
   */
  @Test
  void theHostApiServerDownKeepsEveryNameAndChangesLandOnceItIsBack() {
    String ns = host.createNamespace("fed-dns-host-down");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = startPier()) {
      host.client().resource(FederatedServices.federated(ns, "cart", Map.of())).create();
      String eastIp = Services.awaitIngress(east.client(), ns, "cart");
      String westIp = Services.awaitIngress(west.client(), ns, "cart");
      FederatedServices.endpointSlice(east.client(), ns, "cart", true);
      FederatedServices.endpointSlice(west.client(), ns, "cart", true);
      awaitA(global(ns, "cart"), eastIp, westIp);
      awaitA(zone(ns, "cart", "us-a", "us"), westIp);

      host.freeze();
      try {
        await()
            .during(Duration.ofSeconds(8))
            .atMost(Duration.ofSeconds(12))
            .untilAsserted(
                () -> {
                  assertThat(pdns.dig(global(ns, "cart"), "A"))
                      .containsExactlyInAnyOrder(eastIp, westIp);
                  assertThat(pdns.dig(region(ns, "cart", "eu"), "A")).containsExactly(eastIp);
                  assertThat(pdns.dig(zone(ns, "cart", "us-a", "us"), "A")).containsExactly(westIp);
                });
      } finally {
        host.thaw();
      }
      FederatedServices.endpointSlice(west.client(), ns, "cart", false);
      awaitA(global(ns, "cart"), eastIp);
      awaitCname(region(ns, "cart", "us"), global(ns, "cart"));
      host.client().services().inNamespace(ns).withName("cart").delete();
      awaitGone(global(ns, "cart"));
    }
  }

  /** When the Service's names began to be held (epoch seconds), or -1 when they are not. */
  private static double held(InProcessPier pier, String ns, String name) {
    var gauge =
        pier.pier()
            .metrics()
            .registry()
            .find("pier.federation.names.held.since")
            .tag("namespace", ns)
            .tag("name", name)
            .gauge();
    return gauge == null ? -1 : gauge.value();
  }

  @Test
  void aForeignRecordAtOneOfTheNamesIsLeftAloneAndReported() {
    String ns = host.createNamespace("fed-dns-foreign");
    FederatedServices.optIn(host.client(), ns);
    if (pdns.api("GET", "/zones/" + ZONE + ".", null).statusCode() == 404) {
      pdns.createZone(ZONE + ".");
    }
    pdns.putForeign(ZONE + ".", region(ns, "api", "us"), "A", "192.0.2.9");
    try (InProcessPier pier = startPier()) {
      Service api =
          host.client().resource(FederatedServices.federated(ns, "api", Map.of())).create();
      String eastIp = Services.awaitIngress(east.client(), ns, "api");
      String westIp = Services.awaitIngress(west.client(), ns, "api");
      FederatedServices.endpointSlice(east.client(), ns, "api", true);
      FederatedServices.endpointSlice(west.client(), ns, "api", true);
      awaitA(global(ns, "api"), eastIp, westIp);
      awaitA(region(ns, "api", "eu"), eastIp);
      // Left alone because Pier tried that name and found it taken.
      PierSaw.event(host.client(), api, CONVERGE, "DNSRecordConflict");
      assertThat(pdns.dig(region(ns, "api", "us"), "A")).containsExactly("192.0.2.9");

      host.client().services().inNamespace(ns).withName("api").delete();
      awaitGone(global(ns, "api"));
      awaitGone(region(ns, "api", "eu"));
      // The foreign record outlives the Service it collided with.
      assertThat(pdns.dig(region(ns, "api", "us"), "A")).containsExactly("192.0.2.9");
    }
  }
}
