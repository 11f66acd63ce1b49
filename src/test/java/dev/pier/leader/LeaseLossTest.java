package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An API server that hangs longer than the renew deadline costs the leader its Lease, not its
 * traffic: Pier stops reconciling, keeps running and serving every load balancer, campaigns again
 * and, once the API server is back, leads and reconciles again.
 */
@RealKubeApiServer
class LeaseLossTest {
  private static final Logger log = LoggerFactory.getLogger(LeaseLossTest.class);
  private static final String NODE = "node-lease-loss";
  private static final String POOL = "127.249.0.0/24";

  @Test
  void aFrozenApiServerCostsTheLeaseButNotTheTraffic(KubeApiServer kube) throws Exception {
    KubernetesClient client = kube.client();
    kube.createReadyNode(NODE, "127.0.0.1", Map.of());
    String leaseNs = kube.createNamespace("lease-loss-lease");
    String ns = kube.createNamespace("lease-loss");
    int portA = kube.freeNodePort();
    int portB = kube.freeNodePort();
    // The failover tests' short lease timings (4 s lease, 3 s renew deadline), its own pool.
    Map<String, String> env = new HashMap<>(Failover.electing(leaseNs));
    env.put(PierOptions.LOCAL_POOLS.envName(), POOL);
    AtomicBoolean sending = new AtomicBoolean(true);
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    Thread traffic = null;
    try (TestBackend backendA = TestBackend.start(NODE, "127.0.0.1", portA);
        TestBackend backendB = TestBackend.start(NODE, "127.0.0.1", portB);
        InProcessPier pier = InProcessPier.start(kube, env)) {
      await().atMost(InProcessPier.CONVERGE).until(() -> pier.pier().reconciling());
      client
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "a", 8086, portA))
          .create();
      String ipA = Services.awaitIngress(client, ns, "a");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ipA, 8086), "").contains("hello"));

      traffic =
          new Thread(
              () -> {
                while (sending.get()) {
                  sent.incrementAndGet();
                  if (!Objects.toString(Traffic.get(ipA, 8086), "").contains("hello")) {
                    failed.incrementAndGet();
                  }
                  try {
                    Thread.sleep(50);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "lease-loss-traffic");
      traffic.start();

      kube.freeze();
      long frozen = System.nanoTime();
      long standingBy;
      try {
        // The renew deadline passes (after the client's request timeout of a hung renewal).
        await().atMost(Duration.ofSeconds(40)).until(() -> !pier.pier().reconciling());
        standingBy = System.nanoTime();
        assertThat(pier.pier().metrics().registry().get("pier.leader").gauge().value()).isZero();
        // Frozen well past the lease duration, while the process stands by.
        Thread.sleep(Math.max(0, 16_000 - Duration.ofNanos(System.nanoTime() - frozen).toMillis()));
        assertThat(pier.pier().ready()).as("a standby with synced informers is ready").isTrue();
      } finally {
        kube.thaw();
      }
      int duringFreeze = sent.get();
      long thawed = System.nanoTime();

      // Back: it campaigns, leads and reconciles a new Service.
      await().atMost(Duration.ofSeconds(60)).until(() -> pier.pier().reconciling());
      long leading = System.nanoTime();
      assertThat(pier.pier().metrics().registry().get("pier.leader").gauge().value()).isOne();
      client
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "b", 8086, portB))
          .create();
      String ipB = Services.awaitIngress(client, ns, "b");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ipB, 8086), "").contains("hello"));

      sending.set(false);
      traffic.join(10_000);
      log.info(
          "Stopped reconciling {} ms after the freeze, led again {} ms after the thaw; {} requests"
              + " ({} until the thaw), {} failed",
          Duration.ofNanos(standingBy - frozen).toMillis(),
          Duration.ofNanos(leading - thawed).toMillis(),
          sent.get(),
          duringFreeze,
          failed.get());
      assertThat(duringFreeze).as("requests sent while frozen").isGreaterThan(50);
      assertThat(failed.get()).as("failed of %d requests", sent.get()).isZero();
      assertThat(Traffic.get(ipA, 8086)).contains("hello");
    } finally {
      sending.set(false);
      if (traffic != null) {
        traffic.join(10_000);
      }
    }
  }
}
