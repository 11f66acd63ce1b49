package dev.pier.ownership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.hetzner.FakeHetznerCloud;
import dev.pier.nodes.Topology;
import dev.pier.testkit.Edits;
import dev.pier.testkit.EndpointSlices;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PowerDnsServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two clusters (two real API servers, so two kube-system uids) share one Hetzner project and one
 * PowerDNS zone, both with the default {@code cluster.name} and {@code dns.ownerId}, both sweeping
 * orphans every second. Each has a Service with the same namespace and name (the worst case: the
 * same {@code pier.dev/cluster}, {@code pier.dev/namespace} and {@code pier.dev/name} labels and
 * the same DNS names) and one of its own. Neither cluster touches the other's load balancers or
 * records: the cluster that asks second for a shared DNS name gets {@code DNSRecordConflict} and
 * leaves the first one's record alone, and deleting every Service in one cluster removes only its
 * objects.
 *
 * <p>The load balancers are told apart only by {@code pier.dev/cluster-uid}: with the orphan sweep
 * keyed by the cluster name, each cluster's sweep deletes the other's load balancers (their Service
 * uids exist only in the other cluster) as soon as they are made, and the waits for load balancers,
 * the unchanged ids of {@link #bsObjects} and the orphan metrics fail. The records are told apart
 * only by the cluster uid in the owner comment: with the owner id alone, B takes over A's shared
 * names instead of reporting {@code DNSRecordConflict}, and A's deletion removes them.
 */
@Tag("kube")
class TwoClustersShareACloudTest {
  private static final String TOKEN = "two-clusters-token-0123456789";
  private static final String ZONE = "pier.test";
  private static final String NS = "shop";
  private static final String SHARED = "web";
  private static final Duration SWEEP = Duration.ofSeconds(1);

  private static FakeHetznerCloud cloud;
  private static PowerDnsServer pdns;
  private static Path tokenFile;
  private static Cluster a;
  private static Cluster b;

  /** One cluster: its API server, its identity and its Pier. */
  private static final class Cluster {
    final String label;
    final KubeApiServer kube;
    final KubernetesClient client;
    final String uid;
    InProcessPier pier;

    Cluster(String label, long serverId) {
      this.label = label;
      this.kube = KubeApiServer.start();
      this.client = kube.client();
      this.uid = client.namespaces().withName("kube-system").get().getMetadata().getUid();
      kube.createReadyNode(
          "node-" + label,
          "127.0.0.1",
          Map.of(Topology.REGION, "region-1", Topology.ZONE, "zone-a"));
      client
          .nodes()
          .withName("node-" + label)
          .edit(
              n ->
                  new NodeBuilder(n)
                      .editSpec()
                      .withProviderID("hcloud://" + serverId)
                      .endSpec()
                      .build());
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .create();
    }

    void startPier() {
      Map<String, String> env = new HashMap<>();
      // cluster.name and dns.ownerId stay at their defaults in both clusters.
      env.put(PierOptions.PROVIDER.envName(), "hetzner");
      env.put(PierOptions.HETZNER_ENDPOINT.envName(), cloud.endpoint());
      env.put(PierOptions.HETZNER_TOKEN_FILE.envName(), tokenFile.toString());
      env.put(PierOptions.HETZNER_ACTION_POLL_INTERVAL.envName(), "50ms");
      env.put(PierOptions.HETZNER_REQUEST_TIMEOUT.envName(), "2s");
      env.put(PierOptions.HETZNER_RATE_LIMIT_MAX_WAIT.envName(), "5s");
      env.put(PierOptions.HETZNER_ORPHAN_CLEANUP.envName(), "true");
      env.put(PierOptions.HETZNER_ORPHAN_CLEANUP_PERIOD.envName(), SWEEP.toSeconds() + "s");
      env.put(PierOptions.DNS_ENABLED.envName(), "true");
      env.put(PierOptions.DNS_ZONE_NAME.envName(), ZONE);
      env.put(PierOptions.DNS_POWERDNS_URL.envName(), pdns.apiUrl());
      env.put(PierOptions.DNS_POWERDNS_API_KEY_FILE.envName(), pdns.apiKeyFile().toString());
      env.put(PierOptions.DNS_POWERDNS_TIMEOUT.envName(), "2s");
      pier = InProcessPier.start(kube, env);
    }

    void createService(String name) {
      client
          .services()
          .inNamespace(NS)
          .resource(
              new ServiceBuilder()
                  .withNewMetadata()
                  .withNamespace(NS)
                  .withName(name)
                  .endMetadata()
                  .withNewSpec()
                  .withType("LoadBalancer")
                  .withSelector(Map.of("app", name))
                  .addNewPort()
                  .withName("http")
                  .withProtocol("TCP")
                  .withPort(80)
                  .endPort()
                  .endSpec()
                  .build())
          .create();
      // No endpoint-slice controller runs: write a ready slice, so every level gets A/AAAA records.
      EndpointSlices.write(client, NS, name, true);
    }

    String serviceUid(String name) {
      Service s = client.services().inNamespace(NS).withName(name).get();
      return s == null ? null : s.getMetadata().getUid();
    }

    List<String> ingress(String name) {
      Service s = client.services().inNamespace(NS).withName(name).get();
      if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
        return List.of();
      }
      var ingress = s.getStatus().getLoadBalancer().getIngress();
      return ingress == null ? List.of() : ingress.stream().map(i -> i.getIp()).toList();
    }

    /** This cluster's load balancer for the Service, found as a user would: by both uid labels. */
    JsonObject loadBalancer(String serviceUid) {
      return cloud.loadBalancers().stream()
          .filter(lb -> uid.equals(labels(lb).get("pier.dev/cluster-uid")))
          .filter(lb -> serviceUid.equals(labels(lb).get("hcloud-ccm/service-uid")))
          .findFirst()
          .orElse(null);
    }

    /** Every load balancer labelled with this cluster's uid. */
    List<JsonObject> loadBalancers() {
      return cloud.loadBalancers().stream()
          .filter(lb -> uid.equals(labels(lb).get("pier.dev/cluster-uid")))
          .toList();
    }

    /**
     * Warning events on the Services of {@link #NS}, as "name reason: message", without the retried
     * HTTP 500s of the test's PowerDNS (its single SQLite file refuses concurrent writes now and
     * then); every other Warning counts.
     */
    List<String> warnings() {
      List<String> out = new ArrayList<>();
      for (Event e : client.v1().events().inNamespace(NS).list().getItems()) {
        boolean transientDnsFailure =
            "SyncDNSFailed".equals(e.getReason()) && e.getMessage().contains("HTTP 500");
        if ("Warning".equals(e.getType())
            && "Service".equals(e.getInvolvedObject().getKind())
            && !transientDnsFailure) {
          out.add(e.getInvolvedObject().getName() + " " + e.getReason() + ": " + e.getMessage());
        }
      }
      return out;
    }

    void close() {
      try {
        if (pier != null) {
          pier.close();
        }
      } finally {
        kube.close();
      }
    }
  }

  @BeforeAll
  static void setUp() throws Exception {
    cloud = FakeHetznerCloud.start(TOKEN);
    cloud.addServers(201, 202);
    tokenFile = Files.createTempFile("hcloud-token", ".txt");
    Files.writeString(tokenFile, TOKEN + "\n");
    pdns = PowerDnsServer.create();
    pdns.createZone(ZONE + ".");
    // The two API servers start side by side; each gets its own kube-system uid.
    CompletableFuture<Cluster> second = CompletableFuture.supplyAsync(() -> new Cluster("b", 202));
    try {
      a = new Cluster("a", 201);
    } finally {
      b = second.get(120, TimeUnit.SECONDS);
    }
    a.startPier();
    b.startPier();
  }

  @AfterAll
  static void tearDown() throws Exception {
    try {
      for (Cluster c : new Cluster[] {a, b}) {
        if (c != null) {
          c.close();
        }
      }
    } finally {
      if (pdns != null) {
        pdns.close();
      }
      if (cloud != null) {
        cloud.close();
      }
      Files.deleteIfExists(tokenFile);
    }
  }

  private static Map<String, String> labels(JsonObject lb) {
    Map<String, String> m = new TreeMap<>();
    lb.getJsonObject("labels", new JsonObject())
        .forEach(e -> m.put(e.getKey(), (String) e.getValue()));
    return m;
  }

  private static List<String> names(String svc) {
    String prefix = svc + "." + NS + ".pier.svc.";
    return List.of(
        prefix + ZONE + ".",
        prefix + "region-1." + ZONE + ".",
        prefix + "zone-a.region-1." + ZONE + ".");
  }

  /** The zone's rrsets (with records and comments) at the Service's names, by "name type". */
  private static Map<String, JsonObject> rrsets(String svc) {
    List<String> names = names(svc);
    Map<String, JsonObject> out = new TreeMap<>();
    new JsonObject(pdns.zoneJson(ZONE + "."))
        .getJsonArray("rrsets")
        .forEach(
            o -> {
              JsonObject r = (JsonObject) o;
              if (names.contains(r.getString("name"))
                  && !r.getJsonArray("records", new io.vertx.core.json.JsonArray()).isEmpty()) {
                out.put(r.getString("name") + " " + r.getString("type"), r);
              }
            });
    return out;
  }

  /** The owner comments of the rrsets. */
  private static List<String> owners(Map<String, JsonObject> rrsets) {
    List<String> out = new ArrayList<>();
    rrsets
        .values()
        .forEach(
            r ->
                r.getJsonArray("comments")
                    .forEach(c -> out.add(((JsonObject) c).getString("content"))));
    return out;
  }

  /** Awaits all three names of the Service with A and AAAA records marked by the cluster. */
  private static Map<String, JsonObject> awaitNames(Cluster c, String svc) {
    List<String> ips = c.ingress(svc);
    await()
        .atMost(InProcessPier.CONVERGE)
        .untilAsserted(
            () -> {
              Map<String, JsonObject> r = rrsets(svc);
              assertThat(r).hasSize(6);
              assertThat(owners(r)).hasSize(6).allMatch(o -> o.endsWith("cluster=" + c.uid));
              for (JsonObject set : r.values()) {
                assertThat(ips)
                    .contains(set.getJsonArray("records").getJsonObject(0).getString("content"));
              }
            });
    return rrsets(svc);
  }

  private static JsonObject awaitLoadBalancer(Cluster c, String svc) {
    String uid = c.serviceUid(svc);
    await()
        .atMost(InProcessPier.CONVERGE)
        .until(() -> c.loadBalancer(uid) != null && c.ingress(svc).size() == 2);
    return c.loadBalancer(uid);
  }

  /** What must stay as it is in cluster B: its load balancers (ids, labels, names) and records. */
  private static String bsObjects() {
    StringBuilder s = new StringBuilder();
    for (String svc : List.of(SHARED, "only-b")) {
      JsonObject lb = b.loadBalancer(b.serviceUid(svc));
      s.append(svc)
          .append(" lb ")
          .append(lb == null ? "missing" : lb.getLong("id") + " " + lb.getString("name"))
          .append(' ')
          .append(lb == null ? "" : labels(lb))
          .append('\n');
    }
    rrsets("only-b").forEach((k, v) -> s.append(k).append(' ').append(v.encode()).append('\n'));
    return s.toString();
  }

  @Test
  void neitherClusterTouchesTheOthersLoadBalancersOrRecords() throws Exception {
    assertThat(a.uid).isNotEqualTo(b.uid);

    // Cluster A first: its Services get load balancers and names.
    a.createService(SHARED);
    a.createService("only-a");
    JsonObject aShared = awaitLoadBalancer(a, SHARED);
    JsonObject aOnly = awaitLoadBalancer(a, "only-a");
    Map<String, JsonObject> aSharedNames = awaitNames(a, SHARED);
    awaitNames(a, "only-a");

    // Cluster B: the same namespace and name, and one of its own.
    b.createService(SHARED);
    b.createService("only-b");
    JsonObject bShared = awaitLoadBalancer(b, SHARED);
    awaitLoadBalancer(b, "only-b");
    awaitNames(b, "only-b");
    assertThat(bShared.getLong("id")).isNotEqualTo(aShared.getLong("id"));
    // The labels that read alike in both clusters really do; only the uids tell them apart.
    for (String label : List.of("pier.dev/cluster", "pier.dev/namespace", "pier.dev/name")) {
      assertThat(labels(bShared).get(label)).as(label).isEqualTo(labels(aShared).get(label));
    }
    assertThat(labels(bShared).get("pier.dev/cluster")).isEqualTo("kubernetes");

    // B asks for A's shared names: each is a conflict for B, and A's records stay exactly as
    // they were.
    await()
        .atMost(InProcessPier.CONVERGE)
        .untilAsserted(
            () -> {
              List<String> conflicts =
                  b.warnings().stream()
                      .filter(w -> w.startsWith(SHARED + " DNSRecordConflict: "))
                      .toList();
              for (String name : names(SHARED)) {
                assertThat(conflicts).anyMatch(w -> w.contains(name));
              }
            });
    // Both Piers keep running (and sweeping) side by side for a few periods.
    Thread.sleep(3 * SWEEP.toMillis() + 500);
    assertThat(rrsets(SHARED)).isEqualTo(aSharedNames);
    assertThat(a.loadBalancers()).hasSize(2);
    assertThat(b.loadBalancers()).hasSize(2);
    assertThat(cloud.loadBalancers()).hasSize(4);
    assertThat(a.warnings()).as("warnings in cluster A").isEmpty();
    assertThat(b.warnings())
        .as("warnings in cluster B")
        .isNotEmpty()
        .allMatch(w -> w.startsWith(SHARED + " DNSRecordConflict: "))
        .allMatch(w -> w.contains("cluster=" + a.uid));
    String before = bsObjects();
    assertThat(before).doesNotContain("missing");

    // A's Services go: A's load balancers and names go with them, B's stay as they are.
    a.client.services().inNamespace(NS).withName(SHARED).delete();
    a.client.services().inNamespace(NS).withName("only-a").delete();
    await()
        .atMost(InProcessPier.CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(a.loadBalancers()).isEmpty();
              assertThat(rrsets(SHARED)).isEmpty();
              assertThat(rrsets("only-a")).isEmpty();
              assertThat(a.client.services().inNamespace(NS).list().getItems()).isEmpty();
            });
    assertThat(cloud.loadBalancers())
        .noneMatch(lb -> lb.getLong("id").equals(aShared.getLong("id")))
        .noneMatch(lb -> lb.getLong("id").equals(aOnly.getLong("id")));
    long lists = listRequests();
    Thread.sleep(4 * SWEEP.toMillis());
    assertThat(listRequests() - lists)
        .as("load balancer lists by both sweeps")
        .isGreaterThanOrEqualTo(4);
    assertThat(bsObjects()).isEqualTo(before);
    assertThat(b.loadBalancers()).hasSize(2);
    assertThat(cloud.loadBalancers()).hasSize(2);
    // Neither sweep even picked up the other cluster's load balancers as orphans.
    for (Cluster c : List.of(a, b)) {
      assertThat(meter(c, "pier.orphans.deleted")).as(c.label + " orphans deleted").isZero();
      assertThat(meter(c, "pier.orphans.delete.failures"))
          .as(c.label + " orphan deletions that failed")
          .isZero();
      assertThat(meter(c, "pier.deletion.guard.held"))
          .as(c.label + " deletions held by the guard")
          .isZero();
    }
    assertThat(a.warnings()).as("warnings in cluster A").isEmpty();
    assertThat(b.warnings())
        .as("warnings in cluster B")
        .allMatch(w -> w.startsWith(SHARED + " DNSRecordConflict: "));

    // The shared names are free now: B's Service takes them on its next sync.
    Edits.retrying(
        b.client.services().inNamespace(NS).withName(SHARED),
        s ->
            new ServiceBuilder(s)
                .editMetadata()
                .addToAnnotations("touched", "yes")
                .endMetadata()
                .build());
    awaitNames(b, SHARED);
  }

  /** Lists of load balancers; with nothing to reconcile, only the orphan sweeps list. */
  private static long listRequests() {
    return cloud.requests().stream().filter("GET /v1/load_balancers"::equals).count();
  }

  /** A counter's count or a gauge's value in the cluster's Pier. */
  private static double meter(Cluster c, String name) {
    var search = c.pier.pier().metrics().registry().get(name);
    return name.equals("pier.deletion.guard.held")
        ? search.gauge().value()
        : search.counter().count();
  }
}
