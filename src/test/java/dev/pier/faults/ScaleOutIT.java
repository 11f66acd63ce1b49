package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FaultSuite.loadBalancer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.model.ServiceKey;
import dev.pier.shards.ShardMap;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.ScaleOutCredentials;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scale-out on loopback: three Pier processes form one cluster (JGroups on mutual TLS, a static
 * member list), share eight shards through their Leases, and program a webhook stand-in, each
 * through a proxy of its own so that every provider request is known by its sender; each
 * authenticates as its own user, so the API server's audit log tells their writes apart. Checked in
 * one run: each shard's writes come from one replica; a replica killed with SIGKILL has its shards
 * taken within the documented bound and every Service converges; a replica stopped (SIGSTOP) past
 * its Leases and let go on sends no Service write and no provider request for a shard before it
 * holds that shard's Lease again.
 */
@RealKubeApiServer(
    auditLog = true,
    users = {
      @RealKubeApiServer.User(token = "pier-a-token", name = "pier-a", groups = "system:masters"),
      @RealKubeApiServer.User(token = "pier-b-token", name = "pier-b", groups = "system:masters"),
      @RealKubeApiServer.User(token = "pier-c-token", name = "pier-c", groups = "system:masters")
    })
class ScaleOutIT {
  private static final Logger log = LoggerFactory.getLogger(ScaleOutIT.class);
  static final int SHARDS = 8;
  private static final ShardMap MAP = new ShardMap(SHARDS);
  private static final String CLUSTER = "kubernetes";
  private static final String PREFIX = "pier";
  // heartbeatTimeout 3 s + leaseDuration 4 s + retryPeriod 1 s (ScaleOutOptions.ownerlessBound).
  private static final Duration BOUND = Duration.ofSeconds(8);
  static final List<String> NAMES = List.of("a", "b", "c");

  @Test
  void replicasShareTheShardsAndNeitherAKilledNorAFrozenReplicaLosesOrDoublesWork(
      KubeApiServer kube) throws Exception {
    KubernetesClient client = kube.client();
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String leaseNs = kube.createNamespace("scale-lease");
    String ns = kube.createNamespace("scale");
    List<Integer> ports = List.of(FreePorts.take(), FreePorts.take(), FreePorts.take());
    String members = ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    Map<String, FaultProxy> proxies = new HashMap<>();
    Map<String, PierProcess> replicas = new HashMap<>();
    try (ReferenceWebhook webhook = ReferenceWebhook.start("")) {
      try {
        for (int i = 0; i < 3; i++) {
          String name = NAMES.get(i);
          FaultProxy proxy = FaultProxy.start(webhook.url());
          proxies.put(name, proxy);
          replicas.put(
              name,
              FaultSuite.startJar(
                  kube, name, env(kube, proxy, leaseNs, name, ports.get(i), members)));
        }
        Invariants invariants = new Invariants(client, ns, new WebhookCloud(webhook));
        for (int i = 0; i < 12; i++) {
          create(kube, ns, "svc-" + i);
        }
        PierProcess.awaitReady(replicas, PierProcess.STARTUP);
        invariants.awaitHeld(CONVERGE);
        Map<Integer, String> spread = awaitAllShardsHeld(client, leaseNs, Set.copyOf(NAMES));
        assertThat(new HashSet<>(spread.values()))
            .as("the shards are spread over the replicas: %s", spread)
            .hasSizeGreaterThanOrEqualTo(2);

        // Steady membership: every Service write of a shard comes from its Lease's holder.
        Instant steady = Instant.now();
        for (int i = 12; i < 24; i++) {
          create(kube, ns, "svc-" + i);
        }
        client.services().inNamespace(ns).withName("svc-0").delete();
        invariants.deleted("svc-0");
        invariants.awaitHeld(CONVERGE);
        Map<Integer, Set<String>> writers = serviceWriters(kube, ns, steady, Instant.MAX);
        assertThat(writers).as("shards written since %s", steady).isNotEmpty();
        writers.forEach(
            (shard, users) ->
                assertThat(users)
                    .as("writers of shard %d (Lease holders: %s)", shard, spread)
                    .containsExactly("pier-" + spread.get(shard)));

        // SIGKILL: the dead replica's shards move within the bound; everything converges.
        String dead = spread.get(0);
        Set<Integer> deadShards = shardsOf(spread, dead);
        Instant killed = Instant.now();
        replicas.get(dead).kill();
        for (int shard : deadShards) {
          create(kube, ns, nameIn(ns, shard, "after-kill"));
        }
        Set<String> alive = new HashSet<>(NAMES);
        alive.remove(dead);
        Map<Integer, String> holders = awaitAllShardsHeld(client, leaseNs, alive);
        Duration moved = Duration.between(killed, Instant.now());
        log.info("shards {} of a killed replica moved in {} ms", deadShards, moved.toMillis());
        assertThat(moved)
            .as("the killed replica's shards have new owners within the bound plus a poll")
            .isLessThan(BOUND.plusSeconds(5));
        invariants.awaitHeld(CONVERGE);

        // SIGSTOP past the Leases, then SIGCONT: nothing for a shard before its Lease is held
        // again.
        String frozen = holders.get(0);
        String other = alive.stream().filter(n -> !n.equals(frozen)).findFirst().orElseThrow();
        Set<Integer> frozenShards = shardsOf(holders, frozen);
        PierProcess frozenProcess = replicas.get(frozen);
        frozenProcess.freeze();
        for (int shard : frozenShards) {
          create(kube, ns, nameIn(ns, shard, "while-frozen"));
        }
        awaitAllShardsHeld(client, leaseNs, Set.of(other));
        invariants.awaitHeld(CONVERGE);
        int callsBefore = proxies.get(frozen).calls().size();
        Instant thawed = Instant.now();
        frozenProcess.thaw();
        // It rejoins and takes its shards back; meanwhile Services keep changing.
        for (int shard : frozenShards) {
          create(kube, ns, nameIn(ns, shard, "after-thaw"));
        }
        invariants.awaitHeld(CONVERGE);
        // Its member list merges back with the others' and it takes its share again.
        await()
            .atMost(CONVERGE)
            .until(() -> frozenProcess.metric("pier_shards_owned").orElse(0) > 0);
        invariants.awaitHeld(CONVERGE);
        Thread.sleep(3000);
        assertThat(frozenProcess.alive()).as("the frozen replica still runs").isTrue();
        List<JsonObject> writes = AuditWrites.of(kube);
        Map<Integer, Instant> retaken = leaseTakes(writes, "pier-" + frozen, thawed);
        assertThat(retaken).as("shards the thawed replica took again").isNotEmpty();
        List<String> early = new ArrayList<>();
        for (JsonObject w : writes) {
          if (!("pier-" + frozen).equals(AuditWrites.user(w))
              || !AuditWrites.received(w).isAfter(thawed)
              || !"services".equals(resource(w))) {
            continue;
          }
          int shard = MAP.of(new ServiceKey(CLUSTER, ns, name(w)));
          Instant took = retaken.get(shard);
          if (took == null || AuditWrites.received(w).isBefore(took)) {
            early.add(AuditWrites.describe(w) + " (shard " + shard + ", retaken " + took + ")");
          }
        }
        assertThat(early)
            .as("Service writes of the thawed replica before it held their shard again")
            .isEmpty();
        log.info(
            "the thawed replica took shards {} back: {}; its scale-out log:\n{}",
            frozenShards,
            retaken,
            frozenProcess
                .log()
                .lines()
                .filter(
                    l ->
                        l.contains("ScaleOut")
                            || l.contains("ShardLeases")
                            || l.contains("Replica"))
                .collect(Collectors.joining("\n")));
        Instant firstTake = retaken.values().stream().min(Instant::compareTo).orElse(Instant.MAX);
        List<FaultProxy.Call> lateCalls =
            proxies.get(frozen).calls().subList(callsBefore, proxies.get(frozen).calls().size());
        assertThat(lateCalls.stream().filter(c -> c.at().isBefore(firstTake)).toList())
            .as("provider requests of the thawed replica before it held any shard again")
            .isEmpty();
        invariants.awaitSettled(CONVERGE);
      } finally {
        replicas.values().forEach(PierProcess::close);
        proxies.values().forEach(FaultProxy::close);
      }
    }
  }

  /**
   * A replica of the loopback cluster as user pier-NAME, the webhook provider behind {@code proxy},
   * with short retries: the waits of this scenario and {@link ScaleOutScalingIT}'s (CONVERGE after
   * each kill, freeze and scaling step) were sized with them, and neither has been run at the
   * shipped 5 s doubling to 300 s.
   */
  static Map<String, String> env(
      KubeApiServer kube, FaultProxy proxy, String leaseNs, String name, int port, String members) {
    return FaultSuite.shortRetries(env(kube, proxy.url(), leaseNs, name, port, members));
  }

  /**
   * A replica of the loopback cluster as user pier-NAME, the webhook provider at {@code url}, at
   * the shipped retry delays.
   */
  static Map<String, String> env(
      KubeApiServer kube, String url, String leaseNs, String name, int port, String members) {
    Map<String, String> env = FaultSuite.webhook(url);
    env.put(
        PierOptions.CLUSTER_KUBECONFIG.envName(),
        kube.kubeconfigFor("pier-" + name + "-token").toString());
    env.put(PierOptions.SCALE_OUT_ENABLED.envName(), "true");
    env.put(PierOptions.SCALE_OUT_SHARDS.envName(), Integer.toString(SHARDS));
    env.put(PierOptions.SCALE_OUT_HOST.envName(), "127.0.0.1");
    env.put(PierOptions.SCALE_OUT_PORT.envName(), Integer.toString(port));
    env.put(PierOptions.SCALE_OUT_MEMBERS.envName(), members);
    env.put(
        PierOptions.SCALE_OUT_CLUSTER_NAME.envName(),
        "scale-out-it-" + ProcessHandle.current().pid());
    env.put(PierOptions.SCALE_OUT_HEARTBEAT_TIMEOUT.envName(), "3s");
    env.put(PierOptions.SCALE_OUT_LEASE_DURATION.envName(), "4s");
    env.put(PierOptions.SCALE_OUT_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.SCALE_OUT_RETRY_PERIOD.envName(), "1s");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), leaseNs);
    // Replicas on one machine: each event bus on a port of the system's choice.
    env.put(PierOptions.SCALE_OUT_EVENT_BUS_PORT.envName(), "0");
    env.putAll(ScaleOutCredentials.shared().env());
    return env;
  }

  /**
   * Waits until all shards' Leases are held by the replicas of {@code among} as the assignment
   * spreads them, each holding some and none more than its share (a replica that joined gets shards
   * once the others saw it renew its replica Lease); shard to name.
   */
  static Map<Integer, String> awaitAllShardsHeld(
      KubernetesClient client, String leaseNs, Set<String> among) {
    Map<Integer, String> holders = new TreeMap<>();
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              holders.clear();
              for (Lease lease : client.leases().inNamespace(leaseNs).list().getItems()) {
                String name = lease.getMetadata().getName();
                String holder = lease.getSpec().getHolderIdentity();
                if (name.startsWith(PREFIX + "-shard-") && holder != null && !holder.isEmpty()) {
                  // The identity is pier-<name>_<pid>_<node>.
                  String replica = holder.substring("pier-".length(), holder.indexOf('_'));
                  holders.put(
                      Integer.parseInt(name.substring((PREFIX + "-shard-").length())), replica);
                }
              }
              int share = (SHARDS + among.size() - 1) / among.size();
              return holders.size() == SHARDS
                  && among.containsAll(holders.values())
                  && holders.values().containsAll(among)
                  && among.stream()
                      .allMatch(r -> Collections.frequency(holders.values(), r) <= share);
            });
    return holders;
  }

  private static Set<Integer> shardsOf(Map<Integer, String> holders, String replica) {
    Set<Integer> shards = new TreeSet<>();
    holders.forEach(
        (shard, holder) -> {
          if (holder.equals(replica)) {
            shards.add(shard);
          }
        });
    return shards;
  }

  /** Per shard, the users that wrote its Services (or their status) between the two instants. */
  private static Map<Integer, Set<String>> serviceWriters(
      KubeApiServer kube, String ns, Instant from, Instant to) throws IOException {
    Map<Integer, Set<String>> writers = new TreeMap<>();
    for (JsonObject w : AuditWrites.of(kube)) {
      Instant at = AuditWrites.received(w);
      if (at.isAfter(from)
          && at.isBefore(to)
          && "services".equals(resource(w))
          && ns.equals(w.getJsonObject("objectRef").getString("namespace"))
          && AuditWrites.user(w).startsWith("pier-")) {
        writers
            .computeIfAbsent(MAP.of(new ServiceKey(CLUSTER, ns, name(w))), s -> new TreeSet<>())
            .add(AuditWrites.user(w));
      }
    }
    return writers;
  }

  /** When {@code user} wrote each shard's Lease after {@code after}: it took or renewed it. */
  private static Map<Integer, Instant> leaseTakes(
      List<JsonObject> writes, String user, Instant after) {
    Map<Integer, Instant> took = new HashMap<>();
    for (JsonObject w : writes) {
      if (user.equals(AuditWrites.user(w))
          && AuditWrites.received(w).isAfter(after)
          && "leases".equals(resource(w))
          && name(w).startsWith(PREFIX + "-shard-")) {
        int shard = Integer.parseInt(name(w).substring((PREFIX + "-shard-").length()));
        took.merge(shard, AuditWrites.received(w), (x, y) -> x.isBefore(y) ? x : y);
      }
    }
    return took;
  }

  private static String resource(JsonObject write) {
    return write.getJsonObject("objectRef", new JsonObject()).getString("resource");
  }

  private static String name(JsonObject write) {
    return write.getJsonObject("objectRef", new JsonObject()).getString("name", "");
  }

  /** A Service name whose key falls into {@code shard}. */
  private static String nameIn(String ns, int shard, String prefix) {
    for (int i = 0; ; i++) {
      String name = prefix + "-" + i;
      if (MAP.of(new ServiceKey(CLUSTER, ns, name)) == shard) {
        return name;
      }
    }
  }

  static void create(KubeApiServer kube, String ns, String name) {
    kube.client()
        .services()
        .inNamespace(ns)
        .resource(loadBalancer(ns, name, 80, kube.freeNodePort()))
        .create();
  }
}
