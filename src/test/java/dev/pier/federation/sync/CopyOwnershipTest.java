package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.federation.MemberServices;
import dev.pier.model.FederationKeys;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A member Service is Pier's copy only if Pier made it, on real API servers: a host and two
 * members, east, where nothing of Pier's serves load balancers (a tenant's controller or a cloud
 * writes the addresses), and west, with Pier's local load balancer. A tenant who may create
 * Services in a member namespace, and gives one the federation's marks, gets neither its address
 * into the host Service nor its Service touched; a copy made by the earlier version, which kept no
 * record, is adopted once.
 */
@RealKubeApiServer
class CopyOwnershipTest {
  private static final Duration CONVERGE = InProcessPier.CONVERGE;
  private static final String WEST_POOL = "127.241.7.0/28";
  private static final String TENANTS_IP = "203.0.113.66";

  private static KubeApiServer host;
  private static KubeApiServer east;
  private static KubeApiServer west;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    host = server;
    east = KubeApiServer.start();
    west = KubeApiServer.start();
    west.createReadyNode(
        "west-1",
        "127.0.0.1",
        Map.of("topology.kubernetes.io/region", "us", "topology.kubernetes.io/zone", "us-a"));
  }

  @AfterAll
  static void tearDown() {
    if (east != null) {
      east.close();
    }
    if (west != null) {
      west.close();
    }
  }

  private static InProcessPier startPier() {
    String config =
        FederationConfig.host(host.kubeconfigPath())
            .loadBalancers(false)
            .member("east", east.kubeconfigPath())
            .loadBalancers(false)
            .member("west", west.kubeconfigPath())
            .pool(WEST_POOL)
            .health("500ms", "400ms")
            .yaml();
    return InProcessPier.startWithConfig(config, Map.of());
  }

  /** A host namespace opted in to the federation, and the same namespace in east. */
  private static String namespace(String prefix) {
    String ns = host.createNamespace(prefix);
    FederatedServices.optIn(host.client(), ns);
    east.client()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    return ns;
  }

  private static String hostClusterUid() {
    return host.client().namespaces().withName("kube-system").get().getMetadata().getUid();
  }

  /** Writes {@code ip} as the Service's load balancer, as a controller in the member would. */
  private static Service served(KubeApiServer member, Service svc, String ip) {
    return member
        .client()
        .services()
        .inNamespace(svc.getMetadata().getNamespace())
        .resource(
            new ServiceBuilder(svc)
                .withNewStatus()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp(ip)
                .endIngress()
                .endLoadBalancer()
                .endStatus()
                .build())
        .updateStatus();
  }

  private static Service hostService(String ns) {
    return host.client().services().inNamespace(ns).withName("web").get();
  }

  private static Service copy(KubeApiServer member, String ns) {
    return member.client().services().inNamespace(ns).withName("web").get();
  }

  private static List<String> hostIngress(String ns) {
    Service s = hostService(ns);
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return List.of();
    }
    return s.getStatus().getLoadBalancer().getIngress().stream().map(i -> i.getIp()).toList();
  }

  /** The host Service's record of its copies, or null. */
  private static JsonObject record(String ns) {
    Service s = hostService(ns);
    Map<String, String> a = s == null ? null : s.getMetadata().getAnnotations();
    String json = a == null ? null : a.get(FederationKeys.COPY_UIDS_ANNOTATION);
    return json == null ? null : new JsonObject(json);
  }

  /**
   * Before the host Service is federated, a tenant of member namespace {@code ns} in east makes
   * {@code ns/web} with the federation's marks (the host's uid can be read off any copy) and a load
   * balancer of its own. Pier finds it, says so, and never takes it: its address is in no version
   * of the host Service, and the tenant's Service is never written, not even when the federated
   * Service is deleted.
   */
  @Test
  void aMarkedServiceATenantMadeIsNeverBelievedNorTouched() {
    String ns = namespace("fed-forged");
    Service tenants =
        east.client()
            .resource(
                new ServiceBuilder(Services.loadBalancer(ns, "web", 80, 0))
                    .editMetadata()
                    .addToLabels(FederationKeys.FEDERATION_LABEL, FederatedServices.FEDERATION)
                    .addToAnnotations(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, hostClusterUid())
                    .endMetadata()
                    .editSpec()
                    .editFirstPort()
                    .withNodePort(null)
                    .endPort()
                    .endSpec()
                    .build())
            .create();
    String version = served(east, tenants, TENANTS_IP).getMetadata().getResourceVersion();

    // Every version of the host Service, from its creation on.
    List<Service> seen = new CopyOnWriteArrayList<>();
    try (InProcessPier pier = startPier();
        Watch watch = host.client().services().inNamespace(ns).watch(collect(seen))) {
      Service web =
          host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();

      // Pier's proof that it saw the tenant's Service and would not take it.
      Event conflict = PierSaw.event(host.client(), web, CONVERGE, "FederatedServiceConflict");
      assertThat(conflict.getType()).isEqualTo("Warning");
      assertThat(conflict.getMessage())
          .contains("Cluster east")
          .contains("Service " + ns + "/web")
          .contains("federation's marks");
      // West's copy, which Pier made, is aggregated: the aggregate runs with east's cache read.
      String westIp = Services.awaitIngress(west.client(), ns, "web");
      await().atMost(CONVERGE).until(() -> hostIngress(ns).contains(westIp));
      Instant until = Instant.now().plusSeconds(5);
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                assertThat(hostIngress(ns)).containsExactly(westIp);
                return Instant.now().isAfter(until);
              });
      assertThat(record(ns).fieldNames())
          .as("the record names Pier's copy in west only")
          .containsExactly("west");
      assertThat(record(ns).getString("west")).isEqualTo(copy(west, ns).getMetadata().getUid());

      // Deleting the federated Service deletes west's copy and leaves the tenant's alone.
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> hostService(ns) == null);
      assertThat(copy(west, ns)).isNull();
      assertThat(seen).as("versions of the host Service watched").isNotEmpty();
      for (Service s : seen) {
        assertThat(Objects.toString(s.getStatus()) + s.getMetadata().getAnnotations())
            .as("host Service at resourceVersion %s", s.getMetadata().getResourceVersion())
            .doesNotContain(TENANTS_IP);
      }
      assertThat(copy(east, ns).getMetadata().getResourceVersion())
          .as("the tenant's Service, never written")
          .isEqualTo(version);
    }
  }

  /**
   * Upgrade: the earlier version federated {@code web} (its finalizer is on the host Service) and
   * made its copy in east, without a record. This version records that copy's uid once, and goes on
   * keeping it; a copy Pier makes again later is recorded by its new uid.
   */
  @Test
  void aCopyTheEarlierVersionMadeIsAdoptedOnceAndKeepsWorking() {
    String ns = namespace("fed-earlier");
    Service web =
        host.client()
            .resource(
                new ServiceBuilder(
                        FederatedServices.federated(
                            ns, "web", Map.of(FederationKeys.CLUSTERS_ANNOTATION, "east")))
                    .editMetadata()
                    .addToFinalizers(FederationKeys.FINALIZER)
                    .endMetadata()
                    .build())
            .create();
    Service earlier =
        east.client()
            .resource(
                MemberServices.desired(
                    web,
                    FederatedServices.FEDERATION,
                    hostClusterUid(),
                    web.getMetadata().getUid()))
            .create();
    served(east, earlier, "192.0.2.77");
    String uid = earlier.getMetadata().getUid();

    try (InProcessPier pier = startPier()) {
      await().atMost(CONVERGE).until(() -> new JsonObject().put("east", uid).equals(record(ns)));
      await().atMost(CONVERGE).until(() -> hostIngress(ns).equals(List.of("192.0.2.77")));

      // Pier's copy: a change on the host reaches it, in place.
      Services.edit(
          host.client(),
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editMetadata()
                  .addToLabels("version", "2")
                  .endMetadata()
                  .build());
      await()
          .atMost(CONVERGE)
          .until(() -> "2".equals(copy(east, ns).getMetadata().getLabels().get("version")));
      assertThat(copy(east, ns).getMetadata().getUid()).isEqualTo(uid);

      // Deleted in the member, made again by Pier: the record follows to the new uid.
      east.client().services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(CONVERGE)
          .until(
              () -> copy(east, ns) != null && !uid.equals(copy(east, ns).getMetadata().getUid()));
      String again = copy(east, ns).getMetadata().getUid();
      await().atMost(CONVERGE).until(() -> new JsonObject().put("east", again).equals(record(ns)));

      // Deleting the federated Service deletes the copy Pier owns, then lets the Service go.
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(east, ns) == null && hostService(ns) == null);
    }
  }

  private static Watcher<Service> collect(List<Service> seen) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, Service s) {
        seen.add(s);
      }

      @Override
      public void onClose(WatcherException cause) {}
    };
  }
}
