package dev.pier.cloud.hetzner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.ProviderException;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The provider's API handling against the stand-in, without a cluster. */
class HetznerApiTest {
  private static final String TOKEN = "api-test-token";
  private FakeHetznerCloud cloud;
  private Vertx vertx;

  @BeforeEach
  void setUp() {
    cloud = FakeHetznerCloud.start(TOKEN);
    cloud.addServers(1, 2);
    cloud.setActionDuration(Duration.ofMillis(50));
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    cloud.close();
  }

  private HetznerOptions options() {
    return new HetznerOptions()
        .setEndpoint(cloud.endpoint())
        .setToken(TOKEN)
        .setActionPollInterval(Duration.ofMillis(20))
        .setRequestTimeout(Duration.ofSeconds(5))
        .setRateLimitMaxWait(Duration.ofSeconds(5));
  }

  private static LbService service(Map<String, String> annotations, LbPort... ports) {
    return new LbService(
        new ServiceKey("c", "ns", "svc"),
        UUID.randomUUID().toString(),
        List.of(ports),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        annotations,
        List.of(),
        LbStatus.EMPTY);
  }

  private static List<LbNode> nodes() {
    return List.of(
        new LbNode("n1", "hcloud://1", "10.0.0.1", null, Map.of()),
        new LbNode("n2", "hcloud://2", "10.0.0.2", null, Map.of()),
        new LbNode("n3", "", "10.0.0.3", null, Map.of()));
  }

  @Test
  void rateLimitBurstsDelayTheCallInsteadOfFailingIt() throws Exception {
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options());
    cloud.rateLimitBurst(2);
    LbService svc = service(Map.of(), new LbPort("http", "TCP", 80, 30080));
    var result = p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS);
    assertThat(result.status().ingress()).hasSize(2);
    assertThat(cloud.answered429()).isEqualTo(2);
    // n3 has no hcloud:// provider id: a warning, not a failure.
    assertThat(result.warnings()).anyMatch(w -> w.message().contains("Node n3"));
  }

  @Test
  void aRateLimitLongerThanTheMaxWaitReschedulesWithTheDelay() {
    HetznerLoadBalancerProvider p =
        Providers.initialized(vertx, options().setRateLimitMaxWait(Duration.ZERO));
    cloud.rateLimitBurst(1);
    LbService svc = service(Map.of(), new LbPort("http", "TCP", 80, 30080));
    assertThatThrownBy(() -> p.getLoadBalancer("c", svc).await(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            ProviderException.RetryAfter.class,
            e -> assertThat(e.delay()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(3)));
  }

  @Test
  void listsFollowPagination() throws Exception {
    for (int i = 0; i < 60; i++) {
      cloud.createDirect(
          "lb-" + i,
          Map.of(
              "pier.dev/cluster",
              "c",
              "pier.dev/cluster-uid",
              Providers.C.uid(),
              "hcloud-ccm/service-uid",
              "u" + i),
          false);
    }
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options().setOrphanCleanup(true));
    var owned = p.ownedLoadBalancers().orElseThrow().list("c").await(30, TimeUnit.SECONDS);
    assertThat(owned).hasSize(60);
    assertThat(owned.get(59).serviceUid()).isEqualTo("u59");
  }

  @Test
  void aFailedActionIsRetriedAndTheNextEnsureConverges() throws Exception {
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options());
    LbService svc = service(Map.of(), new LbPort("http", "TCP", 80, 30080));
    p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS);
    LbService more =
        new LbService(
            svc.key(),
            svc.uid(),
            List.of(new LbPort("http", "TCP", 80, 30080), new LbPort("x", "TCP", 81, 30081)),
            null,
            "Cluster",
            0,
            "None",
            List.of(),
            Map.of(),
            List.of(),
            LbStatus.EMPTY);
    cloud.failNextActions(1);
    assertThatThrownBy(() -> p.ensureLoadBalancer("c", more, nodes()).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("add_service");
    p.ensureLoadBalancer("c", more, nodes()).await(30, TimeUnit.SECONDS);
    assertThat(cloud.byServiceUid(svc.uid()).getJsonArray("services")).hasSize(2);
  }

  @Test
  void lockedAndServerErrorsAreRetriesAndAWrongTokenSaysSoWithoutTheToken() {
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options());
    LbService svc = service(Map.of(), new LbPort("http", "TCP", 80, 30080));
    cloud.failNext(1, 423, "locked");
    assertThatThrownBy(() -> p.getLoadBalancer("c", svc).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("locked");
    cloud.failNext(1, 403, "resource_limit_exceeded");
    assertThatThrownBy(() -> p.getLoadBalancer("c", svc).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.RetryAfter.class);
    HetznerLoadBalancerProvider wrong =
        Providers.initialized(vertx, options().setToken("not-the-token"));
    assertThatThrownBy(() -> wrong.getLoadBalancer("c", svc).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("unauthorized")
        .hasMessageNotContaining("not-the-token");
  }

  @Test
  void aNameTakenByAnotherServicesLoadBalancerIsInvalidInput() throws Exception {
    cloud.createDirect("shared", Map.of("hcloud-ccm/service-uid", "someone-else"), false);
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options());
    LbService svc =
        service(Map.of(HetznerSpec.NAME, "shared"), new LbPort("http", "TCP", 80, 30080));
    assertThatThrownBy(() -> p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).contains(HetznerSpec.NAME);
              assertThat(e.value()).isEqualTo("shared");
            });
    // Reads and deletes do not see it: the Service can go, the other load balancer stays.
    assertThat(p.getLoadBalancer("c", svc).await(30, TimeUnit.SECONDS)).isEmpty();
    p.ensureLoadBalancerDeleted("c", svc).await(30, TimeUnit.SECONDS);
    assertThat(cloud.loadBalancers()).hasSize(1);
  }

  @Test
  void adoptsAnHcloudCcmLoadBalancerByItsUidLabel() throws Exception {
    String uid = UUID.randomUUID().toString();
    var existing =
        cloud.createDirect("made-by-hcloud-ccm", Map.of("hcloud-ccm/service-uid", uid), false);
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options());
    LbService svc =
        new LbService(
            new ServiceKey("c", "ns", "svc"),
            uid,
            List.of(new LbPort("http", "TCP", 80, 30080)),
            null,
            "Cluster",
            0,
            "None",
            List.of(),
            Map.of(),
            List.of(),
            LbStatus.EMPTY);
    p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS);
    assertThat(cloud.loadBalancers()).hasSize(1);
    assertThat(cloud.byServiceUid(uid).getLong("id")).isEqualTo(existing.getLong("id"));
    assertThat(cloud.byServiceUid(uid).getJsonObject("labels").getString("pier.dev/cluster"))
        .isEqualTo("c");
  }

  @Test
  void aCreateWhoseAnswerIsLostIsAdoptedNotDuplicated() throws Exception {
    HetznerLoadBalancerProvider p =
        Providers.initialized(vertx, options().setRequestTimeout(Duration.ofMillis(1500)));
    LbService svc = service(Map.of(), new LbPort("http", "TCP", 80, 30080));
    cloud.slowNextMatching("POST /v1/load_balancers", 1, Duration.ofSeconds(4));
    // The create reaches the API, its answer does not reach Pier in time.
    assertThatThrownBy(() -> p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("POST /load_balancers")
        .hasMessageContaining("timeout");
    assertThat(cloud.loadBalancers()).hasSize(1);
    p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS);
    assertThat(cloud.loadBalancers()).hasSize(1);
    p.ensureLoadBalancerDeleted("c", svc).await(30, TimeUnit.SECONDS);
    assertThat(cloud.loadBalancers()).isEmpty();
  }

  @Test
  void theNameAnnotationRenamesAndUnsupportedFieldsWarn() throws Exception {
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options());
    LbService svc = service(Map.of(), new LbPort("http", "TCP", 80, 30080));
    p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS);
    LbService renamed =
        new LbService(
            svc.key(),
            svc.uid(),
            svc.ports(),
            "203.0.113.7",
            "Cluster",
            0,
            "None",
            List.of("10.0.0.0/8"),
            Map.of(HetznerSpec.NAME, "shop-web"),
            List.of(),
            LbStatus.EMPTY);
    var result = p.ensureLoadBalancer("c", renamed, nodes()).await(30, TimeUnit.SECONDS);
    assertThat(cloud.byServiceUid(svc.uid()).getString("name")).isEqualTo("shop-web");
    assertThat(cloud.loadBalancers()).hasSize(1);
    assertThat(result.warnings())
        .extracting(w -> w.reason())
        .contains("LoadBalancerSourceRangesUnsupported", "LoadBalancerIPUnsupported");
  }

  @Test
  void aSpentBudgetDelaysTheNextCallsUntilTheResetWithoutAny429() throws Exception {
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options());
    LbService svc = service(Map.of(), new LbPort("http", "TCP", 80, 30080));
    cloud.exhaustBudget(Duration.ofSeconds(1));
    p.getLoadBalancer("c", svc).await(30, TimeUnit.SECONDS);
    // Calls before RateLimit-Reset would get 429: none did, so the client waited.
    p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS);
    assertThat(cloud.answered429()).isZero();
    assertThat(cloud.byServiceUid(svc.uid())).isNotNull();
  }
}
