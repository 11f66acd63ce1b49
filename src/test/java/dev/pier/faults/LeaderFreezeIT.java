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
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Fault suite: the leader is stopped (SIGSTOP) for 20 s in the middle of a run, right after the
 * cloud answered its call, while Services keep changing; a standby runs beside it. The standby
 * takes over and converges everything, and the old leader writes nothing to the API after its Lease
 * expired (nor after the new leader's first write): each process authenticates as its own user, and
 * the API server's audit log tells their writes apart. The log is read only once the old leader has
 * shown that it went on after the thaw (its run stopped at the gate, it logged the loss of its
 * Lease and stepped down) and the API server saw it still running {@link #LATE} after the thaw.
 */
@RealKubeApiServer(
    auditLog = true,
    users = {
      @RealKubeApiServer.User(
          token = "pier-one-token",
          name = "pier-one",
          groups = "system:masters"),
      @RealKubeApiServer.User(
          token = "pier-two-token",
          name = "pier-two",
          groups = "system:masters")
    })
class LeaderFreezeIT {
  private static final Duration FROZEN = Duration.ofSeconds(20);
  private static final Duration LEASE_DURATION = Duration.ofSeconds(4);

  /**
   * How long after the thaw the old leader must be seen running before its writes are read: well
   * past its Lease's duration and renew deadline (4 s and 3 s), so that a write it still made on
   * the strength of its old term, from the run it had in flight or a retry it had scheduled, is in
   * the audit log when it is read.
   */
  static final Duration LATE = Duration.ofSeconds(12);

  /** What a run that the leadership gate stopped logs about its Service. */
  static final String STOPPED_AT_THE_GATE = "stopped: not the leader";

  @Test
  void theStandbyTakesOverAndTheFrozenLeaderWritesNothingAfterTheNewLeadersFirstWrite(
      KubeApiServer kube) throws InterruptedException, IOException {
    KubernetesClient client = kube.client();
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String leaseNs = kube.createNamespace("freeze-lease");
    String ns = kube.createNamespace("freeze");
    try (ReferenceWebhook webhook = ReferenceWebhook.start("");
        FaultProxy proxy = FaultProxy.start(webhook.url());
        PierProcess one =
            FaultSuite.startJar(kube, "one", env(kube, proxy, leaseNs, "pier-one-token"));
        PierProcess two =
            FaultSuite.startJar(kube, "two", env(kube, proxy, leaseNs, "pier-two-token"))) {
      Invariants invariants = new Invariants(client, ns, new WebhookCloud(webhook));
      for (int i = 0; i < 4; i++) {
        create(kube, ns, "svc-" + i);
      }
      PierProcess.awaitReady(Map.of("one", one, "two", two), PierProcess.STARTUP);
      invariants.awaitHeld(CONVERGE);
      await().atMost(CONVERGE).until(() -> leads(one) ^ leads(two));
      PierProcess leader = leads(one) ? one : two;
      PierProcess standby = leader == one ? two : one;
      String oldUser = leader == one ? "pier-one" : "pier-two";
      String newUser = leader == one ? "pier-two" : "pier-one";

      // The leader stops right after the cloud answered its ensure, before it writes the status.
      AtomicReference<Instant> frozenAt = new AtomicReference<>();
      proxy.once(
          (path, body) -> path.endsWith("/ensure") && body.contains("\"name\":\"svc-4\""),
          () -> {
            leader.freeze();
            frozenAt.set(Instant.now());
          });
      create(kube, ns, "svc-4");
      await().atMost(CONVERGE).until(() -> frozenAt.get() != null);
      // Services keep changing while it is stopped.
      Services.edit(
          client,
          ns,
          "svc-0",
          s -> {
            s.getSpec().getPorts().get(0).setPort(8080);
            return s;
          });
      client.services().inNamespace(ns).withName("svc-1").delete();
      invariants.deleted("svc-1");
      create(kube, ns, "svc-5");
      await().atMost(FROZEN).until(() -> leads(standby));
      long left = FROZEN.toMillis() - Duration.between(frozenAt.get(), Instant.now()).toMillis();
      Thread.sleep(Math.max(0, left));
      assertThat(leader.stopped()).as("the leader is still frozen before the thaw").isTrue();
      PierSaw.LogMark thawed = PierSaw.LogMark.now(leader);
      Instant thawedAt = Instant.now();
      leader.thaw();

      invariants.awaitHeld(CONVERGE);
      // "Wrote nothing" means something only once the old leader went on after the thaw: its run in
      // flight stopped at the gate (it decided not to write), it handled the loss of its Lease and
      // stepped down, and it still ran well after the thaw. Only then is the audit log read.
      awaitSteppedDown(leader, thawed, ns, leaseNs);
      AuditWrites.awaitRequestAfter(kube, oldUser, thawedAt.plus(LATE), CONVERGE);
      assertThat(leader.alive()).as("the old leader is still running").isTrue();
      List<JsonObject> writes = AuditWrites.of(kube);
      Instant expired =
          AuditWrites.leaseExpiry(writes, oldUser, leaseNs, "pier", thawedAt, LEASE_DURATION);
      List<JsonObject> notInFlight = AuditWrites.lessEventsInFlightAt(writes, thawedAt);
      assertThat(AuditWrites.after(notInFlight, oldUser, expired))
          .as("writes of the old leader after its Lease expired at " + expired)
          .isEmpty();
      Instant takeover =
          AuditWrites.first(writes, newUser)
              .orElseThrow(() -> new AssertionError("the standby never wrote"));
      assertThat(AuditWrites.after(notInFlight, oldUser, takeover))
          .as("writes of the old leader after the new leader's first write at " + takeover)
          .isEmpty();
      invariants.awaitSettled(CONVERGE);
    }
  }

  /**
   * Waits until the thawed {@code leader}, after {@code thawed}, stopped a run of a Service of
   * {@code ns} at the leadership gate, logged the loss of its Lease, and answers that it leads no
   * more.
   */
  private static void awaitSteppedDown(
      PierProcess leader, PierSaw.LogMark thawed, String ns, String leaseNs) {
    PierSaw.logged(thawed, ns, null, STOPPED_AT_THE_GATE, CONVERGE);
    PierSaw.logged(
        thawed,
        "the loss of Lease " + leaseNs + "/pier",
        Pattern.compile("Lost the Lease " + Pattern.quote(leaseNs + "/pier") + " as \\S+: stopped"),
        CONVERGE);
    await().atMost(CONVERGE).until(() -> leader.metric("pier_leader").orElse(-1) == 0.0);
  }

  private static Map<String, String> env(
      KubeApiServer kube, FaultProxy proxy, String leaseNs, String token) {
    Map<String, String> env = FaultSuite.webhook(proxy.url());
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), kube.kubeconfigFor(token).toString());
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "true");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), leaseNs);
    env.put(PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(), LEASE_DURATION.toSeconds() + "s");
    env.put(PierOptions.LEADER_ELECTION_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.LEADER_ELECTION_RETRY_PERIOD.envName(), "500ms");
    return env;
  }

  private static boolean leads(PierProcess p) {
    return p.metric("pier_leader").orElse(0) == 1.0;
  }

  private static void create(KubeApiServer kube, String ns, String name) {
    kube.client()
        .services()
        .inNamespace(ns)
        .resource(loadBalancer(ns, name, 80, kube.freeNodePort()))
        .create();
  }
}
