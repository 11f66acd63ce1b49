package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FaultSuite.loadBalancer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fault suite: the leader is stopped (SIGSTOP) while its calls to a slow cloud wait for one of its
 * few connections, and thawed after the standby took over. The old leader must send the cloud
 * nothing after the thaw: each request asks the leadership gate, for the term its call started in,
 * right before it goes. Each replica talks to the cloud through a proxy of its own, which tells
 * their requests apart.
 */
@RealKubeApiServer
class DeposedLeaderProviderIT {
  private static final Duration FROZEN = Duration.ofSeconds(12);
  private static final int SERVICES = 12;

  @Test
  void aThawedLeaderSendsTheCloudNothingMore(KubeApiServer kube) throws InterruptedException {
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String leaseNs = kube.createNamespace("deposed-lease");
    String ns = kube.createNamespace("deposed");
    try (ReferenceWebhook webhook = ReferenceWebhook.start("");
        FaultProxy toOne = FaultProxy.start(webhook.url());
        FaultProxy toTwo = FaultProxy.start(webhook.url());
        PierProcess one = FaultSuite.startJar(kube, "one", env(kube, toOne, leaseNs));
        PierProcess two = FaultSuite.startJar(kube, "two", env(kube, toTwo, leaseNs))) {
      PierProcess.awaitReady(Map.of("one", one, "two", two), PierProcess.STARTUP);
      await().atMost(CONVERGE).until(() -> leads(one) ^ leads(two));
      PierProcess leader = leads(one) ? one : two;
      PierProcess standby = leader == one ? two : one;
      FaultProxy leaderCloud = leader == one ? toOne : toTwo;
      // A slow cloud: the leader's ensures queue behind its two connections.
      toOne.delay(Duration.ofMillis(700));
      toTwo.delay(Duration.ofMillis(700));
      for (int i = 0; i < SERVICES; i++) {
        kube.client()
            .services()
            .inNamespace(ns)
            .resource(loadBalancer(ns, "svc-" + i, 80, kube.freeNodePort()))
            .create();
      }
      await().atMost(CONVERGE).until(() -> leaderCloud.calls("/ensure").size() >= 2);
      leader.freeze();
      Instant frozenAt = Instant.now();
      int sentBeforeTheFreeze = leaderCloud.calls("/ensure").size();
      await().atMost(FROZEN).until(() -> leads(standby));
      long left = FROZEN.toMillis() - Duration.between(frozenAt, Instant.now()).toMillis();
      Thread.sleep(Math.max(0, left));
      Instant thawed = Instant.now();
      PierSaw.LogMark thawedMark = PierSaw.LogMark.now(leader);
      leader.thaw();

      // The new leader serves everything; the old one, alive, sends the cloud nothing more.
      for (int i = 0; i < SERVICES; i++) {
        Services.awaitIngress(kube.client(), ns, "svc-" + i);
      }
      Thread.sleep(Duration.ofSeconds(5).toMillis());
      assertThat(leader.alive()).as("the old leader is still running").isTrue();
      assertThat(sentBeforeTheFreeze).isLessThan(SERVICES);
      // It sent nothing because it went on with its waiting Services and the gate stopped them.
      PierSaw.logged(thawedMark, ns, null, LeaderFreezeIT.STOPPED_AT_THE_GATE, CONVERGE);
      List<FaultProxy.Call> late =
          leaderCloud.calls().stream().filter(c -> c.started().isAfter(thawed)).toList();
      assertThat(late).as("requests the old leader began to send after the thaw").isEmpty();
    }
  }

  private static Map<String, String> env(KubeApiServer kube, FaultProxy proxy, String leaseNs) {
    Map<String, String> env = FaultSuite.webhook(proxy.url());
    // Short retries (FaultSuite.shortRetries): the waits of this scenario (CONVERGE after each
    // fault) were sized with them, and it has not been run at the shipped 5 s doubling to 300 s.
    FaultSuite.shortRetries(env);
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), kube.kubeconfigPath().toString());
    env.put(PierOptions.WEBHOOK_MAX_CONNECTIONS.envName(), "2");
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "true");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), leaseNs);
    env.put(PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(), "4s");
    env.put(PierOptions.LEADER_ELECTION_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.LEADER_ELECTION_RETRY_PERIOD.envName(), "500ms");
    return env;
  }

  private static boolean leads(PierProcess p) {
    return p.metric("pier_leader").orElse(0) == 1.0;
  }
}
