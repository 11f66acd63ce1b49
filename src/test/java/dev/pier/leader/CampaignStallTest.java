package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A Lease fabric8 cannot read (no leaseDurationSeconds, renewTime, acquireTime) ends its campaign
 * loop with an error it neither retries nor reports: the election notices the stalled campaign,
 * tries again, and after {@link LeaderElection#MAX_FAILED_CAMPAIGNS} stalled campaigns says it
 * cannot campaign (Pier then exits) instead of standing by forever.
 */
@RealKubeApiServer
class CampaignStallTest {

  @Test
  void campaignsThatStallAreGivenUpAfterTheLimit(KubeApiServer kube) throws Exception {
    KubernetesClient client = kube.client();
    String ns = kube.createNamespace("stall");
    client
        .leases()
        .inNamespace(ns)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("pier")
                .withNamespace(ns)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("someone-by-hand")
                .endSpec()
                .build())
        .create();
    Vertx vertx = Vertx.vertx();
    LeaderGate gate = LeaderGate.forLease(Duration.ofMillis(1500));
    LeaderElection election =
        new LeaderElection(
            client,
            new LeaderElectionOptions()
                .setNamespace(ns)
                .setIdentity("stall-test")
                .setLeaseDuration(Duration.ofSeconds(2))
                .setRenewDeadline(Duration.ofMillis(1500))
                .setRetryPeriod(Duration.ofMillis(300)),
            vertx.getOrCreateContext(),
            gate);
    CompletableFuture<Throwable> gaveUp = new CompletableFuture<>();
    AtomicBoolean led = new AtomicBoolean();
    try {
      long start = System.nanoTime();
      election
          .start(
              new LeaderElection.Listener() {
                @Override
                public void onStartLeading() {
                  led.set(true);
                }

                @Override
                public void onStopLeading() {}

                @Override
                public void onCannotCampaign(Throwable cause) {
                  gaveUp.complete(cause);
                }
              })
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);

      Throwable cause = gaveUp.get(90, TimeUnit.SECONDS);

      assertThat(cause).hasMessageContaining("stopped trying");
      // Five campaigns, each ended after the lease duration plus three retry periods.
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThan(Duration.ofMillis(5 * 2900));
      assertThat(led).isFalse();
      assertThat(gate.isOpen()).isFalse();
    } finally {
      election.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      vertx.close();
    }
  }
}
