package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.config.Option;
import dev.pier.policy.ServiceFilter;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole LoadBalancer life cycle against a real API server, with real traffic through the local
 * provider's load balancer to a backend on the Service's nodePort.
 */
@RealKubeApiServer
class LoadBalancerLifecycleTest {
  private static final Logger log = LoggerFactory.getLogger(LoadBalancerLifecycleTest.class);
  private static final String POOL = "127.242.0.0/24";

  private static KubeApiServer kube;
  private static KubernetesClient client;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    kube = server;
    client = kube.client();
    kube.createReadyNode("node-a", "127.0.0.1", Map.of());
  }

  private static InProcessPier startPier() {
    return InProcessPier.start(kube, Map.of(PierOptions.LOCAL_POOLS.envName(), POOL));
  }

  /** Pier on the test pool with one more option set. */
  private static InProcessPier startPier(Option<?> option, String value) {
    return InProcessPier.start(
        kube, Map.of(PierOptions.LOCAL_POOLS.envName(), POOL, option.envName(), value));
  }

  private static Service lbService(String ns, String name, int port, int nodePort) {
    return Services.loadBalancer(ns, name, port, nodePort);
  }

  private static String ingressIp(String ns, String name) {
    return Services.ingressIp(client, ns, name);
  }

  private static String awaitIngress(String ns, String name) {
    return Services.awaitIngress(client, ns, name);
  }

  private static List<String> eventReasons(String ns, String name) {
    return Services.events(client, ns, name).stream().map(Event::getReason).toList();
  }

  @Test
  void serviceGetsAnAddressServesTrafficFollowsPortsAndIsCleanedUp() {
    String ns = kube.createNamespace("life");
    int nodePort = kube.freeNodePort();
    try (TestBackend backend = TestBackend.start("node-a", "127.0.0.1", nodePort);
        InProcessPier pier = startPier()) {
      long created = System.nanoTime();
      client.services().inNamespace(ns).resource(lbService(ns, "web", 8080, nodePort)).create();
      String ip = awaitIngress(ns, "web");
      log.info("Service creation to ingress: {} ms", (System.nanoTime() - created) / 1_000_000);
      assertThat(ip).startsWith("127.242.0.");

      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ip, 8080), "").contains("hello from node-a"));
      assertThat(backend.requestCount()).isPositive();
      Service svc = client.services().inNamespace(ns).withName("web").get();
      assertThat(svc.getMetadata().getFinalizers()).contains(ServiceFilter.LB_CLEANUP_FINALIZER);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  eventReasons(ns, "web")
                      .containsAll(List.of("EnsuringLoadBalancer", "EnsuredLoadBalancer")));
      // kubectl describe shows source.component: "pier" tells Pier's Events apart from those of
      // the upstream service controller ("service-controller") when both run.
      assertThat(Services.events(client, ns, "web"))
          .allSatisfy(
              e -> {
                assertThat(e.getSource().getComponent()).isEqualTo("pier");
                assertThat(e.getReportingComponent()).isEqualTo("pier.dev/service-controller");
              });

      // Change the port: the listener follows.
      Services.edit(
          client,
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editSpec()
                  .editFirstPort()
                  .withPort(9090)
                  .endPort()
                  .endSpec()
                  .build());
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ip, 9090), "").contains("hello from node-a"));
      await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.refused(ip, 8080));
      assertThat(ingressIp(ns, "web")).isEqualTo(ip);

      // Type ClusterIP: load balancer, status and finalizer go.
      Services.edit(
          client,
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editSpec()
                  .withType("ClusterIP")
                  .editFirstPort()
                  .withNodePort(null)
                  .endPort()
                  .endSpec()
                  .build());
      await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.refused(ip, 9090));
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () -> {
                Service s = client.services().inNamespace(ns).withName("web").get();
                return ingressIp(ns, "web") == null
                    && (s.getMetadata().getFinalizers() == null
                        || !s.getMetadata()
                            .getFinalizers()
                            .contains(ServiceFilter.LB_CLEANUP_FINALIZER));
              });
      assertThat(eventReasons(ns, "web")).contains("DeletingLoadBalancer", "DeletedLoadBalancer");

      // Back to LoadBalancer, then delete: the finalizer holds the object until Pier cleaned up.
      Services.edit(
          client,
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editSpec()
                  .withType("LoadBalancer")
                  .editFirstPort()
                  .withNodePort(nodePort)
                  .endPort()
                  .endSpec()
                  .build());
      String again = awaitIngress(ns, "web");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(again, 9090), "").contains("hello"));
      client.services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).withName("web").get() == null);
      assertThat(Traffic.refused(again, 9090)).isTrue();
    }
  }

  /**
   * The local provider answers {@code ipMode: Proxy}, which the 1.20 server drops: verification
   * must not take that for drift (it used to "repair" every Service, with a Warning, every round).
   * A real difference, an ingress changed out of band, gets exactly one repair naming the field.
   */
  @Test
  void verificationRepairsOnlyRealDriftAndSaysWhatItWas() {
    String ns = kube.createNamespace("verify");
    List<String> names = List.of("a", "b", "c");
    try (InProcessPier pier = startPier(PierOptions.RECONCILE_VERIFY_PERIOD, "1s")) {
      Map<String, String> ips = new HashMap<>();
      for (String name : names) {
        client
            .services()
            .inNamespace(ns)
            .resource(lbService(ns, name, 8080, kube.freeNodePort()))
            .create();
      }
      for (String name : names) {
        ips.put(name, awaitIngress(ns, name));
      }
      // Several rounds over all three, proven by the provider's verify calls.
      double before = pier.providerCalls("verify");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> pier.providerCalls("verify") >= before + 3 * names.size());
      for (String name : names) {
        assertThat(Services.eventCount(client, ns, name, "RepairedLoadBalancer"))
            .as("false repairs of %s", name)
            .isZero();
      }

      // Out of band: b's ingress shows another address.
      client
          .services()
          .inNamespace(ns)
          .withName("b")
          .editStatus(
              s -> {
                s.getStatus().getLoadBalancer().getIngress().get(0).setIp("127.242.0.250");
                return s;
              });
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Services.eventCount(client, ns, "b", "RepairedLoadBalancer") == 1);
      await().atMost(InProcessPier.CONVERGE).until(() -> ips.get("b").equals(ingressIp(ns, "b")));
      double repaired = pier.providerCalls("verify");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> pier.providerCalls("verify") >= repaired + 2 * names.size());
      assertThat(Services.eventCount(client, ns, "b", "RepairedLoadBalancer")).isEqualTo(1);
      assertThat(
              Services.events(client, ns, "b").stream()
                  .filter(e -> "RepairedLoadBalancer".equals(e.getReason()))
                  .findFirst()
                  .orElseThrow()
                  .getMessage())
          .contains(
              "status.loadBalancer.ingress[0].ip: expected "
                  + ips.get("b")
                  + ", found 127.242.0.250");
      assertThat(Services.eventCount(client, ns, "a", "RepairedLoadBalancer")).isZero();
      assertThat(Services.eventCount(client, ns, "c", "RepairedLoadBalancer")).isZero();
    }
  }

  @Test
  void restartKeepsEveryAddressAndLeaksNothing() {
    String ns = kube.createNamespace("restart");
    int portA = kube.freeNodePort();
    int portB = kube.freeNodePort();
    try (TestBackend a = TestBackend.start("node-a", "127.0.0.1", portA);
        TestBackend b = TestBackend.start("node-a", "127.0.0.1", portB)) {
      String ipA;
      String ipB;
      try (InProcessPier pier = startPier()) {
        client.services().inNamespace(ns).resource(lbService(ns, "a", 8081, portA)).create();
        client.services().inNamespace(ns).resource(lbService(ns, "b", 8081, portB)).create();
        ipA = awaitIngress(ns, "a");
        ipB = awaitIngress(ns, "b");
        assertThat(ipA).isNotEqualTo(ipB);
      }
      // Pier is down: its listeners are gone with it.
      assertThat(Traffic.refused(ipA, 8081)).isTrue();
      // A Service created while Pier is down must not take A's or B's address after the restart.
      int portC = kube.freeNodePort();
      client.services().inNamespace(ns).resource(lbService(ns, "c", 8081, portC)).create();
      try (TestBackend c = TestBackend.start("node-a", "127.0.0.1", portC);
          InProcessPier pier = startPier()) {
        String ipC = awaitIngress(ns, "c");
        assertThat(ipC).isNotIn(ipA, ipB);
        assertThat(ingressIp(ns, "a")).isEqualTo(ipA);
        assertThat(ingressIp(ns, "b")).isEqualTo(ipB);
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> Objects.toString(Traffic.get(ipA, 8081), "").contains("hello"));
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> Objects.toString(Traffic.get(ipC, 8081), "").contains("hello"));

        for (String name : List.of("a", "b", "c")) {
          client.services().inNamespace(ns).withName(name).delete();
        }
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> client.services().inNamespace(ns).list().getItems().isEmpty());
        for (String ip : List.of(ipA, ipB, ipC)) {
          assertThat(Traffic.refused(ip, 8081)).as(ip).isTrue();
        }
      }
    }
  }

  @Test
  void anAddressOutsideThePoolsIsAWarningThatLeavesOthersAlone() {
    String ns = kube.createNamespace("badip");
    int port = kube.freeNodePort();
    try (TestBackend backend = TestBackend.start("node-a", "127.0.0.1", port);
        InProcessPier pier = startPier()) {
      Service bad =
          new ServiceBuilder(lbService(ns, "bad", 8082, kube.freeNodePort()))
              .editSpec()
              .withLoadBalancerIP("10.99.0.1")
              .endSpec()
              .build();
      client.services().inNamespace(ns).resource(bad).create();
      client.services().inNamespace(ns).resource(lbService(ns, "good", 8082, port)).create();
      String ip = awaitIngress(ns, "good");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  client.v1().events().inNamespace(ns).list().getItems().stream()
                      .anyMatch(
                          e ->
                              "bad".equals(e.getInvolvedObject().getName())
                                  && "Warning".equals(e.getType())
                                  && e.getMessage().contains("10.99.0.1")));
      assertThat(ingressIp(ns, "bad")).isNull();
      assertThat(Traffic.get(ip, 8082)).contains("hello");
      client.services().inNamespace(ns).withName("bad").delete();
      client.services().inNamespace(ns).withName("good").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).list().getItems().isEmpty());
    }
  }

  @Test
  void aServiceDeletedWithoutTheFinalizerStillLosesItsLoadBalancer() {
    String ns = kube.createNamespace("nofin");
    int port = kube.freeNodePort();
    try (TestBackend backend = TestBackend.start("node-a", "127.0.0.1", port);
        InProcessPier pier = startPier()) {
      client.services().inNamespace(ns).resource(lbService(ns, "old", 8083, port)).create();
      String ip = awaitIngress(ns, "old");
      await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.get(ip, 8083) != null);
      // As if the Service predated Pier: no finalizer when it is deleted.
      Services.edit(
          client,
          ns,
          "old",
          s ->
              new ServiceBuilder(s).editMetadata().withFinalizers(List.of()).endMetadata().build());
      client.services().inNamespace(ns).withName("old").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.refused(ip, 8083));
    }
  }

  @Test
  void aClusterWhoseDefaultControllerIsAnotherLeavesClasslessServicesAlone() throws Exception {
    String ns = kube.createNamespace("notdefault");
    try (InProcessPier pier = startPier(PierOptions.SERVE_SERVICES_WITHOUT_CLASS, "false")) {
      client.services().inNamespace(ns).resource(lbService(ns, "theirs", 80, 30991)).create();
      // The cluster's default controller answers.
      client
          .services()
          .inNamespace(ns)
          .withName("theirs")
          .editStatus(
              s ->
                  new io.fabric8.kubernetes.api.model.ServiceBuilder(s)
                      .withNewStatus()
                      .withNewLoadBalancer()
                      .addNewIngress()
                      .withIp("192.0.2.10")
                      .endIngress()
                      .endLoadBalancer()
                      .endStatus()
                      .build());
      Thread.sleep(3_000);
      Service svc = client.services().inNamespace(ns).withName("theirs").get();
      assertThat(ingressIp(ns, "theirs")).isEqualTo("192.0.2.10");
      assertThat(svc.getMetadata().getFinalizers()).isNullOrEmpty();
      assertThat(eventReasons(ns, "theirs")).isEmpty();
    }
  }

  @Test
  void aServiceWhoseFinalizerWasStrippedStillLosesItsLoadBalancerWhenItBecomesClusterIp() {
    String ns = kube.createNamespace("stripped");
    int port = kube.freeNodePort();
    try (TestBackend backend = TestBackend.start("node-a", "127.0.0.1", port);
        InProcessPier pier = startPier()) {
      client.services().inNamespace(ns).resource(lbService(ns, "web", 8084, port)).create();
      String ip = awaitIngress(ns, "web");
      await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.get(ip, 8084) != null);
      Services.edit(
          client,
          ns,
          "web",
          s ->
              new ServiceBuilder(s).editMetadata().withFinalizers(List.of()).endMetadata().build());
      Services.edit(
          client,
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editSpec()
                  .withType("ClusterIP")
                  .editFirstPort()
                  .withNodePort(null)
                  .endPort()
                  .endSpec()
                  .build());
      await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.refused(ip, 8084));
      await().atMost(InProcessPier.CONVERGE).until(() -> ingressIp(ns, "web") == null);
    }
  }
}
