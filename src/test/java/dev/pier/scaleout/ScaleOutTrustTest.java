package dev.pier.scaleout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.ScaleOutNodes;
import dev.pier.shards.Rendezvous;
import dev.pier.shards.ScaleOutOptions;
import dev.pier.shards.ShardMap;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.ScaleOutCredentials;
import dev.pier.testkit.TrustAll;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.internal.VertxInternal;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who counts in scale-out, on a real API server with one in-process replica and clustered Vert.x
 * nodes on loopback that know the cluster's name and reach its port: without the TLS credential a
 * node can neither hear nor speak on the event bus; with it, but without a replica Lease of its
 * own, it gets no shards; a replica whose Lease goes stale loses its share, and a shard whose Lease
 * is left free is taken whatever the assignment says.
 */
@RealKubeApiServer
class ScaleOutTrustTest {
  private static final int SHARDS = 32;
  private static final Duration LEASE = Duration.ofSeconds(3);
  // Nodes that hold the transport credential but are no proven replica.
  private static final int UNPROVEN = 6;
  private static final Duration RETRY = Duration.ofMillis(500);
  private static final String CLUSTER = "trust-" + ProcessHandle.current().pid();

  /** A replica of 32 shards alone on its member list; the others join it. */
  private static InProcessPier replica(
      String leaseNs, int port, int eventBusPort, KubeApiServer kube) {
    Map<String, String> env = new HashMap<>(ScaleOutCredentials.shared().env());
    env.put("PIER_CLUSTER_KUBECONFIG", kube.kubeconfigPath().toString());
    env.put("PIER_PROVIDER", "benchmark");
    env.put("PIER_BENCHMARK_DELAY", "0s");
    env.put("PIER_LEADER_ELECTION_ENABLED", "false");
    env.put("PIER_LEADER_ELECTION_NAMESPACE", leaseNs);
    env.put("PIER_SCALE_OUT_ENABLED", "true");
    env.put("PIER_SCALE_OUT_SHARDS", Integer.toString(SHARDS));
    env.put("PIER_SCALE_OUT_CLUSTER_NAME", CLUSTER);
    env.put("PIER_SCALE_OUT_HOST", "127.0.0.1");
    env.put("PIER_SCALE_OUT_PORT", Integer.toString(port));
    env.put("PIER_SCALE_OUT_MEMBERS", "127.0.0.1:" + port);
    env.put("PIER_SCALE_OUT_EVENT_BUS_PORT", Integer.toString(eventBusPort));
    env.put("PIER_SCALE_OUT_HEARTBEAT_TIMEOUT", "2s");
    env.put("PIER_SCALE_OUT_LEASE_DURATION", "3s");
    env.put("PIER_SCALE_OUT_RENEW_DEADLINE", "2s");
    env.put("PIER_SCALE_OUT_RETRY_PERIOD", "500ms");
    return InProcessPier.start(kube, env);
  }

  /** Options of a node that joins the replica at {@code replicaPort}. */
  private static ScaleOutOptions joining(int replicaPort) {
    return new ScaleOutOptions(
        SHARDS,
        CLUSTER,
        "127.0.0.1",
        FreePorts.take(),
        List.of("127.0.0.1:" + replicaPort),
        "",
        ScaleOutOptions.DEFAULT_CLUSTER_DOMAIN,
        Duration.ofSeconds(2),
        LEASE,
        Duration.ofSeconds(2),
        RETRY,
        0);
  }

  private static Vertx start(ScaleOutOptions options, ScaleOutCredentials.Material tls)
      throws Exception {
    return started(ScaleOutNodes.node(options, tls));
  }

  private static Vertx started(Future<Vertx> node) throws Exception {
    return node.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  private static String nodeId(Vertx vertx) {
    return ((VertxInternal) vertx).clusterManager().getNodeId();
  }

  private static int members(Vertx vertx) {
    return ((VertxInternal) vertx).clusterManager().getNodes().size();
  }

  private static double gauge(InProcessPier pier, String name) {
    Gauge g = pier.pier().metrics().registry().find(name).gauge();
    return g == null ? -1 : g.value();
  }

  /** Shard to holder, of the shard Leases held now. */
  private static Map<Integer, String> holders(KubernetesClient client, String leaseNs) {
    Map<Integer, String> holders = new TreeMap<>();
    for (Lease lease : client.leases().inNamespace(leaseNs).list().getItems()) {
      String name = lease.getMetadata().getName();
      String holder = lease.getSpec().getHolderIdentity();
      if (name.startsWith("pier-shard-") && holder != null && !holder.isEmpty()) {
        holders.put(Integer.parseInt(name.substring("pier-shard-".length())), holder);
      }
    }
    return holders;
  }

  private static void close(Vertx vertx) {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Closing a test node; the JVM goes on.
    }
  }

  @Test
  void aNodeWithoutTheCredentialNeitherHearsNorSpeaksOnTheEventBus(
      KubeApiServer kube, @TempDir Path otherCa) throws Exception {
    String leaseNs = kube.createNamespace("trust-tls");
    int port = FreePorts.take();
    int eventBusPort = FreePorts.take();
    List<Vertx> nodes = new ArrayList<>();
    try (InProcessPier pier = replica(leaseNs, port, eventBusPort, kube)) {
      Vertx replica = pier.pier().vertx();
      // Three nodes without the credential: the attack that once took shards from the replicas.
      List<Future<Vertx>> startingRogues = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        startingRogues.add(ScaleOutNodes.node(joining(port), null));
      }
      Future<Vertx> starting = startingRogues.get(0);
      Future<Vertx> startingPeer = ScaleOutNodes.node(joining(port), ScaleOutCredentials.shared());
      Future<Vertx> startingImpostor =
          ScaleOutNodes.impostor(joining(port), ScaleOutCredentials.other(otherCa));
      Vertx rogue = started(starting);
      nodes.add(rogue);
      for (Future<Vertx> other : startingRogues.subList(1, startingRogues.size())) {
        nodes.add(started(other));
      }
      Vertx peer = started(startingPeer);
      nodes.add(peer);
      Vertx impostor = started(startingImpostor);
      nodes.add(impostor);
      // Only the peer with the credential joins the membership; the others stay alone.
      await().atMost(InProcessPier.CONVERGE).until(() -> members(replica) == 2);

      AtomicInteger rogueHeard = new AtomicInteger();
      MessageConsumer<Object> rogueInbox =
          rogue
              .eventBus()
              .consumer(
                  "trust.rogue",
                  m -> {
                    rogueHeard.incrementAndGet();
                    m.reply("rogue");
                  });
      rogueInbox.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      AtomicInteger impostorHeard = new AtomicInteger();
      MessageConsumer<Object> impostorInbox =
          impostor
              .eventBus()
              .consumer(
                  "trust.impostor",
                  m -> {
                    impostorHeard.incrementAndGet();
                    m.reply("impostor");
                  });
      impostorInbox
          .completion()
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      MessageConsumer<Object> peerInbox =
          peer.eventBus().consumer("trust.peer", m -> m.reply("peer"));
      peerInbox.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      AtomicInteger replicaHeard = new AtomicInteger();
      MessageConsumer<Object> replicaInbox =
          replica
              .eventBus()
              .consumer(
                  "trust.replica",
                  m -> {
                    replicaHeard.incrementAndGet();
                    m.reply("replica");
                  });
      replicaInbox.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

      // A peer with the credential hears the replica and is heard: the bus works on TLS.
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> answered(replica, "trust.peer") && answered(peer, "trust.replica"));
      int heardFromPeer = replicaHeard.get();

      for (int i = 0; i < 2; i++) {
        assertThat(answered(replica, "trust.rogue")).as("the rogue answered the replica").isFalse();
        assertThat(answered(rogue, "trust.replica")).as("the replica answered the rogue").isFalse();
        assertThat(answered(replica, "trust.impostor"))
            .as("an impostor with another CA's certificate answered the replica")
            .isFalse();
      }
      assertThat(rogueHeard.get()).as("messages the rogue received").isZero();
      assertThat(impostorHeard.get()).as("messages the impostor received").isZero();
      assertThat(replicaHeard.get()).as("messages the replica received").isEqualTo(heardFromPeer);

      assertThat(members(replica)).as("members the replica counts").isEqualTo(2);
      assertThat(members(rogue)).as("members the rogue counts").isEqualTo(1);
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(
              () -> {
                Map<Integer, String> holders = holders(kube.client(), leaseNs);
                assertThat(holders).as("shard Leases held").hasSize(SHARDS);
                assertThat(new TreeSet<>(holders.values())).as("their holders").hasSize(1);
              });
      assertThat(members(impostor)).as("members the impostor counts").isEqualTo(1);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> gauge(pier, "pier.scale.out.unproven.members") == 1.0);
      assertThat(gauge(pier, "pier.scale.out.replicas")).as("replicas counted").isEqualTo(1.0);

      // On the event-bus and membership ports: no certificate, no connection; the replicas'
      // certificate, one.
      assertThat(handshake(eventBusPort, null))
          .as("a client without certificate")
          .isNotEqualTo(Handshake.WAITING);
      assertThat(handshake(eventBusPort, ScaleOutCredentials.shared()))
          .as("a client with the replicas' certificate")
          .isEqualTo(Handshake.WAITING);
      assertThat(handshake(port, null))
          .as("the membership, to a client without certificate")
          .isEqualTo(Handshake.ALERT);
      // JGroups closes a connection that sends no JGroups header, after the handshake succeeded.
      assertThat(handshake(port, ScaleOutCredentials.shared()))
          .as("the membership, to a client with the replicas' certificate")
          .isNotEqualTo(Handshake.ALERT);
    } finally {
      nodes.forEach(ScaleOutTrustTest::close);
    }
  }

  private static boolean answered(Vertx from, String address) {
    try {
      from.eventBus()
          .request(address, "ping", new DeliveryOptions().setSendTimeout(1500))
          .toCompletionStage()
          .toCompletableFuture()
          .get(5, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /** How a server treated a TLS client: what the client saw within 2 s. */
  private enum Handshake {
    /** The handshake, or with TLS 1.3 the first read, failed: an alert, the client refused. */
    ALERT,
    /** Accepted, then closed without a word (a client that does not speak the protocol). */
    CLOSED,
    /** Accepted and left waiting for data. */
    WAITING
  }

  /**
   * Connects a TLS client that trusts any server and presents {@code tls}'s certificate, or none,
   * to {@code port}: with TLS 1.3 a server's refusal of the client arrives after the client's side
   * of the handshake, at the first read.
   */
  private static Handshake handshake(int port, ScaleOutCredentials.Material tls) throws Exception {
    SSLContext context = TrustAll.context(tls == null ? null : keyManagers(tls));
    try (Socket plain = new Socket("127.0.0.1", port);
        SSLSocket socket =
            (SSLSocket) context.getSocketFactory().createSocket(plain, "127.0.0.1", port, true)) {
      socket.setSoTimeout(2000);
      socket.startHandshake();
      return socket.getInputStream().read() < 0 ? Handshake.CLOSED : Handshake.WAITING;
    } catch (SocketTimeoutException e) {
      return Handshake.WAITING;
    } catch (IOException e) {
      return Handshake.ALERT;
    }
  }

  private static KeyManager[] keyManagers(ScaleOutCredentials.Material tls) throws Exception {
    String pem = Files.readString(tls.key());
    byte[] der =
        Base64.getDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
    Certificate cert;
    try (var in = Files.newInputStream(tls.cert())) {
      cert = CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry(
        "replica",
        KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der)),
        new char[0],
        new Certificate[] {cert});
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, new char[0]);
    return factory.getKeyManagers();
  }

  /**
   * Six nodes with the transport credential but no replica Lease join a replica: it counts one
   * replica, six unproven members, and keeps all 32 shards.
   */
  @Test
  void membersWithoutAReplicaLeaseGetNoShards(KubeApiServer kube) throws Exception {
    String leaseNs = kube.createNamespace("trust-proof");
    int port = FreePorts.take();
    List<Vertx> nodes = new ArrayList<>();
    try (InProcessPier pier = replica(leaseNs, port, 0, kube)) {
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> holders(kube.client(), leaseNs).size() == SHARDS);
      List<Future<Vertx>> joining = new ArrayList<>();
      for (int i = 0; i < UNPROVEN; i++) {
        joining.add(ScaleOutNodes.node(joining(port), ScaleOutCredentials.shared()));
      }
      for (Future<Vertx> node : joining) {
        nodes.add(started(node));
      }
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> members(pier.pier().vertx()) == 1 + UNPROVEN);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> gauge(pier, "pier.scale.out.unproven.members") == UNPROVEN);
      await()
          .during(LEASE.plusSeconds(1))
          .atMost(LEASE.plusSeconds(5))
          .untilAsserted(
              () -> {
                Map<Integer, String> holders = holders(kube.client(), leaseNs);
                assertThat(holders).as("shard Leases held").hasSize(SHARDS);
                assertThat(new TreeSet<>(holders.values())).as("their holders").hasSize(1);
                assertThat(gauge(pier, "pier.scale.out.replicas")).isEqualTo(1.0);
              });
    } finally {
      nodes.forEach(ScaleOutTrustTest::close);
    }
  }

  /**
   * A second replica stands in for a real one: a clustered node with the credential whose replica
   * Lease and assigned shard Leases the test renews. A shard Lease it leaves free is taken by the
   * replica within a lease duration and a retry period though assigned to the other; when the
   * other's replica Lease goes stale, the replica counts it no more and takes all its shards.
   */
  @Test
  void aStaleReplicaLosesItsShareAndAFreeShardIsTakenWhateverTheAssignment(KubeApiServer kube)
      throws Exception {
    KubernetesClient client = kube.client();
    String leaseNs = kube.createNamespace("trust-stale");
    int port = FreePorts.take();
    String other = "other-replica";
    Map<String, String> renewed = new ConcurrentHashMap<>();
    for (int s = 0; s < SHARDS; s++) {
      renewed.put("pier-shard-" + s, other);
    }
    ScheduledExecutorService keeper = Executors.newSingleThreadScheduledExecutor();
    keeper.scheduleWithFixedDelay(
        () -> renewed.forEach((name, holder) -> renew(client, leaseNs, name, holder)),
        0,
        300,
        TimeUnit.MILLISECONDS);
    List<Vertx> nodes = new ArrayList<>();
    try {
      // The other holds every shard before the replica starts, then its node joins with a Lease.
      await().atMost(InProcessPier.CONVERGE).until(() -> holders(client, leaseNs).size() == SHARDS);
      try (InProcessPier pier = replica(leaseNs, port, 0, kube)) {
        Vertx node = start(joining(port), ScaleOutCredentials.shared());
        nodes.add(node);
        String otherNode = nodeId(node);
        renewed.put("pier-replica-" + otherNode, otherNode);
        String self = nodeId(pier.pier().vertx());
        Map<Integer, String> assignment =
            Rendezvous.assign(List.of(self, otherNode), new ShardMap(SHARDS));
        Set<Integer> mine = new TreeSet<>();
        assignment.forEach(
            (shard, owner) -> {
              if (owner.equals(self)) {
                mine.add(shard);
              }
            });
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> gauge(pier, "pier.scale.out.replicas") == 2.0);
        // The other gives up the replica's share; the replica takes exactly that.
        for (int shard : mine) {
          renewed.remove("pier-shard-" + shard);
          release(client, leaseNs, "pier-shard-" + shard);
        }
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> replicaShards(client, leaseNs, other).equals(mine));
        await()
            .during(LEASE)
            .atMost(LEASE.plusSeconds(3))
            .until(() -> replicaShards(client, leaseNs, other).equals(mine));

        // A shard of the other's share left free: taken anyway, within the bound.
        int freed =
            assignment.entrySet().stream()
                .filter(e -> e.getValue().equals(otherNode))
                .findFirst()
                .orElseThrow()
                .getKey();
        renewed.remove("pier-shard-" + freed);
        release(client, leaseNs, "pier-shard-" + freed);
        Instant released = Instant.now();
        await()
            .atMost(InProcessPier.CONVERGE)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> replicaShards(client, leaseNs, other).contains(freed));
        Duration taken = Duration.between(released, Instant.now());
        assertThat(taken)
            .as("a free shard is taken within twice leaseDuration + retryPeriod (and a request)")
            .isLessThan(LEASE.multipliedBy(2).plus(RETRY).plusSeconds(1));
        assertThat(gauge(pier, "pier.scale.out.replicas")).isEqualTo(2.0);

        // The other stops renewing anything: its share moves to the replica.
        renewed.clear();
        Instant stale = Instant.now();
        await()
            .atMost(InProcessPier.CONVERGE)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> replicaShards(client, leaseNs, other).size() == SHARDS);
        assertThat(Duration.between(stale, Instant.now()))
            .as("the stale replica's shards move within leaseDuration + 2 retry periods")
            .isLessThan(LEASE.plus(RETRY.multipliedBy(2)).plusSeconds(2));
        assertThat(gauge(pier, "pier.scale.out.replicas")).isEqualTo(1.0);
        assertThat(gauge(pier, "pier.scale.out.unproven.members")).isEqualTo(1.0);

        // Ten lease durations unrenewed: the dead replica's own Lease is deleted, and only that.
        String deadLease = "pier-replica-" + otherNode;
        String ownLease = "pier-replica-" + self;
        await()
            .atMost(LEASE.multipliedBy(10).plus(RETRY.multipliedBy(2)).plusSeconds(10))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> client.leases().inNamespace(leaseNs).withName(deadLease).get() == null);
        assertThat(client.leases().inNamespace(leaseNs).withName(ownLease).get())
            .as("the replica's own Lease")
            .isNotNull();
      }
      // A replica that stops deletes its Lease.
      assertThat(
              client.leases().inNamespace(leaseNs).list().getItems().stream()
                  .map(l -> l.getMetadata().getName())
                  .filter(n -> n.startsWith("pier-replica-") && !n.endsWith(nodeId(nodes.get(0)))))
          .as("the stopped replica's Lease")
          .isEmpty();
    } finally {
      keeper.shutdownNow();
      nodes.forEach(ScaleOutTrustTest::close);
    }
  }

  /** The shards held by anyone but {@code other}: the replica's. */
  private static Set<Integer> replicaShards(KubernetesClient client, String leaseNs, String other) {
    Set<Integer> shards = new TreeSet<>();
    holders(client, leaseNs)
        .forEach(
            (shard, holder) -> {
              if (!holder.equals(other)) {
                shards.add(shard);
              }
            });
    return shards;
  }

  private static void renew(KubernetesClient client, String ns, String name, String holder) {
    try {
      Lease lease = client.leases().inNamespace(ns).withName(name).get();
      if (lease == null) {
        client
            .leases()
            .inNamespace(ns)
            .resource(
                new LeaseBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withLabels(Map.of("app.kubernetes.io/name", "pier"))
                    .endMetadata()
                    .withNewSpec()
                    .withHolderIdentity(holder)
                    .withLeaseDurationSeconds((int) LEASE.toSeconds())
                    .withRenewTime(ZonedDateTime.now())
                    .endSpec()
                    .build())
            .create();
      } else if (holder.equals(lease.getSpec().getHolderIdentity())) {
        lease.getSpec().setRenewTime(ZonedDateTime.now());
        client.leases().inNamespace(ns).resource(lease).update();
      }
    } catch (RuntimeException e) {
      // A conflict with the replica's own write: the next round renews again.
    }
  }

  /** Writes the Lease free, as a replica that gives a shard back does. */
  private static void release(KubernetesClient client, String ns, String name) {
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(
            () -> {
              Lease lease = client.leases().inNamespace(ns).withName(name).get();
              lease.getSpec().setHolderIdentity("");
              lease.getSpec().setRenewTime(ZonedDateTime.now());
              client.leases().inNamespace(ns).resource(lease).update();
              return true;
            });
  }
}
