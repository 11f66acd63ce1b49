package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The failover scenario, shared by the class-path and the fat-jar runs. */
final class Failover {
  static final Duration LEASE = Duration.ofSeconds(4);
  static final String POOL = "127.244.0.0/24";
  static final String NODE = "node-le";

  /** Starts a named Pier process with the given environment overrides. */
  interface Launcher {
    PierProcess start(String name, Map<String, String> overrides);
  }

  private final KubeApiServer kube;
  private final KubernetesClient client;

  Failover(KubeApiServer kube) {
    this.kube = kube;
    this.client = kube.client();
  }

  /** Leader election on, with short durations, the Lease in the given namespace. */
  static Map<String, String> electing(String leaseNamespace) {
    Map<String, String> env = new HashMap<>();
    // The shipped config selects a cloud provider; these processes serve real traffic locally.
    env.put(PierOptions.PROVIDER.envName(), "local");
    env.put(PierOptions.LOCAL_POOLS.envName(), POOL);
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "true");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), leaseNamespace);
    env.put(PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(), "4s");
    env.put(PierOptions.LEADER_ELECTION_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.LEADER_ELECTION_RETRY_PERIOD.envName(), "500ms");
    return env;
  }

  String holder(String ns) {
    Lease lease =
        client.leases().inNamespace(ns).withName(LeaderElectionOptions.DEFAULT_LEASE_NAME).get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  static boolean leads(PierProcess p) {
    return p.metric("pier_leader").orElse(0) == 1.0;
  }

  /**
   * Two processes: both become ready, exactly one reconciles; after the leader is killed the other
   * takes the Lease within the lease duration, converges a new Service and serves the old.
   */
  void run(Launcher launcher, String prefix) {
    String leaseNs = kube.createNamespace(prefix + "-lease");
    String ns = kube.createNamespace(prefix);
    int portA = kube.freeNodePort();
    int portB = kube.freeNodePort();
    try (TestBackend backendA = TestBackend.start(NODE, "127.0.0.1", portA);
        TestBackend backendB = TestBackend.start(NODE, "127.0.0.1", portB);
        PierProcess one = launcher.start(prefix + "-one", electing(leaseNs));
        PierProcess two = launcher.start(prefix + "-two", electing(leaseNs))) {
      // Both are ready: the leader with workers running, the standby with synced informers.
      await()
          .atMost(PierProcess.STARTUP)
          .untilAsserted(
              () ->
                  assertThat(one.status("/readyz") == 200 && two.status("/readyz") == 200)
                      .as("both ready\n%s\n%s", one.log(), two.log())
                      .isTrue());
      await().atMost(InProcessPier.CONVERGE).until(() -> leads(one) ^ leads(two));
      PierProcess leader = leads(one) ? one : two;
      PierProcess standby = leader == one ? two : one;
      String leaderName = prefix + (leader == one ? "-one" : "-two");
      String standbyName = prefix + (leader == one ? "-two" : "-one");
      assertThat(holder(leaseNs)).isEqualTo(leader.identity(leaderName));

      client.services().inNamespace(ns).resource(lbService(ns, "a", 8085, portA)).create();
      String ipA = awaitIngress(ns, "a");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ipA, 8085), "").contains("hello"));
      assertThat(leader.metric("pier_reconciles_total").orElse(0)).isPositive();
      assertThat(standby.metric("pier_reconciles_total").orElse(0)).isZero();
      assertThat(leads(standby)).isFalse();
      assertThat(standby.log()).doesNotContain("Reconciling with provider");

      leader.kill();
      long killed = System.nanoTime();
      // The standby takes the Lease once it expired: within the lease duration (plus its retry
      // period and scheduling slack on a busy machine).
      await()
          .atMost(LEASE.plusSeconds(10))
          .until(() -> standby.identity(standbyName).equals(holder(leaseNs)) && leads(standby));
      assertThat(Duration.ofNanos(System.nanoTime() - killed)).isGreaterThan(Duration.ofSeconds(1));
      assertThat(standby.status("/readyz")).isEqualTo(200);

      client.services().inNamespace(ns).resource(lbService(ns, "b", 8085, portB)).create();
      String ipB = awaitIngress(ns, "b");
      assertThat(ipB).isNotEqualTo(ipA);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ipB, 8085), "").contains("hello"));
      // The new leader serves the load balancer the old one created too.
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ipA, 8085), "").contains("hello"));

      for (String name : List.of("a", "b")) {
        client.services().inNamespace(ns).withName(name).delete();
      }
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).list().getItems().isEmpty());
    }
  }

  static Service lbService(String ns, String name, int port, int nodePort) {
    return Services.loadBalancer(ns, name, port, nodePort);
  }

  String ingressIp(String ns, String name) {
    Service s = client.services().inNamespace(ns).withName(name).get();
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return null;
    }
    var ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null || ingress.isEmpty() ? null : ingress.get(0).getIp();
  }

  String awaitIngress(String ns, String name) {
    await().atMost(InProcessPier.CONVERGE).until(() -> ingressIp(ns, name) != null);
    return ingressIp(ns, name);
  }
}
