package dev.pier.nodesync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.ForwardingLoadBalancerProvider;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Load balancers follow the cluster's nodes: real traffic through the local load balancer shows
 * which nodes (loopback addresses 127.0.0.x, each with its own backend) receive connections.
 */
@RealKubeApiServer
class NodeSyncTest {
  private static KubeApiServer kube;
  private static KubernetesClient client;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    kube = server;
    client = kube.client();
  }

  private static Service lb(String ns, String name, int port, int nodePort) {
    return Services.loadBalancer(ns, name, port, nodePort);
  }

  private static String awaitIngress(String ns, String name) {
    return Services.awaitIngress(client, ns, name);
  }

  /** The backend names that answer 12 requests through the load balancer. */
  private static Set<String> answering(String ip, int port) {
    Set<String> names = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      String body = Traffic.get(ip, port);
      if (body != null) {
        names.add(body.replace("hello from ", "").trim());
      }
    }
    return names;
  }

  private static void label(String node, String key, String value) {
    client
        .nodes()
        .withName(node)
        .edit(n -> new NodeBuilder(n).editMetadata().addToLabels(key, value).endMetadata().build());
  }

  private static void unlabel(String node, String key) {
    client
        .nodes()
        .withName(node)
        .edit(n -> new NodeBuilder(n).editMetadata().removeFromLabels(key).endMetadata().build());
  }

  private static long eventCount(String ns, String name, String reason) {
    return Services.eventCount(client, ns, name, reason);
  }

  @Test
  void backendsFollowAddedExcludedAndTaintedNodes() {
    String ns = kube.createNamespace("follow");
    int nodePort = kube.freeNodePort();
    kube.createReadyNode("follow-1", "127.0.0.1", Map.of("pier-test", "follow"));
    try (TestBackend one = TestBackend.start("follow-1", "127.0.0.1", nodePort);
        TestBackend two = TestBackend.start("follow-2", "127.0.0.2", nodePort);
        InProcessPier pier =
            InProcessPier.start(
                kube, Map.of(PierOptions.LOCAL_POOLS.envName(), "127.243.0.0/24"))) {
      client.services().inNamespace(ns).resource(lb(ns, "web", 8090, nodePort)).create();
      String ip = awaitIngress(ns, "web");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answering(ip, 8090).equals(Set.of("follow-1")));

      // A node is added: traffic spreads over both.
      kube.createReadyNode("follow-2", "127.0.0.2", Map.of("pier-test", "follow"));
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answering(ip, 8090).equals(Set.of("follow-1", "follow-2")));
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> eventCount(ns, "web", "UpdatedLoadBalancer") >= 1);

      // Excluded by label: no more traffic to it.
      label("follow-1", "node.kubernetes.io/exclude-from-external-load-balancers", "true");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answering(ip, 8090).equals(Set.of("follow-2")));

      // The label with a false value includes the node again.
      label("follow-1", "node.kubernetes.io/exclude-from-external-load-balancers", "false");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answering(ip, 8090).equals(Set.of("follow-1", "follow-2")));

      // Tainted for autoscaler deletion: dropped.
      client
          .nodes()
          .withName("follow-2")
          .edit(
              n ->
                  new NodeBuilder(n)
                      .editOrNewSpec()
                      .addNewTaint()
                      .withKey("ToBeDeletedByClusterAutoscaler")
                      .withValue("1700000000")
                      .withEffect("NoSchedule")
                      .endTaint()
                      .endSpec()
                      .build());
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answering(ip, 8090).equals(Set.of("follow-1")));

      // No eligible node at all: a Warning event.
      label("follow-1", "node.kubernetes.io/exclude-from-external-load-balancers", "");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> eventCount(ns, "web", "UnAvailableLoadBalancer") >= 1);
      unlabel("follow-1", "node.kubernetes.io/exclude-from-external-load-balancers");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answering(ip, 8090).equals(Set.of("follow-1")));

      client.services().inNamespace(ns).withName("web").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.refused(ip, 8090));
    } finally {
      client.nodes().withName("follow-1").delete();
      client.nodes().withName("follow-2").delete();
    }
  }

  @Test
  void readinessMattersOnlyUnderTheLegacyPredicates() {
    String ns = kube.createNamespace("ready");
    int nodePort = kube.freeNodePort();
    kube.createReadyNode("ready-1", "127.0.0.3", Map.of());
    kube.createReadyNode("ready-2", "127.0.0.4", Map.of());
    try (TestBackend one = TestBackend.start("ready-1", "127.0.0.3", nodePort);
        TestBackend two = TestBackend.start("ready-2", "127.0.0.4", nodePort)) {
      String ip;
      try (InProcessPier pier =
          InProcessPier.start(kube, Map.of(PierOptions.LOCAL_POOLS.envName(), "127.244.0.0/24"))) {
        client.services().inNamespace(ns).resource(lb(ns, "web", 8091, nodePort)).create();
        ip = awaitIngress(ns, "web");
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> answering(ip, 8091).equals(Set.of("ready-1", "ready-2")));
        double syncsBefore = hostUpdates(pier);
        kube.setNodeReady("ready-1", false);
        // Stable predicates: readiness is the health checks' business; no host update happens.
        // A later change (the label below) proves node events are being processed by then.
        label("ready-2", "unrelated", "x");
        label("ready-2", "node.kubernetes.io/exclude-from-external-load-balancers", "false");
        await().pollDelay(Duration.ofSeconds(2)).until(() -> true);
        assertThat(hostUpdates(pier)).isEqualTo(syncsBefore);
        kube.setNodeReady("ready-1", true);
      }
      try (InProcessPier pier =
          InProcessPier.start(
              kube,
              Map.of(
                  PierOptions.LOCAL_POOLS.envName(), "127.244.0.0/24",
                  PierOptions.NODES_PREDICATES.envName(), "legacy"))) {
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> answering(ip, 8091).equals(Set.of("ready-1", "ready-2")));
        kube.setNodeReady("ready-1", false);
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> answering(ip, 8091).equals(Set.of("ready-2")));
        kube.setNodeReady("ready-1", true);
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> answering(ip, 8091).equals(Set.of("ready-1", "ready-2")));
        client.services().inNamespace(ns).withName("web").delete();
        await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.refused(ip, 8091));
      }
    } finally {
      client.nodes().withName("ready-1").delete();
      client.nodes().withName("ready-2").delete();
    }
  }

  private static double hostUpdates(InProcessPier pier) {
    var counter =
        pier.pier().metrics().registry().find("service_controller_loadbalancer_sync").counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void aFailedHostUpdateStillConverges() {
    String ns = kube.createNamespace("fail");
    int nodePort = kube.freeNodePort();
    kube.createReadyNode("fail-1", "127.0.0.5", Map.of());
    AtomicInteger updates = new AtomicInteger();
    try (TestBackend one = TestBackend.start("fail-1", "127.0.0.5", nodePort);
        TestBackend two = TestBackend.start("fail-2", "127.0.0.6", nodePort);
        InProcessPier pier =
            InProcessPier.start(
                kube,
                Map.of(PierOptions.LOCAL_POOLS.envName(), "127.245.0.0/24"),
                p -> new FailFirstUpdate(p, updates))) {
      client.services().inNamespace(ns).resource(lb(ns, "web", 8092, nodePort)).create();
      String ip = awaitIngress(ns, "web");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answering(ip, 8092).equals(Set.of("fail-1")));
      kube.createReadyNode("fail-2", "127.0.0.6", Map.of());
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answering(ip, 8092).equals(Set.of("fail-1", "fail-2")));
      assertThat(updates.get()).isGreaterThanOrEqualTo(1);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> eventCount(ns, "web", "UpdateLoadBalancerFailed") >= 1);
      client.services().inNamespace(ns).withName("web").delete();
      await().atMost(InProcessPier.CONVERGE).until(() -> Traffic.refused(ip, 8092));
    } finally {
      client.nodes().withName("fail-1").delete();
      client.nodes().withName("fail-2").delete();
    }
  }

  /** A provider double whose first host update fails. */
  static final class FailFirstUpdate extends ForwardingLoadBalancerProvider {
    private final AtomicInteger updates;

    FailFirstUpdate(LoadBalancerProvider delegate, AtomicInteger updates) {
      super(delegate);
      this.updates = updates;
    }

    @Override
    public Future<Void> updateLoadBalancerHosts(
        String clusterName, LbService service, List<LbNode> nodes) {
      if (updates.incrementAndGet() == 1) {
        return Future.failedFuture(new ProviderException.Retry("injected failure"));
      }
      return delegate.updateLoadBalancerHosts(clusterName, service, nodes);
    }
  }
}
