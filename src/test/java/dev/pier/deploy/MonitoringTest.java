package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ForwardingLoadBalancerProvider;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.model.FederationKeys;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Prometheus;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.ScaleOutCredentials;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.MessageConsumerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The shipped Grafana dashboard and Prometheus rules, evaluated by a real Prometheus scraping a
 * running Pier: every expression is valid, and every dashboard panel shows data. Failure-only
 * panels get data from failures caused here: a provider double that refuses some Services, a paused
 * event-bus consumer that discards messages, a request nobody answers. Pier runs twice: as a
 * federation's host with one member joined through a Secret, unreachable, whose token expires in
 * three days (the federation members' panels and alerts), under one replica of scale-out (the
 * scale-out panels); and as the default single-cluster deployment, where every panel but those of a
 * federation and of scale-out shows data.
 */
@RealKubeApiServer
class MonitoringTest {
  /** One address, which the one Service the provider accepts fills: the pool alert's condition. */
  private static final String POOL = "127.245.0.1/32";

  private static final String MEMBER = "faraway";

  private static final String DISCARD_ADDRESS = "pier.test.discarding";
  private static final String NOBODY_ADDRESS = "pier.test.nobody";

  @Test
  void everyPanelAndAlertExpressionIsValidAndEveryPanelShowsData(
      KubeApiServer kube, @TempDir Path dir) throws Exception {
    kube.createReadyNode("node-mon", "127.0.0.1", Map.of());
    KubernetesClient client = kube.client();
    String ns = kube.createNamespace("mon");
    int nodePort = kube.freeNodePort();
    Path rules = Manifests.MONITORING_FILES.resolve("pier-rules.yaml");
    String members = kube.createNamespace("members");
    Instant expiry = Instant.now().plus(Duration.ofDays(3)).truncatedTo(ChronoUnit.SECONDS);
    int scaleOutPort = FreePorts.take();
    String config =
        FederationConfig.host(kube.kubeconfigPath())
            .pool(POOL)
            .secretNamespace(members)
            .health("1s")
            // One replica of scale-out, so that the scale-out row has data (one shard: the local
            // provider).
            .topLevelYaml(
                "scaleOut:\n"
                    + "  enabled: true\n"
                    + "  host: 127.0.0.1\n"
                    + "  port: "
                    + scaleOutPort
                    + "\n"
                    + "  members: [\"127.0.0.1:"
                    + scaleOutPort
                    + "\"]\n"
                    + "  clusterName: monitoring-"
                    + ProcessHandle.current().pid()
                    + "\n"
                    + "  eventBusPort: 0\n"
                    + ScaleOutCredentials.shared().yaml("  "))
            .yaml();
    try (TestBackend backend = TestBackend.start("node-mon", "127.0.0.1", nodePort);
        InProcessPier pier =
            InProcessPier.startWithConfig(config, Map.of(), RefusingProvider::new);
        Prometheus prometheus =
            Prometheus.start(
                dir, List.of("127.0.0.1:" + pier.pier().adminPort()), List.of(rules))) {
      client.services().inNamespace(ns).resource(service(ns, "ok", nodePort)).create();
      client
          .services()
          .inNamespace(ns)
          .resource(service(ns, RefusingProvider.PREFIX + "1", kube.freeNodePort()))
          .create();
      joinUnreachableMember(client, members, expiry);
      // A federated Service, so that the federation's runs are timed.
      String federated = kube.createNamespace("mon-fed");
      dev.pier.testkit.FederatedServices.optIn(client, federated);
      client
          .services()
          .inNamespace(federated)
          .resource(dev.pier.testkit.FederatedServices.federated(federated, "web", Map.of()))
          .create();
      causeEventBusFailures(pier.pier().vertx());
      System.gc();

      Map<String, String> panels = dashboardExpressions();
      assertThat(panels).hasSizeGreaterThan(20);
      awaitDataInEvery(prometheus, panels);

      // Event-bus panels show Pier's own addresses, by address.
      assertThat(addresses(prometheus.result("sum by (address) (vertx_eventbus_handlers)")))
          .contains("pier.reconcile", "pier.reconcile.control", "pier.nodes.changed");
      assertThat(
              addresses(
                  prometheus.result("sum by (address) (rate(vertx_eventbus_discarded_total[5m]))")))
          .contains(DISCARD_ADDRESS);

      // Alerts: every expression is valid, the rules load and evaluate without error, and the
      // failure alert's condition holds while the provider double refuses a Service.
      Map<String, String> alerts = alertExpressions(rules);
      assertThat(alerts)
          .containsKeys(
              "PierReconcileFailures",
              "PierQueueStuck",
              "PierNoLeader",
              "PierAddressPoolNearlyFull",
              "PierMemberCredentialExpiring",
              "PierMemberCredentialExpiringSoon");
      alerts.forEach(
          (name, expr) ->
              assertThat(prometheus.query(expr).getString("status")).as(name).isEqualTo("success"));
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                List<JsonObject> loaded = loadedRules(prometheus);
                assertThat(loaded).hasSize(alerts.size());
                assertThat(loaded)
                    .allSatisfy(
                        r -> assertThat(r.getString("health")).as(r.encode()).isEqualTo("ok"));
              });
      // rate() is 0 between two retries that fall into the same few scrapes: wait for an increase.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !prometheus.result(alerts.get("PierReconcileFailures")).isEmpty());
      assertThat(prometheus.result(alerts.get("PierNoLeader"))).isEmpty();
      JsonArray full = prometheus.result(alerts.get("PierAddressPoolNearlyFull"));
      assertThat(full).hasSize(1);
      assertThat(full.getJsonObject(0).getJsonObject("metric").getString("pool")).isEqualTo(POOL);
      // The member's token expires in three days: under both thresholds, named by its cluster.
      for (String alert :
          List.of("PierMemberCredentialExpiring", "PierMemberCredentialExpiringSoon")) {
        JsonArray expiring = prometheus.result(alerts.get(alert));
        assertThat(expiring).as(alert).hasSize(1);
        assertThat(expiring.getJsonObject(0).getJsonObject("metric").getString("cluster"))
            .isEqualTo(MEMBER);
      }
      JsonArray days =
          prometheus.result("(pier_member_credential_expiry_timestamp_seconds - time()) / 86400");
      assertThat(days).hasSize(1);
      assertThat(Double.parseDouble(days.getJsonObject(0).getJsonArray("value").getString(1)))
          .isCloseTo(3.0, within(0.1));
    }
  }

  /**
   * The panels that only a federation or scale-out fills, by title and target as {@link
   * #dashboardExpressions} names them: left out for a deployment that has neither, each for the
   * reason given. Every other panel must show data there too ("Federated Services with names held"
   * reads {@code or vector(0)}: it shows 0 without a federation, and stays in).
   */
  static final Map<String, String> FEDERATION_AND_SCALE_OUT_PANELS =
      Map.of(
          "Member credential expiry (days left) [A]",
          "pier_member_credential_expiry_timestamp_seconds: the credential of a federation member",
          "Member readiness [A]",
          "pier_cluster_ready: the readiness of federation members",
          "Copies per member [A]",
          "pier_federation_copies: Pier's copies in federation members",
          "Federation run latency [A]",
          "pier_federation_run_duration_seconds: runs of federated Services",
          "Federation run latency [B]",
          "pier_federation_run_duration_seconds: runs of federated Services",
          "Shards owned per replica [A]",
          "pier_shards_owned: the shards of scale-out replicas",
          "Shard moves and Lease writes [A]",
          "pier_shard_moves_total: shards scale-out replicas take and lose",
          "Shard moves and Lease writes [B]",
          "pier_shard_lease_writes_total: the shard Leases of scale-out replicas");

  /**
   * The default deployment: one cluster and {@code conf/pier.yaml} as shipped (the local provider
   * on its default pool, no leader election, no federation, no scale-out). Every panel shows data
   * but {@link #FEDERATION_AND_SCALE_OUT_PANELS}; failure-only panels get data from the same
   * failures as above. Its own API server: the other test leaves Services that only its Pier
   * serves.
   */
  @Test
  void everyPanelButFederationAndScaleOutShowsDataForTheDefaultSingleClusterDeployment(
      @TempDir Path dir) throws Exception {
    Map<String, String> panels = new LinkedHashMap<>(dashboardExpressions());
    assertThat(panels)
        .containsKeys(FEDERATION_AND_SCALE_OUT_PANELS.keySet().toArray(String[]::new));
    panels.keySet().removeAll(FEDERATION_AND_SCALE_OUT_PANELS.keySet());
    try (KubeApiServer kube = KubeApiServer.start()) {
      kube.createReadyNode("node-single", "127.0.0.1", Map.of());
      KubernetesClient client = kube.client();
      String ns = kube.createNamespace("mon-single");
      int nodePort = kube.freeNodePort();
      Map<String, String> env =
          Map.of(PierOptions.CLUSTER_KUBECONFIG.envName(), kube.kubeconfigPath().toString());
      try (TestBackend backend = TestBackend.start("node-single", "127.0.0.1", nodePort);
          InProcessPier pier =
              InProcessPier.startWithConfig(
                  Files.readString(Path.of("conf", "pier.yaml")), env, RefusingProvider::new);
          Prometheus prometheus =
              Prometheus.start(dir, List.of("127.0.0.1:" + pier.pier().adminPort()), List.of())) {
        // A port of its own on the default pool's addresses, which other tests use too.
        int port = FreePorts.take();
        client
            .services()
            .inNamespace(ns)
            .resource(Services.loadBalancer(ns, "ok", port, nodePort))
            .create();
        client
            .services()
            .inNamespace(ns)
            .resource(
                Services.loadBalancer(ns, RefusingProvider.PREFIX + "1", port, kube.freeNodePort()))
            .create();
        causeEventBusFailures(pier.pier().vertx());
        System.gc();
        awaitDataInEvery(prometheus, panels);
      }
    }
  }

  /** Waits until every one of {@code panels} returns data; fails naming those that do not. */
  private static void awaitDataInEvery(Prometheus prometheus, Map<String, String> panels) {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              List<String> empty = new ArrayList<>();
              panels.forEach(
                  (title, expr) -> {
                    if (prometheus.result(expr).isEmpty()) {
                      empty.add(title + ": " + expr);
                    }
                  });
              assertThat(empty).as("panels without data").isEmpty();
            });
  }

  /**
   * A member joined through a Secret whose kubeconfig names a server nobody answers on, with a
   * token (not signed: Pier only reads its expiry) that expires at {@code expiry}.
   */
  private static void joinUnreachableMember(KubernetesClient client, String ns, Instant expiry) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    String token =
        b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8))
            + "."
            + b64.encodeToString(
                ("{\"exp\":" + expiry.getEpochSecond() + "}").getBytes(StandardCharsets.UTF_8))
            + ".c2lnbmF0dXJl";
    String kubeconfig =
        "apiVersion: v1\n"
            + "kind: Config\n"
            + "clusters:\n"
            + "- name: faraway\n"
            + "  cluster:\n"
            + "    server: https://127.0.0.1:9\n"
            + "users:\n"
            + "- name: pier\n"
            + "  user:\n"
            + "    token: "
            + token
            + "\n"
            + "contexts:\n"
            + "- name: faraway\n"
            + "  context:\n"
            + "    cluster: faraway\n"
            + "    user: pier\n"
            + "current-context: faraway\n";
    client
        .secrets()
        .inNamespace(ns)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("member-" + MEMBER)
                .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, MEMBER))
                .endMetadata()
                .withData(
                    Map.of(
                        "kubeconfig",
                        Base64.getEncoder()
                            .encodeToString(kubeconfig.getBytes(StandardCharsets.UTF_8))))
                .build())
        .create();
  }

  @Test
  void anInvalidExpressionIsReportedAsSuch(@TempDir Path dir) {
    try (Prometheus prometheus = Prometheus.start(dir, List.of("127.0.0.1:9"), List.of())) {
      JsonObject answer = prometheus.query("sum by (address (vertx_eventbus_handlers)");
      assertThat(answer.getString("status")).isEqualTo("error");
      assertThat(answer.getString("errorType")).isEqualTo("bad_data");
    }
  }

  /** Every panel target of the dashboard, keyed by panel title and target. */
  static Map<String, String> dashboardExpressions() throws Exception {
    JsonObject dashboard =
        new JsonObject(Files.readString(Manifests.MONITORING_FILES.resolve("pier-dashboard.json")));
    Map<String, String> out = new LinkedHashMap<>();
    for (Object p : dashboard.getJsonArray("panels")) {
      JsonObject panel = (JsonObject) p;
      if ("row".equals(panel.getString("type"))) {
        continue;
      }
      JsonArray targets = panel.getJsonArray("targets");
      assertThat(targets).as(panel.getString("title")).isNotEmpty();
      for (Object t : targets) {
        JsonObject target = (JsonObject) t;
        out.put(
            panel.getString("title") + " [" + target.getString("refId") + "]",
            target.getString("expr"));
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> alertExpressions(Path rules) throws Exception {
    Map<String, Object> doc = new YAMLMapper().readValue(Files.readString(rules), Map.class);
    Map<String, String> out = new LinkedHashMap<>();
    for (Map<String, Object> group : (List<Map<String, Object>>) doc.get("groups")) {
      for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
        out.put((String) rule.get("alert"), (String) rule.get("expr"));
      }
    }
    return out;
  }

  private static List<JsonObject> loadedRules(Prometheus prometheus) {
    List<JsonObject> out = new ArrayList<>();
    for (Object g : prometheus.rules().getJsonObject("data").getJsonArray("groups")) {
      for (Object r : ((JsonObject) g).getJsonArray("rules")) {
        out.add((JsonObject) r);
      }
    }
    return out;
  }

  private static List<String> addresses(JsonArray result) {
    List<String> out = new ArrayList<>();
    for (Object s : result) {
      out.add(((JsonObject) s).getJsonObject("metric").getString("address"));
    }
    return out;
  }

  /** A message discarded by a paused consumer whose buffer is full, and a request nobody takes. */
  private static void causeEventBusFailures(Vertx vertx) {
    MessageConsumer<String> consumer =
        vertx
            .eventBus()
            .consumer(
                new MessageConsumerOptions().setAddress(DISCARD_ADDRESS).setMaxBufferedMessages(1));
    consumer.handler(m -> {});
    consumer.pause();
    for (int i = 0; i < 5; i++) {
      vertx.eventBus().send(DISCARD_ADDRESS, "message " + i);
    }
    vertx.eventBus().request(NOBODY_ADDRESS, "anyone?");
  }

  private static io.fabric8.kubernetes.api.model.Service service(
      String ns, String name, int nodePort) {
    return Services.loadBalancer(ns, name, 8086, nodePort);
  }

  /** A provider double that refuses to ensure load balancers for Services named {@code fail-*}. */
  static final class RefusingProvider extends ForwardingLoadBalancerProvider {
    static final String PREFIX = "fail-";

    RefusingProvider(LoadBalancerProvider delegate) {
      super(delegate);
    }

    @Override
    public Future<EnsureResult> ensureLoadBalancer(
        String clusterName, LbService service, List<LbNode> nodes) {
      if (service.key().name().startsWith(PREFIX)) {
        return Future.failedFuture(new ProviderException.Retry("injected provider failure"));
      }
      return delegate.ensureLoadBalancer(clusterName, service, nodes);
    }
  }
}
