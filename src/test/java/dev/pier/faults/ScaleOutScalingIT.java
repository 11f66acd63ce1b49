package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.ScaleOutIT.NAMES;
import static dev.pier.faults.ScaleOutIT.SHARDS;
import static dev.pier.faults.ScaleOutIT.awaitAllShardsHeld;
import static dev.pier.faults.ScaleOutIT.create;
import static dev.pier.faults.ScaleOutIT.env;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Scale-out on loopback, scaled from one replica to three and back to one while Services are
 * created, edited and deleted: the shards spread and come back through their Leases, and the
 * webhook stand-in ends with exactly one load balancer per wanted Service, serving its final ports.
 */
@RealKubeApiServer(
    users = {
      @RealKubeApiServer.User(token = "pier-a-token", name = "pier-a", groups = "system:masters"),
      @RealKubeApiServer.User(token = "pier-b-token", name = "pier-b", groups = "system:masters"),
      @RealKubeApiServer.User(token = "pier-c-token", name = "pier-c", groups = "system:masters")
    })
class ScaleOutScalingIT {
  @Test
  void scalingFromOneToThreeAndBackWhileServicesChangeLosesNothingAndDoublesNothing(
      KubeApiServer kube) throws Exception {
    KubernetesClient client = kube.client();
    if (client.nodes().withName(FaultSuite.NODE).get() == null) {
      kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    }
    String leaseNs = kube.createNamespace("scaling-lease");
    String ns = kube.createNamespace("scaling");
    List<Integer> ports = List.of(FreePorts.take(), FreePorts.take(), FreePorts.take());
    String members = ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    Map<String, FaultProxy> proxies = new HashMap<>();
    Map<String, PierProcess> replicas = new HashMap<>();
    try (ReferenceWebhook webhook = ReferenceWebhook.start("")) {
      try {
        Invariants invariants = new Invariants(client, ns, new WebhookCloud(webhook));
        for (int i = 0; i < 3; i++) {
          proxies.put(NAMES.get(i), FaultProxy.start(webhook.url()));
        }
        replicas.put(
            "a",
            FaultSuite.startJar(
                kube, "a", env(kube, proxies.get("a"), leaseNs, "a", ports.get(0), members)));
        for (int i = 0; i < 8; i++) {
          create(kube, ns, "svc-" + i);
        }
        PierProcess.awaitReady(Map.of("a", replicas.get("a")), PierProcess.STARTUP);
        invariants.awaitHeld(CONVERGE);
        assertThat(awaitAllShardsHeld(client, leaseNs, Set.of("a"))).hasSize(SHARDS);

        // 1 -> 3 while Services are created, deleted and edited.
        for (int i = 1; i < 3; i++) {
          String name = NAMES.get(i);
          replicas.put(
              name,
              FaultSuite.startJar(
                  kube, name, env(kube, proxies.get(name), leaseNs, name, ports.get(i), members)));
        }
        for (int i = 8; i < 16; i++) {
          create(kube, ns, "svc-" + i);
          if (i % 4 == 0) {
            String gone = "svc-" + (i - 8);
            client.services().inNamespace(ns).withName(gone).delete();
            invariants.deleted(gone);
          }
          if (i % 4 == 1) {
            dev.pier.testkit.Services.edit(
                client,
                ns,
                "svc-" + (i - 8),
                svc -> {
                  svc.getSpec().getPorts().get(0).setPort(8080);
                  return svc;
                });
          }
          Thread.sleep(500);
        }
        PierProcess.awaitReady(replicas, PierProcess.STARTUP);
        Map<Integer, String> three = awaitAllShardsHeld(client, leaseNs, Set.copyOf(NAMES));
        invariants.awaitHeld(CONVERGE);
        assertThat(new HashSet<>(three.values())).hasSizeGreaterThanOrEqualTo(2);

        // 3 -> 1: the two stop (SIGTERM) and give their shards back while Services change.
        replicas.get("c").close();
        for (int i = 16; i < 20; i++) {
          create(kube, ns, "svc-" + i);
        }
        replicas.get("b").close();
        client.services().inNamespace(ns).withName("svc-15").delete();
        invariants.deleted("svc-15");
        create(kube, ns, "svc-20");
        assertThat(awaitAllShardsHeld(client, leaseNs, Set.of("a"))).hasSize(SHARDS);
        invariants.awaitSettled(CONVERGE);
      } finally {
        replicas.values().forEach(PierProcess::close);
        proxies.values().forEach(FaultProxy::close);
      }
    }
  }
}
