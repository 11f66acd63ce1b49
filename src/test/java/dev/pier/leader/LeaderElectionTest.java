package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.testkit.Edits;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.ZonedDateTime;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two Pier processes against one API server: exactly one reconciles; when it is killed the other
 * takes over within the lease duration and converges Services created afterwards; a leader that
 * loses its Lease stands by in the same process and leads again once the Lease is free.
 */
@RealKubeApiServer
class LeaderElectionTest {
  private static KubeApiServer kube;
  private static KubernetesClient client;
  private static Failover failover;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    kube = server;
    client = kube.client();
    kube.createReadyNode(Failover.NODE, "127.0.0.1", Map.of());
    failover = new Failover(kube);
  }

  @Test
  void exactlyOneReconcilesAndTheStandbyTakesOverWhenTheLeaderIsKilled() {
    failover.run((name, env) -> PierProcess.start(kube, name, env), "le");
  }

  @Test
  void aLeaderThatLosesItsLeaseStandsByWithoutExitingAndLeadsAgain() {
    String leaseNs = kube.createNamespace("lease");
    String ns = kube.createNamespace("lease-svc");
    try (PierProcess pier = PierProcess.start(kube, "lone", Failover.electing(leaseNs))) {
      await()
          .atMost(PierProcess.STARTUP)
          .untilAsserted(() -> assertThat(Failover.leads(pier)).as(pier.log()).isTrue());
      // Another holder takes the Lease for a while (as after a partition): Pier cannot renew.
      // Pier renews every retryPeriod, so the take-over retries on a conflict as a real contender
      // would.
      Edits.retrying(
          client.leases().inNamespace(leaseNs).withName(LeaderElectionOptions.DEFAULT_LEASE_NAME),
          20,
          l ->
              new LeaseBuilder(l)
                  .editSpec()
                  .withHolderIdentity("someone-else")
                  .withLeaseDurationSeconds(8)
                  .withRenewTime(ZonedDateTime.now())
                  .endSpec()
                  .build());
      // It stands by: not leading, still ready, still running.
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(() -> assertThat(Failover.leads(pier)).as(pier.log()).isFalse());
      assertThat(pier.status("/readyz")).isEqualTo(200);
      assertThat(pier.log()).contains("Lost the Lease " + leaseNs + "/pier");
      assertThat(failover.holder(leaseNs)).isEqualTo("someone-else");

      // The other holder stops renewing: Pier takes the Lease again and reconciles.
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(
              () ->
                  assertThat(
                          failover.holder(leaseNs).equals(pier.identity("lone"))
                              && Failover.leads(pier))
                      .as(pier.log())
                      .isTrue());
      assertThat(pier.alive()).as("the process never exited").isTrue();
      client
          .services()
          .inNamespace(ns)
          .resource(Failover.lbService(ns, "after", 8087, kube.freeNodePort()))
          .create();
      assertThat(failover.awaitIngress(ns, "after")).isNotNull();
      assertThat(pier.alive()).isTrue();
    }
  }
}
