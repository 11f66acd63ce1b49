package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.federation.members.MemberSecrets;
import dev.pier.model.FederationKeys;
import dev.pier.reconcile.ReconcileOptions;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.HoldingHttpServer;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.micrometer.core.instrument.Gauge;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One member whose cloud never answers cannot delay another cluster's Services: the host runs its
 * own load balancers, and two members joined through Secrets run theirs with webhook providers, one
 * of which holds every request. With the shipped 200 slots and 300 Services in the hung member, a
 * new Service in the host and one in the other member still get their load balancers within 10 s.
 */
@RealKubeApiServer
class HungMemberShareTest {
  private static final Duration CONVERGE = InProcessPier.CONVERGE;
  private static final Duration PROMISED = Duration.ofSeconds(10);
  private static final String TOKEN = "member-provider-token-3b9a";
  private static final int SLOTS = ReconcileOptions.DEFAULT_CONCURRENCY;
  private static final int HUNG_SERVICES = 300;
  // What the hung member may hold: 3 clusters share 200 slots, each keeping a floor of 4 free.
  private static final int SHARE = SLOTS - 2 * ReconcileOptions.DEFAULT_CLUSTER_FLOOR;
  // Its provider sends no more than its ceiling of connections at once; the rest of its runs wait.
  private static final int SENT =
      PierOptions.FEDERATION_MEMBER_CEILINGS_MAX_CONNECTIONS.defaultValue();

  private static KubeApiServer host;
  private static KubeApiServer west;
  private static KubeApiServer slow;
  private static ReferenceWebhook cloud;
  private static HoldingHttpServer silent;

  @BeforeAll
  static void setUp(KubeApiServer server) throws Exception {
    host = server;
    host.createReadyNode("host-1", "127.0.0.1", Map.of());
    west = FederatedServices.memberWithNode(host, "west-1");
    slow = KubeApiServer.start();
    slow.createReadyNode("slow-1", "127.0.0.1", Map.of());
    cloud = ReferenceWebhook.start(TOKEN);
    silent =
        HoldingHttpServer.start(
            Duration.ofHours(1), Integer.MAX_VALUE, 200, "application/json", "{}");
  }

  @AfterAll
  static void tearDown() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {west, slow, cloud, silent}) {
      if (c != null) {
        c.close();
      }
    }
  }

  private static Secret memberSecret(String name, KubeApiServer member, String webhookUrl) {
    String settings =
        new JsonObject()
            .put("provider", "webhook")
            .put("webhook.url", webhookUrl)
            .put("webhook.timeout", "30s")
            .encode();
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace("pier")
        .withName("member-" + name)
        .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, name))
        .withAnnotations(Map.of(MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION, settings))
        .endMetadata()
        .withStringData(
            Map.of(
                MemberSecrets.KUBECONFIG_KEY,
                member.selfContainedKubeconfig(),
                MemberSecrets.PROVIDER_TOKEN_KEY,
                TOKEN))
        .build();
  }

  private static double heldForShare(InProcessPier pier, String cluster) {
    Gauge gauge =
        pier.pier()
            .metrics()
            .registry()
            .find("pier.queue.held.for.share")
            .tag("cluster", cluster)
            .gauge();
    return gauge == null ? -1 : gauge.value();
  }

  private static double queueDepth(InProcessPier pier) {
    return pier.pier().metrics().registry().find("pier.queue.depth").gauge().value();
  }

  @Test
  void aMemberWhoseCloudNeverAnswersDelaysNoOtherClustersLoadBalancer() {
    String config =
        FederationConfig.host(host.kubeconfigPath())
            .pool("127.232.5.0/28")
            .health("500ms", "400ms")
            .yaml();
    // The members' clouds are local stand-ins.
    Map<String, String> env =
        Map.of(PierOptions.FEDERATION_MEMBER_EGRESS_ALLOW.envName(), "127.0.0.0/8");
    try (InProcessPier pier = InProcessPier.startWithConfig(config, env)) {
      host.client()
          .resource(memberSecret("west", west, cloud.url().replace("//localhost:", "//127.0.0.1:")))
          .create();
      host.client().resource(memberSecret("slow", slow, silent.url())).create();
      // West has joined and its provider works.
      String westNs = west.createNamespace("share");
      west.client()
          .resource(Services.loadBalancer(westNs, "warm", 8080, west.freeNodePort()))
          .create();
      await()
          .atMost(CONVERGE)
          .until(() -> Services.ingressIp(west.client(), westNs, "warm") != null);

      // The hung member's Services take every slot they may: 3 clusters share 200 slots with a
      // floor of 4 each, so it holds 192 and its other keys wait.
      String slowNs = slow.createNamespace("share");
      for (int i = 0; i < HUNG_SERVICES; i++) {
        slow.client()
            .resource(Services.loadBalancer(slowNs, "svc-" + i, 8080, slow.freeNodePort()))
            .create();
      }
      await().atMost(CONVERGE).until(() -> silent.received() >= SENT);
      await().atMost(CONVERGE).until(() -> queueDepth(pier) >= HUNG_SERVICES - SLOTS);

      String hostNs = host.createNamespace("share");
      host.client()
          .resource(Services.loadBalancer(hostNs, "web", 8080, host.freeNodePort()))
          .create();
      west.client()
          .resource(Services.loadBalancer(westNs, "api", 8080, west.freeNodePort()))
          .create();
      await()
          .atMost(PROMISED)
          .until(
              () ->
                  Services.ingressIp(host.client(), hostNs, "web") != null
                      && Services.ingressIp(west.client(), westNs, "api") != null);
      // The hung member's other keys wait for its share, as the metric shows.
      assertThat(heldForShare(pier, "slow")).isGreaterThanOrEqualTo(HUNG_SERVICES - SHARE);
    }
  }
}
