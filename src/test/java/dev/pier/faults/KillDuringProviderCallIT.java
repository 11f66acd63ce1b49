package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FaultSuite.loadBalancer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fault suite: Pier is killed (SIGKILL) right after the cloud created a load balancer and right
 * after it deleted one, before Pier could record either, and is started again. The cloud then holds
 * exactly the wanted load balancers, and the deleted Service is really gone.
 */
@RealKubeApiServer
class KillDuringProviderCallIT {
  private static final Duration DIES = Duration.ofSeconds(30);

  @Test
  void killedRightAfterAProviderCreateAndAfterADeleteLeaksNothingAndLeavesNoFinalizer(
      KubeApiServer kube) throws InterruptedException {
    KubernetesClient client = kube.client();
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String ns = kube.createNamespace("kill");
    List<PierProcess> started = new ArrayList<>();
    try (ReferenceWebhook webhook = ReferenceWebhook.start("");
        FaultProxy proxy = FaultProxy.start(webhook.url())) {
      Map<String, String> env = FaultSuite.webhook(proxy.url());
      // Short retries (FaultSuite.shortRetries): the waits of this scenario (CONVERGE after each
      // fault) were sized with them, and it has not been run at the shipped 5 s doubling to 300 s.
      FaultSuite.shortRetries(env);
      Invariants invariants = new Invariants(client, ns, new WebhookCloud(webhook));
      create(kube, ns, "steady");
      create(kube, ns, "doomed");
      PierProcess first = FaultSuite.startJar(kube, "kill-1", env);
      started.add(first);
      invariants.awaitHeld(PierProcess.STARTUP.plus(CONVERGE));

      proxy.once(
          (path, body) -> path.endsWith("/ensure") && body.contains("\"name\":\"created\""),
          first::kill);
      String created = create(kube, ns, "created").getMetadata().getUid();
      await().atMost(DIES).until(() -> !first.alive());
      assertThat(webhook.loadBalancers().keySet())
          .as("the cloud made the load balancer before Pier died")
          .anyMatch(k -> k.endsWith("/" + created));
      assertThat(Services.ingressIp(client, ns, "created"))
          .as("Pier died before it wrote the status")
          .isNull();

      PierProcess second = FaultSuite.startJar(kube, "kill-2", env);
      started.add(second);
      invariants.awaitHeld(PierProcess.STARTUP.plus(CONVERGE));

      String doomed = uid(client, ns, "doomed");
      proxy.once(
          (path, body) -> path.endsWith("/delete") && body.contains("\"name\":\"doomed\""),
          second::kill);
      client.services().inNamespace(ns).withName("doomed").delete();
      invariants.deleted("doomed");
      await().atMost(DIES).until(() -> !second.alive());
      assertThat(webhook.loadBalancers().keySet())
          .as("the cloud deleted the load balancer before Pier died")
          .noneMatch(k -> k.endsWith("/" + doomed));
      assertThat(client.services().inNamespace(ns).withName("doomed").get())
          .as("Pier died before it removed its finalizer")
          .isNotNull();

      started.add(FaultSuite.startJar(kube, "kill-3", env));
      invariants.awaitSettled(PierProcess.STARTUP.plus(CONVERGE));
    } finally {
      started.forEach(PierProcess::close);
    }
  }

  private static Service create(KubeApiServer kube, String ns, String name) {
    return kube.client()
        .services()
        .inNamespace(ns)
        .resource(loadBalancer(ns, name, 80, kube.freeNodePort()))
        .create();
  }

  private static String uid(KubernetesClient client, String ns, String name) {
    return client.services().inNamespace(ns).withName(name).get().getMetadata().getUid();
  }
}
