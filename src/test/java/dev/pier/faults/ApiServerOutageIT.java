package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FaultSuite.loadBalancer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fault suite: the API server goes away while Services change. It is stopped for 60 s (the port
 * refuses connections) and then frozen for 40 s (connections hang), each right after a batch of
 * creates, changes and deletes, so that Pier is mid-write when it goes. Afterwards every Service
 * converges to its final spec and nothing leaks. Pier runs at the shipped retry delays (5 s,
 * doubling up to 300 s): a Service whose writes failed through the outage converges within the
 * suite's window with the backoff users get.
 */
@RealKubeApiServer
class ApiServerOutageIT {
  private static final Duration STOPPED = Duration.ofSeconds(60);
  private static final Duration FROZEN = Duration.ofSeconds(40);

  @Test
  void servicesChangedAroundAStoppedAndAFrozenApiServerConvergeToTheirFinalSpec(KubeApiServer kube)
      throws InterruptedException {
    KubernetesClient client = kube.client();
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String ns = kube.createNamespace("outage");
    try (ReferenceWebhook webhook = ReferenceWebhook.start("");
        PierProcess pier = FaultSuite.startJar(kube, "outage", FaultSuite.webhook(webhook.url()))) {
      Invariants invariants = new Invariants(client, ns, new WebhookCloud(webhook));
      for (int i = 0; i < 6; i++) {
        create(kube, ns, "svc-" + i);
      }
      invariants.awaitHeld(PierProcess.STARTUP.plus(CONVERGE));

      // Stopped right after a batch of writes.
      changePort(client, ns, "svc-0", 8080);
      delete(client, ns, "svc-1", invariants);
      create(kube, ns, "svc-6");
      kube.stopApiServer();
      Thread.sleep(STOPPED.toMillis());
      kube.startApiServer();
      changePort(client, ns, "svc-2", 8081);
      delete(client, ns, "svc-3", invariants);
      create(kube, ns, "svc-7");

      // Frozen right after the next batch.
      changePort(client, ns, "svc-4", 8082);
      delete(client, ns, "svc-5", invariants);
      create(kube, ns, "svc-8");
      changePort(client, ns, "svc-0", 9090);
      kube.freeze();
      Thread.sleep(FROZEN.toMillis());
      kube.thaw();
      changePort(client, ns, "svc-6", 8083);
      delete(client, ns, "svc-7", invariants);

      invariants.awaitSettled(CONVERGE);
      assertThat(pier.alive()).as("Pier outlives the outage\n" + pier.log()).isTrue();
    }
  }

  private static void create(KubeApiServer kube, String ns, String name) {
    kube.client()
        .services()
        .inNamespace(ns)
        .resource(loadBalancer(ns, name, 80, kube.freeNodePort()))
        .create();
  }

  private static void changePort(KubernetesClient client, String ns, String name, int port) {
    Services.edit(
        client,
        ns,
        name,
        s -> {
          s.getSpec().getPorts().get(0).setPort(port);
          return s;
        });
  }

  private static void delete(KubernetesClient client, String ns, String name, Invariants inv) {
    client.services().inNamespace(ns).withName(name).delete();
    inv.deleted(name);
  }
}
