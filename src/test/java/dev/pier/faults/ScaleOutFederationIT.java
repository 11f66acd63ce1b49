package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FederationLeaderFreezeIT.awaitCopy;
import static dev.pier.faults.FederationLeaderFreezeIT.copy;
import static dev.pier.faults.FederationLeaderFreezeIT.create;
import static dev.pier.faults.FederationLeaderFreezeIT.labels;
import static dev.pier.faults.ScaleOutIT.NAMES;
import static dev.pier.faults.ScaleOutIT.awaitAllShardsHeld;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.federation.IngressAnnotation;
import dev.pier.model.FederationKeys;
import dev.pier.shards.ShardMap;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.KubeApiServers;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.PowerDnsServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scale-out with a federation of four members over three Pier processes. The host side of the
 * federation (the aggregate, the finalizers) belongs to shard 0, and each member's side (its
 * caches, its copies) to that member's shard: only shard 0's owner writes federated host Services,
 * and only a member shard's owner writes copies in that member, reading copies of members it does
 * not own from their owners over the clustered event bus. When shard 0's owner is killed (SIGKILL),
 * the replica that takes shard 0 rebuilds the aggregate from the members' owners: the host's status
 * keeps every member's address and follows a new one, and the copies follow the host's changes.
 * Throughout, each write of a shard's objects is made by the replica that holds the shard's Lease
 * at that moment (docs/scale-out.md: nothing runs for a shard in two replicas at once), which the
 * host's audit log of the shard Leases and the audit logs of the writes show in order.
 */
@RealKubeApiServer(
    auditLog = true,
    users = {
      @RealKubeApiServer.User(token = "pier-a-token", name = "pier-a", groups = "system:masters"),
      @RealKubeApiServer.User(token = "pier-b-token", name = "pier-b", groups = "system:masters"),
      @RealKubeApiServer.User(token = "pier-c-token", name = "pier-c", groups = "system:masters")
    })
class ScaleOutFederationIT {
  private static final Logger log = LoggerFactory.getLogger(ScaleOutFederationIT.class);
  private static final ShardMap MAP = new ShardMap(ScaleOutIT.SHARDS);
  private static final String ZONE = "scale.test";

  /** Four member names whose member shards differ from each other and from shard 0. */
  static final List<String> MEMBERS = memberNames();

  private static List<String> memberNames() {
    List<String> names = new ArrayList<>();
    Set<Integer> used = new HashSet<>(Set.of(ShardMap.CLUSTER_WIDE));
    for (String candidate :
        List.of(
            "east", "west", "north", "south", "central", "edge", "core", "island", "harbor",
            "delta", "ridge", "valley", "coast", "plain", "summit", "lake")) {
      if (names.size() < 4 && used.add(MAP.ofMember(candidate))) {
        names.add(candidate);
      }
    }
    assertThat(names).as("member names on distinct shards").hasSize(4);
    return List.copyOf(names);
  }

  @Test
  void eachSideIsWrittenByItsShardsOwnerAndTheAggregateSurvivesTheHostOwnersDeath(
      KubeApiServer host) throws Exception {
    Map<String, KubeApiServer> members = startMembers();
    try (ReferenceWebhook webhook = ReferenceWebhook.start("");
        PowerDnsServer pdns = PowerDnsServer.create()) {
      pdns.createZone(ZONE + ".");
      String leaseNs = host.createNamespace("fed-scale-lease");
      String ns = host.createNamespace("fed-scale");
      FederatedServices.optIn(host.client(), ns);
      List<Integer> ports = List.of(FreePorts.take(), FreePorts.take(), FreePorts.take());
      String peers = ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
      Map<String, PierProcess> replicas = new HashMap<>();
      try {
        for (int i = 0; i < 3; i++) {
          String name = NAMES.get(i);
          replicas.put(
              name, start(host, members, webhook, pdns, name, leaseNs, ports.get(i), peers));
        }
        for (int i = 0; i < 3; i++) {
          create(host, ns, "svc-" + i);
        }
        PierProcess.awaitReady(replicas, PierProcess.STARTUP);
        Map<Integer, String> holders =
            awaitAllShardsHeld(host.client(), leaseNs, Set.copyOf(NAMES));
        for (KubeApiServer member : members.values()) {
          for (int i = 0; i < 3; i++) {
            awaitCopy(member, ns, "svc-" + i);
          }
        }
        // The replicas joined one after another and shards moved meanwhile: from now on the
        // owners are settled (checked again below).
        Instant settled = Instant.now();
        log.info(
            "host side on {}, members on {}", holders.get(ShardMap.CLUSTER_WIDE), owners(holders));
        Map<String, String> ips = new TreeMap<>();
        for (int i = 0; i < MEMBERS.size(); i++) {
          String ip = "203.0.113." + (10 + i);
          ips.put(MEMBERS.get(i), ip);
          KubeApiServer member = members.get(MEMBERS.get(i));
          // Ready endpoints: read by the member's owner, whenever it took the member's shard.
          FederatedServices.endpointSlice(member.client(), ns, "svc-0", true);
          setIngress(member, ns, "svc-0", ip);
        }
        create(host, ns, "svc-2b");
        await()
            .atMost(CONVERGE)
            .untilAsserted(
                () -> {
                  assertAggregate(host, ns, ips, "");
                  members.forEach(
                      (name, m) ->
                          assertThat(copy(m, ns, "svc-2b")).as("svc-2b in " + name).isNotNull());
                });
        await()
            .atMost(CONVERGE)
            .untilAsserted(
                () ->
                    assertThat(servingMembers(host, ns, "svc-0"))
                        .as("members listed with their ingress in the host's annotation")
                        .isEqualTo(ips));
        String global = "svc-0." + ns + ".pier.svc." + ZONE + ".";
        await()
            .atMost(CONVERGE)
            .untilAsserted(
                () ->
                    assertThat(pdns.dig(global, "A"))
                        .as(global)
                        .containsExactlyInAnyOrderElementsOf(ips.values()));
        Set<String> before = Set.copyOf(ips.values());
        assertThat(awaitAllShardsHeld(host.client(), leaseNs, Set.copyOf(NAMES)))
            .as("shard owners while the writes were made")
            .isEqualTo(holders);
        assertWriters(host, members, ns, settled, holders);

        String dead = holders.get(ShardMap.CLUSTER_WIDE);
        Instant killed = Instant.now();
        // What the global name answers from the kill on, until it names the moved address.
        NameWatch watch = NameWatch.start(pdns, global);
        replicas.get(dead).kill();
        String moved = MEMBERS.get(0);
        ips.put(moved, "203.0.113.20");
        setIngress(members.get(moved), ns, "svc-0", ips.get(moved));
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
        alive.remove(dead);
        Map<Integer, String> successors = awaitAllShardsHeld(host.client(), leaseNs, alive);
        log.info(
            "after {} died: host side on {}, members on {}",
            dead,
            successors.get(ShardMap.CLUSTER_WIDE),
            owners(successors));
        await()
            .atMost(CONVERGE)
            .untilAsserted(
                () -> {
                  assertAggregate(host, ns, ips, " after the move");
                  members.forEach(
                      (name, m) -> {
                        assertThat(labels(copy(m, ns, "svc-1")))
                            .as("svc-1's labels in " + name)
                            .containsEntry("version", "2");
                        assertThat(copy(m, ns, "svc-3")).as("svc-3 in " + name).isNotNull();
                      });
                });
        assertThat(hostIngress(host, ns, "svc-0"))
            .as("the aggregate keeps every member's address")
            .hasSize(MEMBERS.size());
        await()
            .atMost(CONVERGE)
            .untilAsserted(
                () ->
                    assertThat(pdns.dig(global, "A"))
                        .as(global + " after the move")
                        .containsExactlyInAnyOrderElementsOf(ips.values()));
        List<List<String>> answers = watch.stop();
        log.info(
            "{}: {} answers from the kill until it named the moved address, {} s after the kill",
            global,
            answers.size(),
            Duration.between(killed, Instant.now()).toMillis() / 1000.0);
        Set<String> either = new HashSet<>(before);
        either.addAll(ips.values());
        assertThat(answers).as("answers of %s while the host side moved", global).isNotEmpty();
        for (List<String> answer : answers) {
          // Never emptied, and never another address: the old set until the new owner writes.
          assertThat(answer).as("an answer of %s while the host side moved", global).isNotEmpty();
          assertThat(either).containsAll(answer);
          assertThat(answer).hasSize(MEMBERS.size());
        }
        // The survivors went on past the handover: the host's API server saw each of them (its
        // shard Leases' renewals) after everything converged. Only then are the logs read.
        Instant converged = Instant.now();
        for (String name : alive) {
          AuditWrites.awaitRequestAfter(host, "pier-" + name, converged, CONVERGE);
          assertThat(replicas.get(name).alive()).as("replica %s still runs", name).isTrue();
        }
        assertWritersAcrossTheMove(host, members, ns, killed, holders, successors, dead);
        assertWrittenByTheLeaseHolder(host, members, ns, leaseNs, settled);
      } finally {
        replicas.values().forEach(PierProcess::close);
      }
    } finally {
      members.values().forEach(KubeApiServer::close);
    }
  }

  /** Each member's API server, started side by side. */
  private static Map<String, KubeApiServer> startMembers() throws Exception {
    return KubeApiServers.start(
        MEMBERS,
        MEMBERS.size(),
        () ->
            KubeApiServer.builder()
                .withUser("pier-a-token", "pier-a", "system:masters")
                .withUser("pier-b-token", "pier-b", "system:masters")
                .withUser("pier-c-token", "pier-c", "system:masters")
                .withAuditLog()
                .start());
  }

  /**
   * Since {@code from}, federated host Services were written by shard 0's owner alone, and each
   * member's copies by its member shard's owner alone.
   */
  private static void assertWriters(
      KubeApiServer host,
      Map<String, KubeApiServer> members,
      String ns,
      Instant from,
      Map<Integer, String> holders)
      throws Exception {
    assertThat(writers(host, ns, from))
        .as("who wrote federated host Services (shard 0 held by %s)", holders.get(0))
        .containsExactly("pier-" + holders.get(ShardMap.CLUSTER_WIDE));
    for (String name : MEMBERS) {
      String owner = holders.get(MAP.ofMember(name));
      assertThat(writers(members.get(name), ns, from))
          .as("who wrote copies in %s (its shard %d held by %s)", name, MAP.ofMember(name), owner)
          .containsExactly("pier-" + owner);
    }
  }

  /**
   * Since the kill: federated host Services were written by shard 0's new owner alone, and each
   * member's copies by the owner of its member shard before the kill or after it. With bounded
   * loads a survivor's shard may move too when a replica leaves (docs/scale-out.md, "Owners"), and
   * writes made before it moved are its old owner's.
   */
  private static void assertWritersAcrossTheMove(
      KubeApiServer host,
      Map<String, KubeApiServer> members,
      String ns,
      Instant from,
      Map<Integer, String> before,
      Map<Integer, String> after,
      String dead)
      throws Exception {
    assertThat(writers(host, ns, from))
        .as("who wrote federated host Services (shard 0 now held by %s)", after.get(0))
        .containsExactly("pier-" + after.get(ShardMap.CLUSTER_WIDE));
    for (String name : MEMBERS) {
      int shard = MAP.ofMember(name);
      Set<String> owners = new TreeSet<>();
      owners.add("pier-" + after.get(shard));
      if (!before.get(shard).equals(dead)) {
        owners.add("pier-" + before.get(shard));
      }
      assertThat(writers(members.get(name), ns, from))
          .as(
              "who wrote copies in %s (its shard %d held by %s, then %s)",
              name, shard, before.get(shard), after.get(shard))
          .isNotEmpty()
          .isSubsetOf(owners);
    }
  }

  /**
   * Each write of a shard's objects since {@code from} (federated host Services: shard 0; a
   * member's copies: its member shard) was made by the replica that held the shard's Lease at that
   * moment: the user whose successful write of the Lease (its take or a renewal) came last before
   * it, in the host's audit log. So after a handover every write is the new owner's, and none of
   * the old owner's comes after the new owner's take, however the writes interleave; and no replica
   * writes for a shard before it took the Lease. The API servers run on one machine, so their audit
   * logs share one clock.
   */
  private static void assertWrittenByTheLeaseHolder(
      KubeApiServer host,
      Map<String, KubeApiServer> members,
      String ns,
      String leaseNs,
      Instant from)
      throws Exception {
    Map<Integer, TreeMap<Instant, String>> leaseWrites = new HashMap<>();
    String prefix = "pier-shard-";
    for (JsonObject w : AuditWrites.of(host)) {
      JsonObject ref = w.getJsonObject("objectRef", new JsonObject());
      String name = ref.getString("name", "");
      if ("leases".equals(ref.getString("resource"))
          && leaseNs.equals(ref.getString("namespace"))
          && name.startsWith(prefix)) {
        leaseWrites
            .computeIfAbsent(
                Integer.parseInt(name.substring(prefix.length())), n -> new TreeMap<>())
            .put(AuditWrites.received(w), AuditWrites.user(w));
      }
    }
    List<String> outOfTurn = new ArrayList<>();
    Map<String, Integer> checked = new TreeMap<>();
    Map<String, Integer> shards = new TreeMap<>();
    shards.put("host", ShardMap.CLUSTER_WIDE);
    MEMBERS.forEach(m -> shards.put(m, MAP.ofMember(m)));
    for (Map.Entry<String, Integer> e : shards.entrySet()) {
      KubeApiServer kube = e.getKey().equals("host") ? host : members.get(e.getKey());
      int shard = e.getValue();
      TreeMap<Instant, String> lease = leaseWrites.getOrDefault(shard, new TreeMap<>());
      for (JsonObject w : serviceWrites(kube, ns, from)) {
        Map.Entry<Instant, String> last = lease.lowerEntry(AuditWrites.received(w));
        checked.merge(e.getKey(), 1, Integer::sum);
        if (last == null || !last.getValue().equals(AuditWrites.user(w))) {
          outOfTurn.add(
              e.getKey()
                  + ": "
                  + AuditWrites.describe(w)
                  + " by "
                  + AuditWrites.user(w)
                  + ", while shard "
                  + shard
                  + "'s Lease was last written by "
                  + (last == null ? "no one" : last.getValue() + " at " + last.getKey())
                  + "; its writes around it: "
                  + around(lease, AuditWrites.received(w)));
        }
      }
    }
    log.info("writes checked against their shard's Lease holder, per cluster: {}", checked);
    assertThat(checked).as("writes checked, per cluster").isNotEmpty();
    assertThat(outOfTurn)
        .as("writes of a shard's objects by a replica that did not hold its Lease then")
        .isEmpty();
  }

  /** The Lease writes (time, user) just before and after {@code at}. */
  private static String around(TreeMap<Instant, String> lease, Instant at) {
    List<String> out = new ArrayList<>();
    lease.headMap(at, false).descendingMap().entrySet().stream()
        .limit(2)
        .forEach(x -> out.add(0, x.getKey() + " " + x.getValue()));
    out.add("[" + at + "]");
    lease.tailMap(at, false).entrySet().stream()
        .limit(2)
        .forEach(x -> out.add(x.getKey() + " " + x.getValue()));
    return out.toString();
  }

  private static Map<String, String> owners(Map<Integer, String> holders) {
    Map<String, String> owners = new TreeMap<>();
    MEMBERS.forEach(m -> owners.put(m, holders.get(MAP.ofMember(m))));
    return owners;
  }

  private static PierProcess start(
      KubeApiServer host,
      Map<String, KubeApiServer> members,
      ReferenceWebhook webhook,
      PowerDnsServer pdns,
      String name,
      String leaseNs,
      int port,
      String peers)
      throws Exception {
    String token = "pier-" + name + "-token";
    FederationConfig yaml = FederationConfig.host(host.kubeconfigFor(token));
    members.forEach(
        (member, kube) -> yaml.member(member, kube.kubeconfigFor(token)).loadBalancers(false));
    yaml.health("500ms", "400ms");
    Path config = host.directory().resolve("pier-" + name + "-scale-out-federation.yaml");
    Files.writeString(config, yaml.yaml());
    Map<String, String> env = ScaleOutIT.env(host, webhook.url(), leaseNs, name, port, peers);
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), null);
    env.putAll(pdns.pierEnv(ZONE, "pier-scale-out"));
    return FaultSuite.startJar(host, name, config, env);
  }

  /** The users that wrote Services in {@code ns} of {@code kube} after {@code from}. */
  private static Set<String> writers(KubeApiServer kube, String ns, Instant from) throws Exception {
    return serviceWrites(kube, ns, from).stream()
        .map(AuditWrites::user)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** Pier's writes of Services in {@code ns} of {@code kube} after {@code from}. */
  private static List<JsonObject> serviceWrites(KubeApiServer kube, String ns, Instant from)
      throws Exception {
    List<JsonObject> out = new ArrayList<>();
    for (JsonObject w : AuditWrites.of(kube)) {
      JsonObject ref = w.getJsonObject("objectRef", new JsonObject());
      if ("services".equals(ref.getString("resource"))
          && ns.equals(ref.getString("namespace"))
          && AuditWrites.received(w).isAfter(from)
          && AuditWrites.user(w).startsWith("pier-")) {
        out.add(w);
      }
    }
    return out;
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

  /** Member to its ingress IP, for the members the host's ingress annotation lists as serving. */
  private static Map<String, String> servingMembers(KubeApiServer host, String ns, String name) {
    Service s = host.client().services().inNamespace(ns).withName(name).get();
    String json =
        s == null || s.getMetadata().getAnnotations() == null
            ? null
            : s.getMetadata().getAnnotations().get(FederationKeys.INGRESSES_ANNOTATION);
    Map<String, String> serving = new TreeMap<>();
    for (IngressAnnotation.ClusterIngresses c : IngressAnnotation.parse(json)) {
      if (!c.items().isEmpty()) {
        serving.put(c.cluster(), c.items().get(0).getIp());
      }
    }
    return serving;
  }

  /** svc-0's aggregate on the host holds the members' addresses, no more and no fewer. */
  private static void assertAggregate(
      KubeApiServer host, String ns, Map<String, String> ips, String when) {
    assertThat(Set.copyOf(hostIngress(host, ns, "svc-0")))
        .as("svc-0's aggregate on the host" + when)
        .isEqualTo(Set.copyOf(ips.values()));
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

  /**
   * Asks PowerDNS for a name every 250 ms on a thread of its own; an answer lost to a timeout is
   * not counted, a NOERROR or NXDOMAIN without addresses is (as an empty answer).
   */
  private static final class NameWatch {
    private final List<List<String>> answers = new CopyOnWriteArrayList<>();
    private final Thread thread;

    private NameWatch(PowerDnsServer pdns, String name) {
      thread =
          new Thread(
              () -> {
                while (!Thread.currentThread().isInterrupted()) {
                  List<String> a = pdns.dig(name, "A");
                  if (!a.isEmpty() || !pdns.digStatus(name, "A").equals("none")) {
                    answers.add(a);
                  }
                  try {
                    Thread.sleep(250);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "name-watch");
      thread.setDaemon(true);
    }

    static NameWatch start(PowerDnsServer pdns, String name) {
      NameWatch w = new NameWatch(pdns, name);
      w.thread.start();
      return w;
    }

    List<List<String>> stop() throws InterruptedException {
      thread.interrupt();
      thread.join(15_000);
      return List.copyOf(answers);
    }
  }
}
