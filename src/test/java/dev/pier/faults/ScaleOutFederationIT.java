package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FederationLeaderFreezeIT.awaitCopy;
import static dev.pier.faults.FederationLeaderFreezeIT.copy;
import static dev.pier.faults.FederationLeaderFreezeIT.create;
import static dev.pier.faults.FederationLeaderFreezeIT.labels;
import static dev.pier.faults.ScaleOutIT.NAMES;
import static dev.pier.faults.ScaleOutIT.awaitAllShardsHeld;
import static dev.pier.faults.ScaleOutIT.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Scale-out with a federation: three Pier processes share a host (federation host, webhook load
 * balancers) and one member. The federation is a cluster-wide job of shard 0: only that shard's
 * owner writes the copies and the host's aggregate. When it is killed (SIGKILL), the replica that
 * takes shard 0 goes on: the aggregate follows the member's new ingress, and the copies follow the
 * host's changes; after the takeover, every federation write in host and member comes from it.
 */
@RealKubeApiServer(
    auditLog = true,
    users = {
      @RealKubeApiServer.User(token = "pier-a-token", name = "pier-a", groups = "system:masters"),
      @RealKubeApiServer.User(token = "pier-b-token", name = "pier-b", groups = "system:masters"),
      @RealKubeApiServer.User(token = "pier-c-token", name = "pier-c", groups = "system:masters")
    })
class ScaleOutFederationIT {

  @Test
  void onlyShardZerosOwnerRunsTheFederationAndItsSuccessorKeepsTheAggregateRight(KubeApiServer host)
      throws Exception {
    try (KubeApiServer member =
            KubeApiServer.builder()
                .withUser("pier-a-token", "pier-a", "system:masters")
                .withUser("pier-b-token", "pier-b", "system:masters")
                .withUser("pier-c-token", "pier-c", "system:masters")
                .withAuditLog()
                .start();
        ReferenceWebhook webhook = ReferenceWebhook.start("")) {
      String leaseNs = host.createNamespace("fed-scale-lease");
      String ns = host.createNamespace("fed-scale");
      FederatedServices.optIn(host.client(), ns);
      List<Integer> ports = List.of(freePort(), freePort(), freePort());
      String members = ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
      Map<String, PierProcess> replicas = new HashMap<>();
      try {
        for (int i = 0; i < 3; i++) {
          String name = NAMES.get(i);
          replicas.put(name, start(host, member, webhook, name, leaseNs, ports.get(i), members));
        }
        for (int i = 0; i < 3; i++) {
          create(host, ns, "svc-" + i);
        }
        await()
            .atMost(PierProcess.STARTUP)
            .until(() -> replicas.values().stream().allMatch(p -> p.status("/readyz") == 200));
        String owner = awaitAllShardsHeld(host.client(), leaseNs, Set.copyOf(NAMES)).get(0);
        for (int i = 0; i < 3; i++) {
          awaitCopy(member, ns, "svc-" + i);
        }
        // The replicas joined one after another, and shard 0 may have moved meanwhile: from now
        // on its owner is settled.
        Instant settled = Instant.now();
        setIngress(member, ns, "svc-0", "203.0.113.10");
        create(host, ns, "svc-2b");
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    hostIngress(host, ns, "svc-0").equals(List.of("203.0.113.10"))
                        && copy(member, ns, "svc-2b") != null);
        assertThat(federationWriters(host, member, ns, settled))
            .as("who wrote copies and federated host Services (shard 0 held by %s)", owner)
            .containsExactly("pier-" + owner);

        Instant killed = Instant.now();
        replicas.get(owner).kill();
        setIngress(member, ns, "svc-0", "203.0.113.11");
        Services.edit(
            host.client(),
            ns,
            "svc-1",
            s -> {
              s.getMetadata().getLabels().put("version", "2");
              return s;
            });
        create(host, ns, "svc-3");
        Set<String> alive = new HashSet<>(NAMES);
        alive.remove(owner);
        String successor = awaitAllShardsHeld(host.client(), leaseNs, alive).get(0);
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    hostIngress(host, ns, "svc-0").equals(List.of("203.0.113.11"))
                        && "2".equals(labels(copy(member, ns, "svc-1")).get("version"))
                        && copy(member, ns, "svc-3") != null);
        assertThat(federationWriters(host, member, ns, killed))
            .as("federation writers after the kill (shard 0 now held by %s)", successor)
            .containsExactly("pier-" + successor);
      } finally {
        replicas.values().forEach(PierProcess::close);
      }
    }
  }

  private static PierProcess start(
      KubeApiServer host,
      KubeApiServer member,
      ReferenceWebhook webhook,
      String name,
      String leaseNs,
      int port,
      String members)
      throws Exception {
    String token = "pier-" + name + "-token";
    String yaml =
        "clusters:\n"
            + "  - name: host\n"
            + "    kubeconfig: \""
            + host.kubeconfigFor(token)
            + "\"\n"
            + "    federation: host\n"
            + "  - name: east\n"
            + "    kubeconfig: \""
            + member.kubeconfigFor(token)
            + "\"\n"
            + "    federation: member\n"
            + "    loadBalancers: false\n"
            + "federation:\n"
            + "  health:\n"
            + "    period: 500ms\n"
            + "    timeout: 400ms\n";
    Path config = host.directory().resolve("pier-" + name + "-scale-out-federation.yaml");
    Files.writeString(config, yaml);
    Map<String, String> env = ScaleOutIT.env(host, webhook.url(), leaseNs, name, port, members);
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), null);
    return PierProcess.startJar(host, name, FaultSuite.jar(), config, env);
  }

  /** The users that wrote Services in {@code ns}, in the host or the member, after {@code from}. */
  private static Set<String> federationWriters(
      KubeApiServer host, KubeApiServer member, String ns, Instant from) throws Exception {
    Set<String> users = new TreeSet<>();
    for (KubeApiServer kube : List.of(host, member)) {
      for (JsonObject w : AuditWrites.of(kube)) {
        JsonObject ref = w.getJsonObject("objectRef", new JsonObject());
        if ("services".equals(ref.getString("resource"))
            && ns.equals(ref.getString("namespace"))
            && AuditWrites.received(w).isAfter(from)
            && AuditWrites.user(w).startsWith("pier-")) {
          users.add(AuditWrites.user(w));
        }
      }
    }
    return users;
  }

  private static void setIngress(KubeApiServer member, String ns, String name, String ip) {
    Service copy = copy(member, ns, name);
    member
        .client()
        .services()
        .inNamespace(ns)
        .resource(
            new ServiceBuilder(copy)
                .withNewStatus()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp(ip)
                .endIngress()
                .endLoadBalancer()
                .endStatus()
                .build())
        .updateStatus();
  }

  private static List<String> hostIngress(KubeApiServer host, String ns, String name) {
    Service s = host.client().services().inNamespace(ns).withName(name).get();
    if (s == null
        || s.getStatus() == null
        || s.getStatus().getLoadBalancer() == null
        || s.getStatus().getLoadBalancer().getIngress() == null) {
      return List.of();
    }
    return s.getStatus().getLoadBalancer().getIngress().stream().map(i -> i.getIp()).toList();
  }
}
