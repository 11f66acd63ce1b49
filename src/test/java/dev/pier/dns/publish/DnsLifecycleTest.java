package dev.pier.dns.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.nodes.Topology;
import dev.pier.testkit.Edits;
import dev.pier.testkit.EndpointSlices;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PowerDnsServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DNS names of load-balanced Services on a real PowerDNS server, driven by a real API server with
 * nodes in two zones of one region, checked with real DNS queries. No controllers run, so the test
 * writes the Endpoints objects itself.
 */
@RealKubeApiServer
class DnsLifecycleTest {
  private static final String ZONE = "pier.test";
  private static final String OWNER = "pier-test";
  private static KubeApiServer kube;
  private static KubernetesClient client;
  private static PowerDnsServer pdns;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    kube = server;
    client = kube.client();
    kube.createReadyNode(
        "node-a", "127.0.0.1", Map.of(Topology.REGION, "region-1", Topology.ZONE, "zone-a"));
    kube.createReadyNode(
        "node-b",
        "127.0.0.1",
        Map.of(Topology.BETA_REGION, "region-1", Topology.BETA_ZONE, "zone-b"));
    pdns = PowerDnsServer.create();
  }

  @AfterAll
  static void tearDown() {
    if (pdns != null) {
      pdns.close();
    }
  }

  private static InProcessPier startPier(String pool) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.LOCAL_POOLS.envName(), pool);
    env.putAll(pdns.pierEnv(ZONE, OWNER));
    return InProcessPier.start(kube, env);
  }

  private static String global(String ns, String svc) {
    return svc + "." + ns + ".pier.svc." + ZONE + ".";
  }

  private static String region(String ns, String svc) {
    return svc + "." + ns + ".pier.svc.region-1." + ZONE + ".";
  }

  private static String zone(String ns, String svc, String zone) {
    return svc + "." + ns + ".pier.svc." + zone + ".region-1." + ZONE + ".";
  }

  private static Service lbService(String ns, String name, Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withSelector(Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNodePort(kube.freeNodePort())
        .endPort()
        .endSpec()
        .build();
  }

  /** Writes the Service's EndpointSlice as the endpoint-slice controller would: ready or not. */
  private static void endpoints(String ns, String name, boolean ready) {
    EndpointSlices.write(client, ns, name, ready);
  }

  private static String ingressIp(String ns, String name) {
    Service s = client.services().inNamespace(ns).withName(name).get();
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return null;
    }
    var ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null || ingress.isEmpty() ? null : ingress.get(0).getIp();
  }

  private static String awaitIngress(String ns, String name) {
    await().atMost(InProcessPier.CONVERGE).until(() -> ingressIp(ns, name) != null);
    return ingressIp(ns, name);
  }

  private static void awaitA(String name, String ip) {
    await()
        .atMost(InProcessPier.CONVERGE)
        .untilAsserted(() -> assertThat(pdns.dig(name, "A")).as(name).containsExactly(ip));
  }

  private static void awaitCname(String name, String target) {
    await()
        .atMost(InProcessPier.CONVERGE)
        .untilAsserted(() -> assertThat(pdns.dig(name, "CNAME")).as(name).containsExactly(target));
  }

  private static void awaitGone(String name) {
    await()
        .atMost(InProcessPier.CONVERGE)
        .untilAsserted(
            () -> assertThat(pdns.digStatus(name, "ANY")).as(name).isEqualTo("NXDOMAIN"));
  }

  /** Names in the zone that belong to a Service of {@code ns}. */
  private static List<String> namesOf(String ns) {
    String json = pdns.zoneJson(ZONE + ".");
    return new io.vertx.core.json.JsonObject(json)
        .getJsonArray("rrsets").stream()
            .map(o -> ((io.vertx.core.json.JsonObject) o).getString("name"))
            .filter(n -> n.contains("." + ns + ".pier.svc."))
            .toList();
  }

  private static long serial() {
    return new io.vertx.core.json.JsonObject(pdns.zoneJson(ZONE + ".")).getLong("serial");
  }

  private static double successfulRuns(InProcessPier pier) {
    return pier
        .pier()
        .metrics()
        .registry()
        .find("pier.reconciles")
        .tag("result", "success")
        .counters()
        .stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private static List<Event> events(String ns, String name) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  @Test
  void namesFollowTheLoadBalancerAndItsEndpointsAndGoWithTheService() {
    String ns = kube.createNamespace("dnslife");
    try (InProcessPier pier = startPier("127.243.0.0/24")) {
      client.services().inNamespace(ns).resource(lbService(ns, "web", Map.of())).create();
      String ip = awaitIngress(ns, "web");
      // An ingress without ready endpoints: zone and region names fall back, no global name.
      endpoints(ns, "web", false);
      awaitCname(zone(ns, "web", "zone-a"), region(ns, "web"));
      awaitCname(zone(ns, "web", "zone-b"), region(ns, "web"));
      awaitCname(region(ns, "web"), global(ns, "web"));
      awaitGone(global(ns, "web"));

      // Endpoints become ready: A records at every level, in both zones of the region.
      endpoints(ns, "web", true);
      awaitA(global(ns, "web"), ip);
      awaitA(region(ns, "web"), ip);
      awaitA(zone(ns, "web", "zone-a"), ip);
      awaitA(zone(ns, "web", "zone-b"), ip);
      assertThat(pdns.dig(zone(ns, "web", "zone-a"), "CNAME")).isEmpty();
      assertThat(pdns.zoneJson(ZONE + ".")).contains("pier-owner=" + OWNER);

      // A reconcile that finds DNS as it should be sends nothing: the zone's serial stays.
      long serial = serial();
      double runs = successfulRuns(pier);
      Edits.retrying(
          client.services().inNamespace(ns).withName("web"),
          s ->
              new ServiceBuilder(s)
                  .editMetadata()
                  .addToAnnotations("touched", "yes")
                  .endMetadata()
                  .build());
      await().atMost(InProcessPier.CONVERGE).until(() -> successfulRuns(pier) > runs);
      assertThat(serial()).isEqualTo(serial);
      assertThat(pdns.dig(global(ns, "web"), "A")).containsExactly(ip);

      // Endpoints go away (A becomes CNAME) and come back.
      endpoints(ns, "web", false);
      awaitCname(zone(ns, "web", "zone-a"), region(ns, "web"));
      awaitCname(region(ns, "web"), global(ns, "web"));
      awaitGone(global(ns, "web"));
      endpoints(ns, "web", true);
      awaitA(global(ns, "web"), ip);
      awaitA(zone(ns, "web", "zone-b"), ip);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () -> events(ns, "web").stream().anyMatch(e -> "UpdatedDNS".equals(e.getReason())));

      // Deleted: every name goes, zone and region CNAMEs included.
      endpoints(ns, "web", false);
      awaitCname(region(ns, "web"), global(ns, "web"));
      client.services().inNamespace(ns).withName("web").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> namesOf(ns).isEmpty());
      awaitGone(region(ns, "web"));
      awaitGone(zone(ns, "web", "zone-a"));
    }
  }

  @Test
  void aForeignRecordIsLeftAloneAndReported() {
    String ns = kube.createNamespace("dnsforeign");
    pdns.api(
        "POST", "/zones", "{\"name\":\"" + ZONE + ".\",\"kind\":\"Native\",\"nameservers\":[]}");
    pdns.putForeign(ZONE + ".", global(ns, "taken"), "A", "192.0.2.1");
    try (InProcessPier pier = startPier("127.244.0.0/24")) {
      client.services().inNamespace(ns).resource(lbService(ns, "taken", Map.of())).create();
      endpoints(ns, "taken", true);
      String ip = awaitIngress(ns, "taken");
      awaitA(region(ns, "taken"), ip);
      awaitA(zone(ns, "taken", "zone-a"), ip);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  events(ns, "taken").stream()
                      .anyMatch(
                          e ->
                              "Warning".equals(e.getType())
                                  && "DNSRecordConflict".equals(e.getReason())
                                  && e.getMessage().contains(global(ns, "taken"))));
      assertThat(pdns.dig(global(ns, "taken"), "A")).containsExactly("192.0.2.1");

      // Opted out: a load balancer, but no names.
      client
          .services()
          .inNamespace(ns)
          .resource(lbService(ns, "quiet", Map.of(DnsPublisher.ANNOTATION, "false")))
          .create();
      endpoints(ns, "quiet", true);
      awaitIngress(ns, "quiet");

      client.services().inNamespace(ns).withName("taken").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> namesOf(ns).equals(List.of(global(ns, "taken"))));
      assertThat(pdns.dig(global(ns, "taken"), "A")).containsExactly("192.0.2.1");
      assertThat(pdns.digStatus(global(ns, "quiet"), "A")).isEqualTo("NXDOMAIN");
      assertThat(pdns.digStatus(region(ns, "quiet"), "A")).isEqualTo("NXDOMAIN");
    }
  }

  @Test
  void withPowerDnsDownLoadBalancersKeepWorkingAndNamesConvergeOnceItIsBack() {
    String ns = kube.createNamespace("dnsdown");
    try (InProcessPier pier = startPier("127.245.0.0/24")) {
      client.services().inNamespace(ns).resource(lbService(ns, "old", Map.of())).create();
      endpoints(ns, "old", true);
      String oldIp = awaitIngress(ns, "old");
      awaitA(global(ns, "old"), oldIp);

      pdns.stop();
      try {
        client.services().inNamespace(ns).resource(lbService(ns, "new", Map.of())).create();
        endpoints(ns, "new", true);
        String newIp = awaitIngress(ns, "new");
        assertThat(newIp).isNotEqualTo(oldIp);
        client.services().inNamespace(ns).withName("old").delete();
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> client.services().inNamespace(ns).withName("old").get() == null);
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(
                () ->
                    events(ns, "new").stream()
                        .anyMatch(e -> "SyncDNSFailed".equals(e.getReason())));
      } finally {
        pdns.start();
      }
      String newIp = ingressIp(ns, "new");
      awaitA(global(ns, "new"), newIp);
      awaitA(zone(ns, "new", "zone-b"), newIp);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> namesOf(ns).stream().noneMatch(n -> n.startsWith("old.")));
      client.services().inNamespace(ns).withName("new").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> namesOf(ns).isEmpty());
    }
  }

  private static void relabel(String node, String zoneLabel, String zone) {
    client
        .nodes()
        .withName(node)
        .edit(
            n ->
                new io.fabric8.kubernetes.api.model.NodeBuilder(n)
                    .editMetadata()
                    .addToLabels(zoneLabel, zone)
                    .endMetadata()
                    .build());
  }

  @Test
  void zoneNamesFollowTheNodesZones() {
    String ns = kube.createNamespace("dnsmove");
    try (InProcessPier pier = startPier("127.246.0.0/24")) {
      client.services().inNamespace(ns).resource(lbService(ns, "app", Map.of())).create();
      endpoints(ns, "app", true);
      String ip = awaitIngress(ns, "app");
      awaitA(zone(ns, "app", "zone-b"), ip);
      try {
        relabel("node-b", Topology.BETA_ZONE, "zone-c");
        awaitA(zone(ns, "app", "zone-c"), ip);
        awaitGone(zone(ns, "app", "zone-b"));
        assertThat(pdns.dig(zone(ns, "app", "zone-a"), "A")).containsExactly(ip);
        // A zone label that is no DNS label: no name for it, and a Warning that names the value.
        relabel("node-b", Topology.BETA_ZONE, "Zone_C");
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(
                () ->
                    events(ns, "app").stream()
                        .anyMatch(
                            e ->
                                "InvalidDNSLabel".equals(e.getReason())
                                    && e.getMessage().contains("'zone_c'")));
        awaitGone(zone(ns, "app", "zone-c"));
        assertThat(pdns.dig(zone(ns, "app", "zone-a"), "A")).containsExactly(ip);
      } finally {
        relabel("node-b", Topology.BETA_ZONE, "zone-b");
      }
      awaitA(zone(ns, "app", "zone-b"), ip);
      awaitGone(zone(ns, "app", "zone-c"));
      client.services().inNamespace(ns).withName("app").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> namesOf(ns).isEmpty());
    }
  }

  @Test
  void namesOfAServiceDeletedWhilePierWasStoppedGoAfterTheRestart() {
    String ns = kube.createNamespace("dnsgone");
    String ip;
    try (InProcessPier pier = startPier("127.247.0.0/24")) {
      client.services().inNamespace(ns).resource(lbService(ns, "gone", Map.of())).create();
      client.services().inNamespace(ns).resource(lbService(ns, "kept", Map.of())).create();
      endpoints(ns, "gone", true);
      endpoints(ns, "kept", true);
      ip = awaitIngress(ns, "gone");
      awaitA(global(ns, "gone"), ip);
      awaitA(global(ns, "kept"), awaitIngress(ns, "kept"));
    }
    Edits.retrying(
        client.services().inNamespace(ns).withName("gone"),
        s -> new ServiceBuilder(s).editMetadata().withFinalizers(List.of()).endMetadata().build());
    client.services().inNamespace(ns).withName("gone").delete();
    await()
        .atMost(InProcessPier.CONVERGE)
        .until(() -> client.services().inNamespace(ns).withName("gone").get() == null);
    assertThat(pdns.dig(global(ns, "gone"), "A")).containsExactly(ip);
    try (InProcessPier pier = startPier("127.247.0.0/24")) {
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> namesOf(ns).stream().noneMatch(n -> n.startsWith("gone.")));
      assertThat(namesOf(ns)).hasSize(4).allMatch(n -> n.startsWith("kept."));
      client.services().inNamespace(ns).withName("kept").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> namesOf(ns).isEmpty());
    }
  }
}
