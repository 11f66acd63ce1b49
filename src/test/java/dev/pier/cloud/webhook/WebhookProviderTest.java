package dev.pier.cloud.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The whole controller with {@code provider: webhook} against the reference webhook. */
@RealKubeApiServer
class WebhookProviderTest {
  private static final String TOKEN = "webhook-test-token";
  private static KubeApiServer kube;
  private static KubernetesClient client;
  private static ReferenceWebhook webhook;
  private static Path tokenFile;

  @BeforeAll
  static void setUp(KubeApiServer server) throws Exception {
    kube = server;
    client = kube.client();
    webhook = ReferenceWebhook.start(TOKEN);
    tokenFile = Files.createTempFile("webhook-token", ".txt");
    Files.writeString(tokenFile, TOKEN);
    kube.createReadyNode("wh-1", "10.1.0.1", Map.of());
  }

  @AfterAll
  static void tearDown() throws Exception {
    webhook.close();
    Files.deleteIfExists(tokenFile);
  }

  private static String ingressIp(String ns, String name) {
    Service s = client.services().inNamespace(ns).withName(name).get();
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return null;
    }
    var ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null || ingress.isEmpty() ? null : ingress.get(0).getIp();
  }

  private static JsonObject lbOf(String uid) {
    // The reference webhook keys its state by the cluster's identity: the uid of kube-system.
    String clusterUid = client.namespaces().withName("kube-system").get().getMetadata().getUid();
    return webhook.loadBalancers().get(clusterUid + "/" + uid);
  }

  @Test
  void lifecycleWithBusyAndFailingWebhook() {
    String ns = kube.createNamespace("wh");
    try (InProcessPier pier =
        InProcessPier.start(
            kube,
            Map.of(
                PierOptions.PROVIDER.envName(), "webhook",
                PierOptions.WEBHOOK_URL.envName(), webhook.url(),
                PierOptions.WEBHOOK_TOKEN_FILE.envName(), tokenFile.toString(),
                PierOptions.WEBHOOK_RETRY_DELAY.envName(), "50ms",
                PierOptions.WEBHOOK_TIMEOUT.envName(), "2s"))) {
      webhook.busyNext(2, 1);
      webhook.failNext(0);
      Service svc =
          new ServiceBuilder()
              .withNewMetadata()
              .withNamespace(ns)
              .withName("web")
              .endMetadata()
              .withNewSpec()
              .withType("LoadBalancer")
              .addNewPort()
              .withName("http")
              .withProtocol("TCP")
              .withPort(80)
              .endPort()
              .endSpec()
              .build();
      client.services().inNamespace(ns).resource(svc).create();
      String uid = client.services().inNamespace(ns).withName("web").get().getMetadata().getUid();
      await().atMost(InProcessPier.CONVERGE).until(() -> ingressIp(ns, "web") != null);
      assertThat(ingressIp(ns, "web")).isEqualTo(lbOf(uid).getString("ip"));
      assertThat(lbOf(uid).getJsonArray("nodes").getList()).contains("wh-1");

      // 500s are retried inside the call; the node change still lands.
      webhook.failNext(2);
      kube.createReadyNode("wh-2", "10.1.0.2", Map.of());
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> lbOf(uid).getJsonArray("nodes").getList().contains("wh-2"));

      client.services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).withName("web").get() == null);
      assertThat(lbOf(uid)).isNull();
    }
  }

  private static Service webService(String ns, String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }

  private static List<String> reasons(String ns, String name) {
    return Services.events(client, ns, name).stream().map(e -> e.getReason()).toList();
  }

  @Test
  void aRefusedDeletionKeepsTheServiceUntilItSucceedsOrIsAbandoned() throws Exception {
    String ns = kube.createNamespace("whrefuse");
    try (InProcessPier pier =
        InProcessPier.start(
            kube,
            Map.of(
                PierOptions.PROVIDER.envName(),
                "webhook",
                PierOptions.WEBHOOK_URL.envName(),
                webhook.url(),
                PierOptions.WEBHOOK_TOKEN_FILE.envName(),
                tokenFile.toString(),
                PierOptions.WEBHOOK_RETRY_DELAY.envName(),
                "50ms"))) {
      for (String name : List.of("kept", "abandoned")) {
        client.services().inNamespace(ns).resource(webService(ns, name)).create();
        await().atMost(InProcessPier.CONVERGE).until(() -> ingressIp(ns, name) != null);
      }
      String keptUid =
          client.services().inNamespace(ns).withName("kept").get().getMetadata().getUid();
      String abandonedUid =
          client.services().inNamespace(ns).withName("abandoned").get().getMetadata().getUid();
      webhook.refuseDeletes(true);
      client.services().inNamespace(ns).withName("kept").delete();
      client.services().inNamespace(ns).withName("abandoned").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> reasons(ns, "kept").contains("DeleteLoadBalancerFailed"));
      Thread.sleep(2_000);
      assertThat(client.services().inNamespace(ns).withName("kept").get()).isNotNull();
      assertThat(lbOf(keptUid)).isNotNull();

      // The operator gives up on one load balancer: that Service goes, its load balancer stays.
      Services.edit(
          client,
          ns,
          "abandoned",
          s ->
              new ServiceBuilder(s)
                  .editMetadata()
                  .addToAnnotations("pier.dev/abandon-load-balancer", "true")
                  .endMetadata()
                  .build());
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).withName("abandoned").get() == null);
      assertThat(lbOf(abandonedUid)).isNotNull();

      // The backend accepts again: the retry deletes the other one and releases its Service.
      webhook.refuseDeletes(false);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).withName("kept").get() == null);
      assertThat(lbOf(keptUid)).isNull();
    } finally {
      webhook.refuseDeletes(false);
    }
  }

  @Test
  void aLoadBalancerDeletedOutOfBandIsRepairedByTheVerification() {
    String ns = kube.createNamespace("whdrift");
    try (InProcessPier pier =
        InProcessPier.start(
            kube,
            Map.of(
                PierOptions.PROVIDER.envName(),
                "webhook",
                PierOptions.WEBHOOK_URL.envName(),
                webhook.url(),
                PierOptions.WEBHOOK_TOKEN_FILE.envName(),
                tokenFile.toString(),
                PierOptions.RECONCILE_VERIFY_PERIOD.envName(),
                "2s"))) {
      client.services().inNamespace(ns).resource(webService(ns, "drift")).create();
      await().atMost(InProcessPier.CONVERGE).until(() -> ingressIp(ns, "drift") != null);
      String uid = client.services().inNamespace(ns).withName("drift").get().getMetadata().getUid();

      String clusterUid = client.namespaces().withName("kube-system").get().getMetadata().getUid();
      webhook.deleteOutOfBand(clusterUid + "/" + uid);

      await().atMost(InProcessPier.CONVERGE).until(() -> lbOf(uid) != null);
      assertThat(ingressIp(ns, "drift")).isEqualTo(lbOf(uid).getString("ip"));
      // The reference webhook implements verify: the Warning carries what it repaired.
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  Services.events(client, ns, "drift").stream()
                      .anyMatch(
                          e ->
                              "RepairedLoadBalancer".equals(e.getReason())
                                  && e.getMessage().contains("was missing; recreated it")));
      assertThat(webhook.operations()).contains("verify");
    }
  }
}
