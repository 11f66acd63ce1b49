package dev.pier.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.events.EventReasons;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.OversizedAnswerServer;
import dev.pier.testkit.OversizedAnswerServer.Body;
import dev.pier.testkit.OversizedAnswerServer.Huge;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A webhook that answers every ensure with 2 GB, against the jar with the shipped JVM flags in 512
 * MiB: each call fails at {@code http.maxAnswerBytes} (1 MiB) and closes the connection without
 * reading on, an Event on the Service says so, and Pier stays alive and Ready.
 */
@RealKubeApiServer
class HugeWebhookAnswerIT {
  private static final long TWO_GB = 2L << 30;

  @Test
  void aWebhookAnsweringTwoGigabytesFailsTheCallAndPierStaysReady(KubeApiServer kube)
      throws Exception {
    KubernetesClient client = kube.client();
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String ns = kube.createNamespace("huge");
    try (OversizedAnswerServer webhook =
        OversizedAnswerServer.start(
            req ->
                req.path().endsWith("/ensure")
                    ? new Huge("{\"status\": {\"ingress\": [{\"ip\": \"", TWO_GB)
                    : new Body("{\"exists\": false}"))) {
      try (PierProcess pier =
          FaultSuite.startJar(kube, "huge-answer", FaultSuite.webhook(webhook.url()))) {
        client.resource(FaultSuite.loadBalancer(ns, "big", 80, 30080)).create();

        await()
            .atMost(PierProcess.STARTUP)
            .until(
                () ->
                    Services.events(client, ns, "big").stream()
                        .filter(e -> EventReasons.SYNC_LOAD_BALANCER_FAILED.equals(e.getReason()))
                        .map(Event::getMessage)
                        .anyMatch(m -> m.contains("passed its limit of 1048576 bytes")));
        // It goes on trying with its backoff, each attempt cut short, and stays Ready.
        await()
            .during(Duration.ofSeconds(10))
            .atMost(Duration.ofSeconds(15))
            .until(() -> pier.alive() && pier.status("/readyz") == 200);
        int calls = webhook.requests();
        assertThat(calls).as("calls the webhook received").isPositive();
        assertThat(webhook.written())
            .as("bytes written to Pier over %d calls", calls)
            .isLessThan(calls * OversizedAnswerServer.STOPPED_EARLY_BYTES);
      }
    }
  }
}
