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
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What Pier considers its own on Hetzner: only a load balancer labelled {@code
 * hcloud-ccm/service-uid} with the Service's uid. Naming someone else's load balancer in the name
 * annotation never lets a Service change or delete it.
 */
class HetznerOwnershipTest {
  private static final String TOKEN = "ownership-test-token";
  private static final String TAKEN = "LoadBalancerNameTaken";
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

  private static LbService named(String lbName) {
    return new LbService(
        new ServiceKey("c", "tenant", "svc"),
        UUID.randomUUID().toString(),
        List.of(new LbPort("http", "TCP", 80, 30080)),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(HetznerSpec.NAME, lbName),
        List.of(),
        LbStatus.EMPTY);
  }

  private static List<LbNode> nodes() {
    return List.of(
        new LbNode("n1", "hcloud://1", "10.0.0.1", null, Map.of()),
        new LbNode("n2", "hcloud://2", "10.0.0.2", null, Map.of()));
  }

  /** Every request that could change the load balancer: PUT, DELETE and its actions. */
  private List<String> writesOn(long id) {
    String path = "/v1/load_balancers/" + id;
    return cloud.requests().stream()
        .filter(r -> !r.startsWith("GET "))
        .filter(r -> r.endsWith(" " + path) || r.contains(" " + path + "/"))
        .toList();
  }

  private JsonObject current(long id) {
    return cloud.loadBalancers().stream()
        .filter(l -> l.getLong("id") == id)
        .findFirst()
        .orElse(null);
  }

  @Test
  void anUnlabelledLoadBalancerOfTheNameIsRefusedAndLeftAlone() throws Exception {
    JsonObject foreign = cloud.createDirect("prod-db", Map.of("team", "db"), false);
    long id = foreign.getLong("id");
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options());
    LbService svc = named("prod-db");

    assertThatThrownBy(() -> p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.reason()).isEqualTo(TAKEN);
              assertThat(e.field()).contains(HetznerSpec.NAME);
              assertThat(e.value()).isEqualTo("prod-db");
              assertThat(e.getMessage())
                  .contains(HetznerSpec.NAME)
                  .contains("prod-db")
                  .contains("hcloud-ccm/service-uid")
                  .contains("hetzner.adoptByName");
            });
    // Neither a read nor a host update sees it as the Service's.
    assertThat(p.getLoadBalancer("c", svc).await(30, TimeUnit.SECONDS)).isEmpty();
    assertThatThrownBy(
            () -> p.updateLoadBalancerHosts("c", svc, nodes()).await(30, TimeUnit.SECONDS))
        .isInstanceOf(ProviderException.Retry.class);

    assertThat(writesOn(id)).isEmpty();
    assertThat(current(id)).isEqualTo(foreign);
    assertThat(cloud.loadBalancers()).hasSize(1);
  }

  @Test
  void aLoadBalancerLabelledForAnotherServiceIsRefusedEvenWithAdoptByName() throws Exception {
    JsonObject other =
        cloud.createDirect("shared", Map.of("hcloud-ccm/service-uid", "someone-else"), false);
    long id = other.getLong("id");
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options().setAdoptByName(true));
    LbService svc = named("shared");

    assertThatThrownBy(() -> p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.reason()).isEqualTo(TAKEN);
              assertThat(e.field()).contains(HetznerSpec.NAME);
              assertThat(e.value()).isEqualTo("shared");
              assertThat(e.getMessage()).contains("shared").contains("someone-else");
            });
    assertThat(p.getLoadBalancer("c", svc).await(30, TimeUnit.SECONDS)).isEmpty();
    p.ensureLoadBalancerDeleted("c", svc).await(30, TimeUnit.SECONDS);

    assertThat(writesOn(id)).isEmpty();
    assertThat(current(id)).isEqualTo(other);
  }

  @Test
  void adoptByNameAdoptsAnUnlabelledLoadBalancerAndLabelsIt() throws Exception {
    JsonObject legacy = cloud.createDirect("legacy-web", Map.of("team", "web"), false);
    long id = legacy.getLong("id");
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options().setAdoptByName(true));
    LbService svc = named("legacy-web");

    var result = p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS);
    assertThat(result.status().ingress()).isNotEmpty();
    assertThat(cloud.loadBalancers()).hasSize(1);
    JsonObject adopted = cloud.byServiceUid(svc.uid());
    assertThat(adopted.getLong("id")).isEqualTo(id);
    assertThat(adopted.getJsonObject("labels").getMap())
        .containsEntry("team", "web")
        .containsEntry("pier.dev/cluster", "c")
        .containsEntry("pier.dev/namespace", "tenant")
        .containsEntry("pier.dev/name", "svc");
    assertThat(adopted.getJsonArray("targets")).hasSize(2);

    // Adopted, it is the Service's: it goes with the Service.
    p.ensureLoadBalancerDeleted("c", svc).await(30, TimeUnit.SECONDS);
    assertThat(cloud.loadBalancers()).isEmpty();
  }

  @Test
  void deletingAServiceNamingAnUnlabelledLoadBalancerDeletesNothing() throws Exception {
    // As a ClusterIP Service with Pier's finalizer does: straight to cleanup, no ensure before.
    JsonObject foreign = cloud.createDirect("prod-db", Map.of(), false);
    long id = foreign.getLong("id");
    LbService svc = named("prod-db");

    Providers.initialized(vertx, options())
        .ensureLoadBalancerDeleted("c", svc)
        .await(30, TimeUnit.SECONDS);
    // Adoption by name is for ensures only: a deletion still needs the uid label.
    Providers.initialized(vertx, options().setAdoptByName(true))
        .ensureLoadBalancerDeleted("c", svc)
        .await(30, TimeUnit.SECONDS);

    assertThat(writesOn(id)).isEmpty();
    assertThat(current(id)).isEqualTo(foreign);
  }

  @Test
  void orphanCleanupOffersOnlyLoadBalancersWithAServiceUid() throws Exception {
    cloud.createDirect(
        "clusterlabel-only",
        Map.of("pier.dev/cluster", "c", "pier.dev/cluster-uid", Providers.C.uid()),
        false);
    cloud.createDirect(
        "pier-made",
        Map.of(
            "pier.dev/cluster",
            "c",
            "pier.dev/cluster-uid",
            Providers.C.uid(),
            "hcloud-ccm/service-uid",
            "gone-uid"),
        false);
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options().setOrphanCleanup(true));
    var owned = p.ownedLoadBalancers().orElseThrow().list("c").await(30, TimeUnit.SECONDS);
    assertThat(owned).extracting(o -> o.name()).containsExactly("pier-made");
  }

  @Test
  void renamingToTheNameOfAnotherLoadBalancerIsRefused() throws Exception {
    JsonObject foreign = cloud.createDirect("prod-db", Map.of(), false);
    long id = foreign.getLong("id");
    HetznerLoadBalancerProvider p = Providers.initialized(vertx, options().setAdoptByName(true));
    LbService svc = named("tenant-web");
    p.ensureLoadBalancer("c", svc, nodes()).await(30, TimeUnit.SECONDS);
    long own = cloud.byServiceUid(svc.uid()).getLong("id");
    LbService renamed =
        new LbService(
            svc.key(),
            svc.uid(),
            svc.ports(),
            null,
            "Cluster",
            0,
            "None",
            List.of(),
            Map.of(HetznerSpec.NAME, "prod-db"),
            List.of(),
            LbStatus.EMPTY);

    assertThatThrownBy(
            () -> p.ensureLoadBalancer("c", renamed, nodes()).await(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.reason()).isEqualTo(TAKEN);
              assertThat(e.getMessage()).contains(HetznerSpec.NAME).contains("prod-db");
            });
    assertThat(cloud.byServiceUid(svc.uid()).getLong("id")).isEqualTo(own);
    assertThat(cloud.byServiceUid(svc.uid()).getString("name")).isEqualTo("tenant-web");
    assertThat(writesOn(id)).isEmpty();
    assertThat(current(id)).isEqualTo(foreign);
  }
}
