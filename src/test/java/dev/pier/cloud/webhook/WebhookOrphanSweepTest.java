package dev.pier.cloud.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Service deleted while Pier was down and without the finalizer leaves its load balancer behind:
 * only Pier's memory knew it. With {@code orphans.cleanup: true}, the next Pier lists what the
 * webhook holds for this cluster and deletes it; the live Service's load balancer stays.
 */
@RealKubeApiServer
class WebhookOrphanSweepTest {
  private static final String TOKEN = "webhook-orphan-token";
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
    kube.createReadyNode("orphan-wh-1", "10.2.0.1", Map.of());
  }

  @AfterAll
  static void tearDown() throws Exception {
    webhook.close();
    Files.deleteIfExists(tokenFile);
  }

  private static JsonObject lbOf(String uid) {
    String clusterUid = client.namespaces().withName("kube-system").get().getMetadata().getUid();
    return webhook.loadBalancers().get(clusterUid + "/" + uid);
  }

  private static InProcessPier startPier(boolean orphanCleanup) {
    return InProcessPier.start(
        kube,
        Map.of(
            PierOptions.PROVIDER.envName(),
            "webhook",
            PierOptions.WEBHOOK_URL.envName(),
            webhook.url(),
            PierOptions.WEBHOOK_TOKEN_FILE.envName(),
            tokenFile.toString(),
            PierOptions.WEBHOOK_RETRY_DELAY.envName(),
            "50ms",
            PierOptions.ORPHANS_CLEANUP.envName(),
            String.valueOf(orphanCleanup),
            PierOptions.ORPHANS_PERIOD.envName(),
            "1s"));
  }

  @Test
  void aLoadBalancerWhoseServiceWasDeletedWhilePierWasDownIsSweptAtTheNextStart() throws Exception {
    String ns = kube.createNamespace("orphan-wh");
    String goneUid;
    String liveUid;
    try (InProcessPier first = startPier(false)) {
      client
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "gone", 80, kube.freeNodePort()))
          .create();
      client
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "live", 80, kube.freeNodePort()))
          .create();
      Services.awaitIngress(client, ns, "gone");
      Services.awaitIngress(client, ns, "live");
      goneUid = client.services().inNamespace(ns).withName("gone").get().getMetadata().getUid();
      liveUid = client.services().inNamespace(ns).withName("live").get().getMetadata().getUid();
    }
    assertThat(lbOf(goneUid)).isNotNull();
    assertThat(lbOf(liveUid)).isNotNull();

    // While Pier is down, the Service loses its finalizer (a user's edit) and is deleted.
    Services.edit(
        client,
        ns,
        "gone",
        s -> {
          s.getMetadata().setFinalizers(List.of());
          return s;
        });
    client.services().inNamespace(ns).withName("gone").delete();
    await()
        .atMost(InProcessPier.CONVERGE)
        .until(() -> client.services().inNamespace(ns).withName("gone").get() == null);
    assertThat(lbOf(goneUid)).as("nothing deleted it while Pier was down").isNotNull();

    try (InProcessPier second = startPier(true)) {
      await().atMost(InProcessPier.CONVERGE).until(() -> lbOf(goneUid) == null);
      assertThat(lbOf(liveUid)).as("the live Service's load balancer stays").isNotNull();
      assertThat(second.pier().metrics().registry().get("pier.orphans.deleted").counter().count())
          .isGreaterThanOrEqualTo(1.0);
      Thread.sleep(2_500);
      assertThat(lbOf(liveUid)).as("and stays across later sweeps").isNotNull();
    }
  }
}
