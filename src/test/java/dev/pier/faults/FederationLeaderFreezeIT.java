package dev.pier.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.model.FederationKeys;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fault suite, federation: the leader is stopped (SIGSTOP) for 20 s while it propagates federated
 * Services into a member (a new Service's copy going in, a deleted one's coming out, frozen as soon
 * as the member's audit log shows its first write of them), and they keep changing meanwhile; a
 * standby runs beside it. The standby takes over and converges the copies and the host's marks,
 * finishing what the old leader had in flight, and the old leader writes nothing, in the host or in
 * the member, after its Lease expired (nor after the new leader's first write): each process
 * authenticates as its own user in both API servers, whose audit logs tell their writes apart. The
 * logs are read only once the old leader has shown that it went on after the thaw (it logged the
 * loss of its Lease and stepped down) and the host's API server saw it still running {@link
 * LeaderFreezeIT#LATE} after the thaw.
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
class FederationLeaderFreezeIT {
  private static final Logger log = LoggerFactory.getLogger(FederationLeaderFreezeIT.class);
  private static final Duration FROZEN = Duration.ofSeconds(20);
  private static final Duration LEASE_DURATION = Duration.ofSeconds(4);
  private static final Duration CONVERGE = FaultSuite.CONVERGE;

  @Test
  void theStandbyTakesOverTheFederationAndTheFrozenLeaderWritesNothingAfterIt(KubeApiServer host)
      throws Exception {
    try (KubeApiServer member =
        KubeApiServer.builder()
            .withUser("pier-one-token", "pier-one", "system:masters")
            .withUser("pier-two-token", "pier-two", "system:masters")
            .withAuditLog()
            .start()) {
      String leaseNs = host.createNamespace("fed-freeze-lease");
      String ns = host.createNamespace("fed-freeze");
      FederatedServices.optIn(host.client(), ns);
      try (PierProcess one = start(host, member, "one", leaseNs);
          PierProcess two = start(host, member, "two", leaseNs)) {
        for (int i = 0; i < 3; i++) {
          create(host, ns, "svc-" + i);
        }
        PierProcess.awaitReady(Map.of("one", one, "two", two), PierProcess.STARTUP);
        await().atMost(CONVERGE).until(() -> leads(one) ^ leads(two));
        for (int i = 0; i < 3; i++) {
          awaitCopy(member, ns, "svc-" + i);
        }
        PierProcess leader = leads(one) ? one : two;
        PierProcess standby = leader == one ? two : one;
        String oldUser = leader == one ? "pier-one" : "pier-two";
        String newUser = leader == one ? "pier-two" : "pier-one";

        // Stopped in the middle of propagating: a new Service's copy goes into the member and a
        // deleted one's comes out, and the leader is frozen as soon as the member's audit log shows
        // its first write of either. What follows is in flight: the other copy, and the host's
        // release of svc-1 (its finalizer goes once the member's cache shows the copy gone).
        Instant propagating = Instant.now();
        create(host, ns, "svc-3");
        host.client().services().inNamespace(ns).withName("svc-1").delete();
        JsonObject first =
            AuditWrites.awaitWrite(
                member, oldUser, "services", ns, Set.of("svc-1", "svc-3"), propagating, CONVERGE);
        leader.freeze();
        Instant frozenAt = Instant.now();
        log.info("froze the leader {} right after {}", oldUser, AuditWrites.describe(first));
        Services.edit(
            host.client(),
            ns,
            "svc-0",
            s -> {
              s.getMetadata().getLabels().put("version", "2");
              return s;
            });
        create(host, ns, "svc-4");
        await().atMost(FROZEN).until(() -> leads(standby));
        long left = FROZEN.toMillis() - Duration.between(frozenAt, Instant.now()).toMillis();
        Thread.sleep(Math.max(0, left));
        assertThat(leader.stopped()).as("the leader is still frozen before the thaw").isTrue();
        PierSaw.LogMark thawed = PierSaw.LogMark.now(leader);
        Instant thawedAt = Instant.now();
        leader.thaw();

        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    "2".equals(labels(copy(member, ns, "svc-0")).get("version"))
                        && copy(member, ns, "svc-1") == null
                        && host.client().services().inNamespace(ns).withName("svc-1").get() == null
                        && copy(member, ns, "svc-3") != null
                        && copy(member, ns, "svc-4") != null);
        // After the thaw the old leader handled the loss of its Lease and stopped its runs: "it
        // wrote nothing" is that decision, not a process that never went on. It stepped down, and
        // the host's API server saw it still running well after the thaw, so that what it had in
        // flight (or scheduled) at the freeze had its time to go out. Only then are the logs read.
        PierSaw.logged(
            thawed,
            "the loss of Lease " + leaseNs + "/pier",
            Pattern.compile(
                "Lost the Lease " + Pattern.quote(leaseNs + "/pier") + " as \\S+: stopped"),
            CONVERGE);
        await().atMost(CONVERGE).until(() -> leader.metric("pier_leader").orElse(-1) == 0.0);
        AuditWrites.awaitRequestAfter(host, oldUser, thawedAt.plus(LeaderFreezeIT.LATE), CONVERGE);
        assertThat(leader.alive()).as("the old leader is still running").isTrue();
        List<JsonObject> hostWrites = AuditWrites.of(host);
        List<JsonObject> writes = new ArrayList<>(hostWrites);
        writes.addAll(AuditWrites.of(member));
        Instant expired =
            AuditWrites.leaseExpiry(writes, oldUser, leaseNs, "pier", thawedAt, LEASE_DURATION);
        List<JsonObject> notInFlight = AuditWrites.lessEventsInFlightAt(writes, thawedAt);
        assertThat(AuditWrites.after(notInFlight, oldUser, expired))
            .as(
                "writes of the old leader, in host and member, after its Lease expired at "
                    + expired)
            .isEmpty();
        Instant takeover =
            AuditWrites.first(writes, newUser)
                .orElseThrow(() -> new AssertionError("the standby never wrote"));
        assertThat(AuditWrites.after(notInFlight, oldUser, takeover))
            .as("writes of the old leader, in host and member, after " + takeover)
            .isEmpty();
        // The propagation was in flight at the freeze: svc-1's release (its finalizer in the
        // host) was left to the standby, unless the old leader, on a busy machine, finished it
        // between its first member write and the freeze.
        List<String> svc1Writers =
            hostWrites.stream()
                .filter(w -> "svc-1".equals(w.getJsonObject("objectRef").getString("name")))
                .filter(w -> "services".equals(w.getJsonObject("objectRef").getString("resource")))
                .filter(w -> AuditWrites.received(w).isAfter(frozenAt))
                .map(AuditWrites::user)
                .toList();
        if (svc1Writers.isEmpty()) {
          assertThat(
                  hostWrites.stream()
                      .filter(w -> "svc-1".equals(w.getJsonObject("objectRef").getString("name")))
                      .filter(w -> AuditWrites.received(w).isAfter(AuditWrites.received(first)))
                      .map(AuditWrites::user)
                      .toList())
              .as("who released the host's svc-1 between the first member write and the freeze")
              .contains(oldUser)
              .doesNotContain(newUser);
        } else {
          assertThat(svc1Writers)
              .as(
                  "who wrote the host's svc-1 after the freeze (the release in flight at the freeze)")
              .contains(newUser);
        }
        for (String name : List.of("svc-0", "svc-2", "svc-3", "svc-4")) {
          assertThat(labels(copy(member, ns, name)))
              .as("copy " + name)
              .containsKey(FederationKeys.FEDERATION_LABEL);
          assertThat(
                  host.client()
                      .services()
                      .inNamespace(ns)
                      .withName(name)
                      .get()
                      .getMetadata()
                      .getFinalizers())
              .as("host Service " + name)
              .contains(FederationKeys.FINALIZER);
        }
      }
    }
  }

  /** Pier as user {@code pier-<name>} in both API servers, the host holding the Lease. */
  private static PierProcess start(
      KubeApiServer host, KubeApiServer member, String name, String leaseNs) throws IOException {
    String token = "pier-" + name + "-token";
    String yaml =
        FederationConfig.host(host.kubeconfigFor(token))
            .pool("127.249.0.0/28")
            .member("east", member.kubeconfigFor(token))
            .loadBalancers(false)
            .health("500ms", "400ms")
            .yaml();
    Path config = host.directory().resolve("pier-" + name + "-federation.yaml");
    Files.writeString(config, yaml);
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), null);
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "true");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), leaseNs);
    env.put(PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(), LEASE_DURATION.toSeconds() + "s");
    env.put(PierOptions.LEADER_ELECTION_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.LEADER_ELECTION_RETRY_PERIOD.envName(), "500ms");
    return FaultSuite.startJar(host, name, config, env);
  }

  private static boolean leads(PierProcess p) {
    return p.metric("pier_leader").orElse(0) == 1.0;
  }

  static void create(KubeApiServer host, String ns, String name) {
    host.client()
        .services()
        .inNamespace(ns)
        .resource(FederatedServices.federated(ns, name, Map.of()))
        .create();
  }

  static Service copy(KubeApiServer member, String ns, String name) {
    return member.client().services().inNamespace(ns).withName(name).get();
  }

  static void awaitCopy(KubeApiServer member, String ns, String name) {
    await().atMost(CONVERGE).until(() -> copy(member, ns, name) != null);
  }

  static Map<String, String> labels(Service s) {
    return s == null || s.getMetadata().getLabels() == null
        ? Map.of()
        : s.getMetadata().getLabels();
  }
}
