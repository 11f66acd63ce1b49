package dev.pier.cloud.hetzner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole controller with {@code provider: hetzner} against a real API server, with {@link
 * FakeHetznerCloud} as the cloud: create, port changes, node changes, delete, faults, delete
 * protection, orphans.
 */
@RealKubeApiServer
class HetznerProviderTest {
  private static final String TOKEN = "test-token-0123456789";

  private static KubeApiServer kube;
  private static KubernetesClient client;
  private static FakeHetznerCloud cloud;
  private static Path tokenFile;

  @BeforeAll
  static void setUp(KubeApiServer server) throws Exception {
    kube = server;
    client = kube.client();
    cloud = FakeHetznerCloud.start(TOKEN);
    cloud.addServers(101, 102, 103, 104);
    tokenFile = Files.createTempFile("hcloud-token", ".txt");
    Files.writeString(tokenFile, TOKEN + "\n");
    hetznerNode("node-1", "10.0.0.1", 101);
    hetznerNode("node-2", "10.0.0.2", 102);
  }

  @AfterAll
  static void tearDown() throws Exception {
    cloud.close();
    Files.deleteIfExists(tokenFile);
  }

  static void hetznerNode(String name, String ip, long serverId) {
    kube.createReadyNode(name, ip, Map.of());
    client
        .nodes()
        .withName(name)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editSpec()
                    .withProviderID("hcloud://" + serverId)
                    .endSpec()
                    .build());
  }

  private static InProcessPier startPier(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.PROVIDER.envName(), "hetzner");
    env.put(PierOptions.HETZNER_ENDPOINT.envName(), cloud.endpoint());
    env.put(PierOptions.HETZNER_TOKEN_FILE.envName(), tokenFile.toString());
    env.put(PierOptions.HETZNER_ACTION_POLL_INTERVAL.envName(), "50ms");
    env.put(PierOptions.HETZNER_REQUEST_TIMEOUT.envName(), "1s");
    env.put(PierOptions.HETZNER_RATE_LIMIT_MAX_WAIT.envName(), "5s");
    env.putAll(extra);
    return InProcessPier.start(kube, env);
  }

  static Service lbService(
      String ns, String name, Map<String, String> annotations, ServicePort... ports) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withSelector(Map.of("app", name))
        .withPorts(ports)
        .endSpec()
        .build();
  }

  static ServicePort port(String name, String protocol, int port) {
    return new ServicePortBuilder().withName(name).withProtocol(protocol).withPort(port).build();
  }

  static Service get(String ns, String name) {
    return client.services().inNamespace(ns).withName(name).get();
  }

  static String uid(String ns, String name) {
    return get(ns, name).getMetadata().getUid();
  }

  static List<String> ingressIps(String ns, String name) {
    Service s = get(ns, name);
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return List.of();
    }
    var ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null ? List.of() : ingress.stream().map(i -> i.getIp()).toList();
  }

  /** listen port -> destination port of the load balancer's services. */
  static Map<Integer, Integer> services(JsonObject lb) {
    Map<Integer, Integer> m = new TreeMap<>();
    JsonArray s = lb.getJsonArray("services");
    for (int i = 0; i < s.size(); i++) {
      m.put(
          s.getJsonObject(i).getInteger("listen_port"),
          s.getJsonObject(i).getInteger("destination_port"));
    }
    return m;
  }

  static Set<Long> targets(JsonObject lb) {
    Set<Long> ids = new TreeSet<>();
    JsonArray t = lb.getJsonArray("targets");
    for (int i = 0; i < t.size(); i++) {
      ids.add(t.getJsonObject(i).getJsonObject("server").getLong("id"));
    }
    return ids;
  }

  static Map<Integer, Integer> nodePorts(String ns, String name) {
    Map<Integer, Integer> m = new TreeMap<>();
    for (ServicePort p : get(ns, name).getSpec().getPorts()) {
      m.put(p.getPort(), p.getNodePort());
    }
    return m;
  }

  static List<String> warnings(String ns, String name) {
    List<String> out = new ArrayList<>();
    for (Event e : client.v1().events().inNamespace(ns).list().getItems()) {
      if (name.equals(e.getInvolvedObject().getName()) && "Warning".equals(e.getType())) {
        out.add(e.getReason() + ": " + e.getMessage());
      }
    }
    return out;
  }

  static Set<Long> serverIdsOfNodes() {
    Set<Long> ids = new TreeSet<>();
    for (Node n : client.nodes().list().getItems()) {
      String pid = n.getSpec().getProviderID();
      if (pid != null && pid.startsWith("hcloud://")) {
        ids.add(Long.parseLong(pid.substring("hcloud://".length())));
      }
    }
    return ids;
  }

  @Test
  void createUpdatePortsFollowNodesAndDelete() {
    String ns = kube.createNamespace("hz");
    try (InProcessPier pier = startPier(Map.of())) {
      client
          .services()
          .inNamespace(ns)
          .resource(
              lbService(ns, "web", Map.of(), port("http", "TCP", 80), port("https", "TCP", 443)))
          .create();
      String uid = uid(ns, "web");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> cloud.byServiceUid(uid) != null && !ingressIps(ns, "web").isEmpty());
      JsonObject lb = cloud.byServiceUid(uid);
      assertThat(ingressIps(ns, "web"))
          .containsExactly(
              lb.getJsonObject("public_net").getJsonObject("ipv4").getString("ip"),
              lb.getJsonObject("public_net").getJsonObject("ipv6").getString("ip"));
      assertThat(services(lb)).isEqualTo(nodePorts(ns, "web"));
      assertThat(targets(lb)).isEqualTo(serverIdsOfNodes());
      assertThat(lb.getJsonObject("labels").getMap())
          .containsEntry("pier.dev/cluster", "kubernetes")
          .containsEntry("pier.dev/cluster-uid", clusterUid())
          .containsEntry("pier.dev/namespace", ns)
          .containsEntry("pier.dev/name", "web");
      assertThat(lb.getJsonObject("load_balancer_type").getString("name")).isEqualTo("lb11");
      JsonObject hc = lb.getJsonArray("services").getJsonObject(0).getJsonObject("health_check");
      assertThat(hc.getString("protocol")).isEqualTo("tcp");
      assertThat(hc.getInteger("interval")).isEqualTo(10);

      // Ports: 443 becomes 8443; the LB service follows, the old one goes.
      Services.edit(
          client,
          ns,
          "web",
          s -> {
            Service n = new ServiceBuilder(s).build();
            n.getSpec().getPorts().get(1).setPort(8443);
            return n;
          });
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> services(cloud.byServiceUid(uid)).equals(nodePorts(ns, "web")));
      assertThat(services(cloud.byServiceUid(uid))).containsOnlyKeys(80, 8443);

      // Annotations: algorithm and type change in place.
      Services.edit(
          client,
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editMetadata()
                  .addToAnnotations(HetznerSpec.ALGORITHM, "least_connections")
                  .addToAnnotations(HetznerSpec.TYPE, "lb21")
                  .endMetadata()
                  .build());
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () -> {
                JsonObject l = cloud.byServiceUid(uid);
                return "least_connections".equals(l.getJsonObject("algorithm").getString("type"))
                    && "lb21".equals(l.getJsonObject("load_balancer_type").getString("name"));
              });
      assertThat(
              cloud.loadBalancers().stream()
                  .filter(
                      l ->
                          uid.equals(
                              l.getJsonObject("labels").getString("hcloud-ccm/service-uid"))))
          .hasSize(1);

      // A node joins, another leaves: the targets follow.
      hetznerNode("node-3", "10.0.0.3", 103);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> targets(cloud.byServiceUid(uid)).contains(103L));
      client.nodes().withName("node-2").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> targets(cloud.byServiceUid(uid)).equals(serverIdsOfNodes()));
      assertThat(targets(cloud.byServiceUid(uid))).doesNotContain(102L);

      // Delete: the load balancer goes, then the Service.
      client.services().inNamespace(ns).withName("web").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> get(ns, "web") == null);
      assertThat(cloud.byServiceUid(uid)).isNull();
    }
  }

  @Test
  void faultsDelayButConvergeWithoutLeaks() {
    String ns = kube.createNamespace("hzfault");
    try (InProcessPier pier = startPier(Map.of())) {
      int before = cloud.loadBalancers().size();
      cloud.rateLimitBurst(4);
      cloud.failNext(3, 500, "server_error");
      cloud.failNextActions(1);
      cloud.slowNext(3, Duration.ofMillis(1500));
      client
          .services()
          .inNamespace(ns)
          .resource(lbService(ns, "flaky", Map.of(), port("http", "TCP", 80)))
          .create();
      String uid = uid(ns, "flaky");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> cloud.byServiceUid(uid) != null && !ingressIps(ns, "flaky").isEmpty());
      assertThat(cloud.answered429()).isGreaterThanOrEqualTo(4);
      assertThat(cloud.answered5xx()).isGreaterThanOrEqualTo(3);
      assertThat(services(cloud.byServiceUid(uid))).isEqualTo(nodePorts(ns, "flaky"));
      assertThat(cloud.loadBalancers()).hasSize(before + 1);

      // Faults again while the port changes and the Service is deleted.
      cloud.failNext(2, 503, "unavailable");
      cloud.failNextActions(1);
      Services.edit(
          client,
          ns,
          "flaky",
          s -> {
            Service n = new ServiceBuilder(s).build();
            n.getSpec().getPorts().get(0).setPort(8080);
            return n;
          });
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> services(cloud.byServiceUid(uid)).equals(nodePorts(ns, "flaky")));
      cloud.rateLimitBurst(3);
      client.services().inNamespace(ns).withName("flaky").delete();
      await().atMost(Duration.ofSeconds(60)).until(() -> get(ns, "flaky") == null);
      assertThat(cloud.byServiceUid(uid)).isNull();
      assertThat(cloud.loadBalancers()).hasSize(before);
    }
  }

  @Test
  void udpAndBadAnnotationsAreReportedOnTheService() {
    String ns = kube.createNamespace("hzbad");
    try (InProcessPier pier = startPier(Map.of())) {
      client
          .services()
          .inNamespace(ns)
          .resource(lbService(ns, "dns", Map.of(), port("tcp", "TCP", 53), port("udp", "UDP", 53)))
          .create();
      client
          .services()
          .inNamespace(ns)
          .resource(
              lbService(
                  ns, "algo", Map.of(HetznerSpec.ALGORITHM, "fastest"), port("http", "TCP", 80)))
          .create();
      client
          .services()
          .inNamespace(ns)
          .resource(
              lbService(
                  ns, "where", Map.of(HetznerSpec.LOCATION, "mars1"), port("http", "TCP", 80)))
          .create();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  warnings(ns, "dns").stream()
                      .anyMatch(w -> w.contains("spec.ports[1].protocol=UDP")));
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  warnings(ns, "algo").stream()
                      .anyMatch(w -> w.contains(HetznerSpec.ALGORITHM) && w.contains("fastest")));
      // Rejected by the API (invalid_input on location): named after the annotation.
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  warnings(ns, "where").stream()
                      .anyMatch(w -> w.contains(HetznerSpec.LOCATION) && w.contains("mars1")));
      assertThat(cloud.byServiceUid(uid(ns, "dns"))).isNull();
      assertThat(cloud.byServiceUid(uid(ns, "algo"))).isNull();
      assertThat(cloud.byServiceUid(uid(ns, "where"))).isNull();

      // Fixing the Service lets it converge.
      Services.edit(
          client,
          ns,
          "algo",
          s ->
              new ServiceBuilder(s)
                  .editMetadata()
                  .addToAnnotations(HetznerSpec.ALGORITHM, "least_connections")
                  .endMetadata()
                  .build());
      await().atMost(InProcessPier.CONVERGE).until(() -> !ingressIps(ns, "algo").isEmpty());
      client.services().inNamespace(ns).delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).list().getItems().isEmpty());
    }
  }

  @Test
  void localTrafficPolicyChecksTheHealthCheckNodePortAndProxyProtocolSetsIpMode() {
    String ns = kube.createNamespace("hzlocal");
    try (InProcessPier pier = startPier(Map.of())) {
      Service svc =
          lbService(
              ns,
              "local",
              Map.of(HetznerSpec.PROXY_PROTOCOL, "true", HetznerSpec.HC_INTERVAL, "5s"),
              port("http", "TCP", 80));
      svc.getSpec().setExternalTrafficPolicy("Local");
      client.services().inNamespace(ns).resource(svc).create();
      String uid = uid(ns, "local");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> cloud.byServiceUid(uid) != null && !ingressIps(ns, "local").isEmpty());
      int hcnp = get(ns, "local").getSpec().getHealthCheckNodePort();
      JsonObject s = cloud.byServiceUid(uid).getJsonArray("services").getJsonObject(0);
      assertThat(s.getBoolean("proxyprotocol")).isTrue();
      JsonObject hc = s.getJsonObject("health_check");
      assertThat(hc.getString("protocol")).isEqualTo("http");
      assertThat(hc.getInteger("port")).isEqualTo(hcnp);
      assertThat(hc.getInteger("interval")).isEqualTo(5);
      assertThat(hc.getJsonObject("http").getString("path")).isEqualTo("/healthz");
      client.services().inNamespace(ns).withName("local").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> get(ns, "local") == null);
      assertThat(cloud.byServiceUid(uid)).isNull();
    }
  }

  /**
   * With proxy protocol the provider answers ipMode Proxy, which the 1.20 server drops: several
   * verification rounds find nothing to repair; an ingress changed out of band is one repair. A
   * repair is the Service's status written again, never a cloud write: no write request reaches the
   * cloud through it all, refused ones included; and a repair reported again and again would only
   * raise the one Event's count.
   */
  @Test
  void verificationWithProxyProtocolRepairsOnlyRealDrift() {
    String ns = kube.createNamespace("hzverify");
    try (InProcessPier pier =
        startPier(Map.of(PierOptions.RECONCILE_VERIFY_PERIOD.envName(), "1s"))) {
      client
          .services()
          .inNamespace(ns)
          .resource(
              lbService(
                  ns, "pp", Map.of(HetznerSpec.PROXY_PROTOCOL, "true"), port("http", "TCP", 80)))
          .create();
      await().atMost(InProcessPier.CONVERGE).until(() -> !ingressIps(ns, "pp").isEmpty());
      List<String> ips = ingressIps(ns, "pp");
      String ip = ips.get(0);
      String lb = "/v1/load_balancers/" + cloud.byServiceUid(uid(ns, "pp")).getLong("id");
      int mark = cloud.requests().size();
      // Each round of this load balancer ends with a read of it: four rounds after the mark.
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> requestsSince(mark, "GET " + lb).size() >= 4);
      assertThat(cloudWritesSince(mark)).as("cloud writes of the verification rounds").isEmpty();
      assertThat(warnings(ns, "pp")).noneMatch(w -> w.startsWith("RepairedLoadBalancer"));

      client
          .services()
          .inNamespace(ns)
          .withName("pp")
          .editStatus(
              s -> {
                s.getStatus().getLoadBalancer().getIngress().get(0).setIp("192.0.2.99");
                return s;
              });
      await().atMost(InProcessPier.CONVERGE).until(() -> ingressIps(ns, "pp").equals(ips));
      int repaired = cloud.requests().size();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> requestsSince(repaired, "GET " + lb).size() >= 3);
      assertThat(cloudWritesSince(mark))
          .as("cloud writes of the verification rounds and the repair")
          .isEmpty();
      assertThat(warnings(ns, "pp"))
          .filteredOn(w -> w.startsWith("RepairedLoadBalancer"))
          .containsExactly(
              "RepairedLoadBalancer: Repaired load balancer drift: status.loadBalancer.ingress[0].ip:"
                  + " expected "
                  + ip
                  + ", found 192.0.2.99");
      assertThat(Services.eventCount(client, ns, "pp", "RepairedLoadBalancer"))
          .as("repairs reported, the Event's count included")
          .isEqualTo(1);
      assertThat(ingressIps(ns, "pp")).isEqualTo(ips);
      client.services().inNamespace(ns).withName("pp").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> get(ns, "pp") == null);
    }
  }

  /** The cloud's requests from the {@code from}-th on that are {@code request} ("METHOD /path"). */
  private static List<String> requestsSince(int from, String request) {
    List<String> all = cloud.requests();
    return all.subList(Math.min(from, all.size()), all.size()).stream()
        .filter(request::equals)
        .toList();
  }

  /** The cloud's requests from the {@code from}-th on that are not reads, whatever the answer. */
  private static List<String> cloudWritesSince(int from) {
    List<String> all = cloud.requests();
    return all.subList(Math.min(from, all.size()), all.size()).stream()
        .filter(r -> !r.startsWith("GET "))
        .toList();
  }

  @Test
  void aServiceNamingAnUnlabelledLoadBalancerIsRefusedAndCannotDeleteIt() {
    String ns = kube.createNamespace("hztaken");
    JsonObject precious = cloud.createDirect("precious-" + ns, Map.of("team", "db"), false);
    long id = precious.getLong("id");
    try (InProcessPier pier = startPier(Map.of())) {
      client
          .services()
          .inNamespace(ns)
          .resource(
              lbService(
                  ns,
                  "hijack",
                  Map.of(HetznerSpec.NAME, precious.getString("name")),
                  port("http", "TCP", 80)))
          .create();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  warnings(ns, "hijack").stream()
                      .anyMatch(
                          w ->
                              w.startsWith("LoadBalancerNameTaken: ")
                                  && w.contains(precious.getString("name"))));
      assertThat(ingressIps(ns, "hijack")).isEmpty();
      assertThat(cloud.byServiceUid(uid(ns, "hijack"))).isNull();

      client.services().inNamespace(ns).withName("hijack").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> get(ns, "hijack") == null);
      JsonObject after =
          cloud.loadBalancers().stream()
              .filter(l -> l.getLong("id") == id)
              .findFirst()
              .orElse(null);
      assertThat(after).isEqualTo(precious);
    }
  }

  @Test
  void withAdoptByNameAServiceTakesOverAnUnlabelledLoadBalancerAndDeletesItWhenItGoes() {
    String ns = kube.createNamespace("hzadopt");
    JsonObject legacy = cloud.createDirect("legacy-" + ns, Map.of(), false);
    long id = legacy.getLong("id");
    try (InProcessPier pier =
        startPier(Map.of(PierOptions.HETZNER_ADOPT_BY_NAME.envName(), "true"))) {
      client
          .services()
          .inNamespace(ns)
          .resource(
              lbService(
                  ns,
                  "legacy",
                  Map.of(HetznerSpec.NAME, legacy.getString("name")),
                  port("http", "TCP", 80)))
          .create();
      String uid = uid(ns, "legacy");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> cloud.byServiceUid(uid) != null && !ingressIps(ns, "legacy").isEmpty());
      assertThat(cloud.byServiceUid(uid).getLong("id")).isEqualTo(id);
      assertThat(services(cloud.byServiceUid(uid))).isEqualTo(nodePorts(ns, "legacy"));

      client.services().inNamespace(ns).withName("legacy").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> get(ns, "legacy") == null);
      assertThat(cloud.loadBalancers().stream().map(l -> l.getLong("id"))).doesNotContain(id);
    }
  }

  @Test
  void deleteProtectionIsReportedNotRetriedForeverAndOrphansAreCleanedUp() {
    String ns = kube.createNamespace("hzprot");
    JsonObject orphan =
        cloud.createDirect(
            "orphan-lb",
            Map.of(
                "hcloud-ccm/service-uid", "0000-gone",
                "pier.dev/cluster", "kubernetes",
                "pier.dev/cluster-uid", clusterUid(),
                "pier.dev/namespace", ns,
                "pier.dev/name", "gone"),
            false);
    JsonObject foreign = cloud.createDirect("someone-elses", Map.of("team", "db"), false);
    // Another cluster of the same name, and one marked the old way whose Service is not here.
    JsonObject otherCluster =
        cloud.createDirect(
            "other-cluster-lb",
            Map.of(
                "hcloud-ccm/service-uid", "0000-theirs",
                "pier.dev/cluster", "kubernetes",
                "pier.dev/cluster-uid", "uid-of-another-cluster",
                "pier.dev/namespace", ns,
                "pier.dev/name", "theirs"),
            false);
    JsonObject oldScheme =
        cloud.createDirect(
            "old-scheme-lb",
            Map.of(
                "hcloud-ccm/service-uid", "0000-unknown",
                "pier.dev/cluster", "kubernetes",
                "pier.dev/namespace", ns,
                "pier.dev/name", "unknown"),
            false);
    try (InProcessPier pier =
        startPier(
            Map.of(
                PierOptions.HETZNER_ORPHAN_CLEANUP.envName(), "true",
                PierOptions.HETZNER_ORPHAN_CLEANUP_PERIOD.envName(), "1s"))) {
      client
          .services()
          .inNamespace(ns)
          .resource(lbService(ns, "kept", Map.of(), port("http", "TCP", 80)))
          .create();
      String uid = uid(ns, "kept");
      await().atMost(InProcessPier.CONVERGE).until(() -> !ingressIps(ns, "kept").isEmpty());

      // The orphan goes; the live Service's and the foreign load balancer stay.
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  cloud.loadBalancers().stream()
                      .noneMatch(l -> l.getLong("id").equals(orphan.getLong("id"))));
      assertThat(pier.pier().metrics().registry().get("pier.orphans.deleted").counter().count())
          .isGreaterThanOrEqualTo(1.0);
      assertThat(cloud.byServiceUid(uid)).isNotNull();
      assertThat(cloud.loadBalancers().stream().map(l -> l.getLong("id")))
          .contains(foreign.getLong("id"), otherCluster.getLong("id"), oldScheme.getLong("id"));
      assertThat(cloud.loadBalancers())
          .filteredOn(l -> l.getLong("id").equals(oldScheme.getLong("id")))
          .containsExactly(oldScheme);

      // Delete protection: the Service goes, the load balancer stays (and is reported).
      long id = cloud.byServiceUid(uid).getLong("id");
      cloud.setDeleteProtection(id, true);
      client.services().inNamespace(ns).withName("kept").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> get(ns, "kept") == null);
      assertThat(cloud.byServiceUid(uid)).isNotNull();
      cloud.setDeleteProtection(id, false);
      // Now it is an orphan: the sweeper removes it.
      await().atMost(InProcessPier.CONVERGE).until(() -> cloud.byServiceUid(uid) == null);
    }
  }

  /** The uid of the test cluster's kube-system namespace: Pier's cluster identity. */
  private static String clusterUid() {
    return kube.client().namespaces().withName("kube-system").get().getMetadata().getUid();
  }
}
