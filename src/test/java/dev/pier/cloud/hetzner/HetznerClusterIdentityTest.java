package dev.pier.cloud.hetzner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancers;
import dev.pier.cloud.ProviderException;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two clusters with the same name in one Hetzner project: each load balancer carries its cluster's
 * uid ({@code pier.dev/cluster-uid}), each cluster's orphan sweep sees and deletes only its own,
 * and a load balancer marked the old way (cluster name only) is adopted only when its Service
 * exists in the cluster.
 */
class HetznerClusterIdentityTest {
  private static final String TOKEN = "identity-test-token";
  private static final ClusterIdentity A = new ClusterIdentity("kubernetes", "uid-of-cluster-a");
  private static final ClusterIdentity B = new ClusterIdentity("kubernetes", "uid-of-cluster-b");
  private FakeHetznerCloud cloud;
  private Vertx vertx;

  @BeforeEach
  void setUp() {
    cloud = FakeHetznerCloud.start(TOKEN);
    cloud.addServers(1, 2);
    cloud.setActionDuration(Duration.ofMillis(20));
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    cloud.close();
  }

  private HetznerLoadBalancerProvider provider(ClusterIdentity id, List<LbService> services)
      throws Exception {
    HetznerLoadBalancerProvider p =
        new HetznerLoadBalancerProvider(
            vertx,
            new HetznerOptions()
                .setEndpoint(cloud.endpoint())
                .setToken(TOKEN)
                .setOrphanCleanup(true)
                .setActionPollInterval(Duration.ofMillis(10))
                .setRequestTimeout(Duration.ofSeconds(5))
                .setRateLimitMaxWait(Duration.ofSeconds(5)));
    p.initialize(id, services).await(30, TimeUnit.SECONDS);
    return p;
  }

  private static LbService service(String namespace, String name) {
    return new LbService(
        new ServiceKey("kubernetes", namespace, name),
        UUID.randomUUID().toString(),
        List.of(new LbPort("http", "TCP", 80, 30080)),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of(),
        LbStatus.EMPTY);
  }

  private static List<LbNode> nodes() {
    return List.of(new LbNode("n1", "hcloud://1", "10.0.0.1", null, Map.of()));
  }

  /** What the orphan sweeper does: deletes every listed load balancer whose Service is gone. */
  private static int sweep(HetznerLoadBalancerProvider p, Set<String> liveServiceUids)
      throws Exception {
    OwnedLoadBalancers owned = p.ownedLoadBalancers().orElseThrow();
    int deleted = 0;
    for (OwnedLoadBalancer lb : owned.list("kubernetes").await(30, TimeUnit.SECONDS)) {
      if (!liveServiceUids.contains(lb.serviceUid())) {
        owned.delete("kubernetes", lb).await(30, TimeUnit.SECONDS);
        deleted++;
      }
    }
    return deleted;
  }

  private List<String> writesOn(long id) {
    String path = "/v1/load_balancers/" + id;
    return cloud.requests().stream()
        .filter(r -> !r.startsWith("GET "))
        .filter(r -> r.endsWith(" " + path) || r.contains(" " + path + "/"))
        .toList();
  }

  @Test
  void newLoadBalancersCarryTheClusterUid() throws Exception {
    LbService web = service("shop", "web");
    provider(A, List.of())
        .ensureLoadBalancer("kubernetes", web, nodes())
        .await(30, TimeUnit.SECONDS);
    assertThat(cloud.byServiceUid(web.uid()).getJsonObject("labels").getMap())
        .containsEntry("pier.dev/cluster-uid", A.uid())
        .containsEntry("pier.dev/cluster", "kubernetes");
  }

  @Test
  void twoClustersOfOneNameInOneProjectNeverSweepEachOthersLoadBalancers() throws Exception {
    LbService webA = service("shop", "web");
    LbService webB = service("shop", "web");
    HetznerLoadBalancerProvider a = provider(A, List.of());
    HetznerLoadBalancerProvider b = provider(B, List.of());
    a.ensureLoadBalancer("kubernetes", webA, nodes()).await(30, TimeUnit.SECONDS);
    // Both clusters name it shop/web: B's load balancer gets a name of its own.
    LbService webB2 =
        new LbService(
            webB.key(),
            webB.uid(),
            webB.ports(),
            null,
            "Cluster",
            0,
            "None",
            List.of(),
            Map.of(HetznerSpec.NAME, "b-web"),
            List.of(),
            LbStatus.EMPTY);
    b.ensureLoadBalancer("kubernetes", webB2, nodes()).await(30, TimeUnit.SECONDS);
    long idA = cloud.byServiceUid(webA.uid()).getLong("id");
    long idB = cloud.byServiceUid(webB.uid()).getLong("id");

    // Each sees only its own.
    assertThat(a.ownedLoadBalancers().orElseThrow().list("kubernetes").await(30, TimeUnit.SECONDS))
        .extracting(OwnedLoadBalancer::serviceUid)
        .containsExactly(webA.uid());
    assertThat(b.ownedLoadBalancers().orElseThrow().list("kubernetes").await(30, TimeUnit.SECONDS))
        .extracting(OwnedLoadBalancer::serviceUid)
        .containsExactly(webB.uid());

    // A's sweep with A's Service alive deletes nothing; B's with B's alive neither.
    assertThat(sweep(a, Set.of(webA.uid()))).isZero();
    assertThat(sweep(b, Set.of(webB.uid()))).isZero();
    assertThat(cloud.loadBalancers()).hasSize(2);
    assertThat(writesOn(idA)).isEmpty();
    assertThat(writesOn(idB)).isEmpty();

    // A's Service went while A was down: A's sweep deletes A's load balancer, not B's.
    assertThat(sweep(a, Set.of())).isEqualTo(1);
    assertThat(cloud.loadBalancers()).extracting(l -> l.getLong("id")).containsExactly(idB);
    assertThat(writesOn(idB)).isEmpty();
  }

  @Test
  void anOldSchemeLoadBalancerIsAdoptedOnlyWhenItsServiceExistsInTheCluster() throws Exception {
    LbService live = service("shop", "web");
    JsonObject mine =
        cloud.createDirect(
            "old-web",
            Map.of(
                "pier.dev/cluster", "kubernetes",
                "pier.dev/namespace", "shop",
                "pier.dev/name", "web",
                "hcloud-ccm/service-uid", live.uid()),
            false);
    JsonObject unknown =
        cloud.createDirect(
            "old-other",
            Map.of(
                "pier.dev/cluster", "kubernetes",
                "pier.dev/namespace", "shop",
                "pier.dev/name", "gone",
                "hcloud-ccm/service-uid", "a-uid-no-service-here-has"),
            false);
    HetznerLoadBalancerProvider a = provider(A, List.of(live));

    JsonObject adopted = cloud.byServiceUid(live.uid());
    assertThat(adopted.getJsonObject("labels").getMap())
        .containsEntry("pier.dev/cluster-uid", A.uid());
    // The unprovable one is left exactly as it was, and no sweep deletes it.
    assertThat(writesOn(unknown.getLong("id"))).isEmpty();
    assertThat(sweep(a, Set.of(live.uid()))).isZero();
    assertThat(sweep(a, Set.of())).isEqualTo(1);
    assertThat(cloud.loadBalancers())
        .extracting(l -> l.getLong("id"))
        .containsExactly(unknown.getLong("id"));
    assertThat(cloud.loadBalancers().get(0)).isEqualTo(unknown);
    assertThat(mine.getLong("id")).isEqualTo(adopted.getLong("id"));
  }

  @Test
  void aLoadBalancerMarkedForAnotherClusterIsNeverTheServices() throws Exception {
    LbService web = service("shop", "web");
    JsonObject other =
        cloud.createDirect(
            "web-elsewhere",
            Map.of(
                "pier.dev/cluster", "kubernetes",
                "pier.dev/cluster-uid", B.uid(),
                "hcloud-ccm/service-uid", web.uid()),
            false);
    HetznerLoadBalancerProvider a = provider(A, List.of(web));
    assertThat(a.getLoadBalancer("kubernetes", web).await(30, TimeUnit.SECONDS)).isEmpty();
    a.ensureLoadBalancerDeleted("kubernetes", web).await(30, TimeUnit.SECONDS);
    assertThat(writesOn(other.getLong("id"))).isEmpty();
    assertThat(cloud.loadBalancers()).hasSize(1);
  }

  @Test
  void withoutTheClusterIdentityNothingIsCreatedOrListed() {
    HetznerLoadBalancerProvider p =
        new HetznerLoadBalancerProvider(
            vertx,
            new HetznerOptions()
                .setEndpoint(cloud.endpoint())
                .setToken(TOKEN)
                .setOrphanCleanup(true));
    assertThatThrownBy(
            () ->
                p.ensureLoadBalancer("kubernetes", service("shop", "web"), nodes())
                    .await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("identity");
    assertThatThrownBy(
            () ->
                p.ownedLoadBalancers().orElseThrow().list("kubernetes").await(30, TimeUnit.SECONDS))
        .hasMessageContaining("identity");
    assertThat(cloud.loadBalancers()).isEmpty();
  }
}
