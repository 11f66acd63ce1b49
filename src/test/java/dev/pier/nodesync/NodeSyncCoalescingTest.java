package dev.pier.nodesync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.ForwardingLoadBalancerProvider;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node flaps while a key's run is held: what waits behind the key stays at one request, and once
 * the run is released the load balancer gets one or two host updates, not one per flap.
 */
@RealKubeApiServer
class NodeSyncCoalescingTest {
  private static final Logger log = LoggerFactory.getLogger(NodeSyncCoalescingTest.class);
  private static final int FLAPS = 11;

  private static KubeApiServer kube;
  private static KubernetesClient client;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    kube = server;
    client = kube.client();
  }

  /** Holds the first host update once told to, until released; counts and records them all. */
  static final class HoldingHostUpdates extends ForwardingLoadBalancerProvider {
    final AtomicBoolean hold = new AtomicBoolean();
    final AtomicInteger updates = new AtomicInteger();
    final List<Set<String>> hosts = new CopyOnWriteArrayList<>();
    final AtomicReference<Runnable> held = new AtomicReference<>();

    HoldingHostUpdates(LoadBalancerProvider delegate) {
      super(delegate);
    }

    @Override
    public Future<Void> updateLoadBalancerHosts(
        String clusterName, LbService service, List<LbNode> nodes) {
      updates.incrementAndGet();
      hosts.add(nodes.stream().map(LbNode::name).collect(Collectors.toSet()));
      if (!hold.compareAndSet(true, false)) {
        return delegate.updateLoadBalancerHosts(clusterName, service, nodes);
      }
      Context ctx = Vertx.currentContext();
      Promise<Void> done = Promise.promise();
      held.set(
          () ->
              ctx.runOnContext(
                  v ->
                      delegate
                          .updateLoadBalancerHosts(clusterName, service, nodes)
                          .onComplete(done)));
      return done.future();
    }
  }

  private static double waitingRequests(InProcessPier pier) {
    Gauge g = pier.pier().metrics().registry().find("pier.queue.waiting.requests").gauge();
    return g == null ? -1 : g.value();
  }

  /**
   * With {@code nodeSync.debounce} 0 every flap reaches the queue, and the replacement of waiting
   * requests alone keeps them at one; with the default the debounce also gathers the flaps.
   */
  @ParameterizedTest
  @ValueSource(strings = {"0s", "1s"})
  void nodeFlapsBehindAHeldKeyLeaveOneWaitingRequestAndFewHostUpdates(String debounce)
      throws Exception {
    String ns = kube.createNamespace("flap");
    int nodePort = kube.freeNodePort();
    kube.createReadyNode("flap-1", "127.0.0.7", Map.of());
    kube.createReadyNode("flap-2", "127.0.0.8", Map.of());
    HoldingHostUpdates[] provider = new HoldingHostUpdates[1];
    try (InProcessPier pier =
        InProcessPier.start(
            kube,
            Map.of(
                PierOptions.LOCAL_POOLS.envName(), "127.249.0.0/24",
                PierOptions.NODES_PREDICATES.envName(), "legacy",
                PierOptions.NODE_SYNC_DEBOUNCE.envName(), debounce),
            p -> provider[0] = new HoldingHostUpdates(p))) {
      HoldingHostUpdates lb = provider[0];
      client
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "web", 8097, nodePort))
          .create();
      Services.awaitIngress(client, ns, "web");

      // The key's run is held in the provider: its host update for flap-2 going away.
      lb.hold.set(true);
      kube.setNodeReady("flap-2", false);
      await().atMost(InProcessPier.CONVERGE).until(() -> lb.held.get() != null);
      int before = lb.updates.get();

      // flap-2 flaps, ending Ready; every other state differs from what the held run pushed.
      double mostWaiting = 0;
      for (int i = 0; i < FLAPS; i++) {
        kube.setNodeReady("flap-2", i % 2 == 0);
        Thread.sleep(250);
        mostWaiting = Math.max(mostWaiting, waitingRequests(pier));
      }
      await().pollDelay(Duration.ofSeconds(2)).until(() -> true);
      mostWaiting = Math.max(mostWaiting, waitingRequests(pier));
      log.info(
          "{} node flaps behind a held key, debounce {}: at most {} requests waiting",
          FLAPS,
          debounce,
          mostWaiting);
      assertThat(mostWaiting).isBetween(0.0, 1.0);

      lb.held.get().run();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> lb.hosts.get(lb.hosts.size() - 1).equals(Set.of("flap-1", "flap-2")));
      await().pollDelay(Duration.ofSeconds(3)).until(() -> true);
      int after = lb.updates.get() - before;
      log.info("{} host update(s) after the held run was released", after);
      assertThat(after).isBetween(1, 2);
      assertThat(waitingRequests(pier)).isZero();
      client.services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).withName("web").get() == null);
    } finally {
      client.nodes().withName("flap-1").delete();
      client.nodes().withName("flap-2").delete();
    }
  }
}
