package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import dev.pier.federation.CopyState;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.MemberServices;
import dev.pier.federation.members.FakeMembers;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.model.ServiceKey;
import dev.pier.reconcile.ReconcileFakes.FakeCluster;
import dev.pier.shards.ShardMap;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The federation's messages between replicas over a real clustered event bus: two Vert.x instances
 * joined through Hazelcast on loopback, one owning member east, the other reading its copies and
 * telling it of changes, as a host's owner and a member's owner do under scale-out.
 */
class CopyExchangeTest {
  private static final ShardMap MAP = new ShardMap(8);
  private static Vertx owner;
  private static Vertx other;

  @BeforeAll
  static void cluster() throws Exception {
    int a = FreePorts.take();
    int b = FreePorts.take();
    List<String> peers = List.of("127.0.0.1:" + a, "127.0.0.1:" + b);
    String name = "copy-exchange-" + ProcessHandle.current().pid();
    Future<Vertx> first = clustered(name, a, peers);
    Future<Vertx> second = clustered(name, b, peers);
    owner = first.await(60, TimeUnit.SECONDS);
    other = second.await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void close() throws Exception {
    for (Vertx v : new Vertx[] {owner, other}) {
      if (v != null) {
        v.close().await(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void theMembersOwnerAnswersReadsOfItsCopiesAndCountsThem() throws Exception {
    Members ownerMembers = members(servingCopy());
    CopyExchange answering = exchange(owner, ownerMembers, true);
    CopyExchange reading = exchange(other, members(), false);
    answering.answer("east").await(30, TimeUnit.SECONDS);
    try {
      Member east = ownerMembers.get("east");

      CopyState read = reading.read(east, "ns", "web").await(30, TimeUnit.SECONDS);

      assertThat(read).isEqualTo(CopyReader.local(east, "ns", "web", CopyExchangeTest::owned));
      assertThat(read.owned()).isTrue();
      assertThat(read.status().ingress()).extracting(i -> i.ip()).containsExactly("192.0.2.7");
      assertThat(reading.ownedCopies("east").await(30, TimeUnit.SECONDS)).isEqualTo(1);
    } finally {
      answering.close();
    }
  }

  @Test
  void aReplicaThatNoLongerOwnsTheMemberRefusesToAnswer() throws Exception {
    Members ownerMembers = members(servingCopy());
    CopyExchange stale = exchange(owner, ownerMembers, false);
    CopyExchange reading = exchange(other, members(), false);
    stale.answer("east").await(30, TimeUnit.SECONDS);
    try {
      Future<CopyState> read = reading.read(ownerMembers.get("east"), "ns", "web");

      assertThat(failure(read)).contains("does not own member east");
    } finally {
      stale.close();
    }
  }

  @Test
  void aMembersOwnerTellsTheHostsOwnerWhichServiceChanged() throws Exception {
    List<ServiceKey> told = new CopyOnWriteArrayList<>();
    CopyExchange host = exchange(owner, members(), true);
    CopyExchange member = exchange(other, members(), true);
    host.listenForChanges(told::add).await(30, TimeUnit.SECONDS);
    try {
      member.tellChanged(new ServiceKey("host", "ns", "web"));

      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> !told.isEmpty());
      assertThat(told).containsExactly(new ServiceKey("host", "ns", "web"));
    } finally {
      host.close();
    }
  }

  /** A change told to a host's owner that does not answer in time is told again. */
  @Test
  void aChangeThatTimesOutIsToldAgain() throws Exception {
    List<String> received = new CopyOnWriteArrayList<>();
    io.vertx.core.eventbus.MessageConsumer<String> slow =
        owner
            .eventBus()
            .<String>consumer(
                dev.pier.model.Addresses.FEDERATION_CHANGED,
                m -> {
                  received.add(m.body());
                  if (received.size() > 1) {
                    m.reply("ok");
                  }
                });
    slow.completion().await(30, TimeUnit.SECONDS);
    try {
      exchange(other, members(), true).tellChanged(new ServiceKey("host", "ns", "web"));

      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(15))
          .until(() -> received.size() >= 2);
      Thread.sleep(CopyExchange.DEADLINE.toMillis() + 500);
      assertThat(received).as("told once more, then answered").hasSize(2);
    } finally {
      slow.unregister().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void noOwnerMeansAFailedReadNotAnEmptyOne() throws Exception {
    CopyExchange reading = exchange(other, members(), false);
    Members elsewhere = members(servingCopy());

    Future<CopyState> read = reading.read(elsewhere.get("east"), "ns", "web");

    assertThat(failure(read)).as("the read fails").isNotNull();
  }

  /** Why the future failed; null when it succeeded. */
  private static String failure(Future<?> f) throws Exception {
    return f.transform(
            ar -> Future.succeededFuture(ar.failed() ? String.valueOf(ar.cause()) : null))
        .await(30, TimeUnit.SECONDS);
  }

  private static CopyExchange exchange(Vertx vertx, Members members, boolean owns) {
    return new CopyExchange(
        vertx, members, FederationShards.divided(MAP, shard -> owns), CopyExchangeTest::owned);
  }

  private static MemberServices.Ownership owned(Service s) {
    return s == null ? MemberServices.Ownership.ABSENT : MemberServices.Ownership.OWNED;
  }

  private static Members members(Service... copies) {
    Members members = FakeMembers.registry(new FederationOptions().setName("fed"));
    FakeCluster east = new FakeCluster("east");
    for (Service s : copies) {
      east.put(s);
    }
    FakeMembers.add(members, east, Map.of());
    return members;
  }

  private static Service servingCopy() {
    return new ServiceBuilder(Services.loadBalancer("ns", "web", 80, 30080))
        .withNewStatus()
        .withNewLoadBalancer()
        .addNewIngress()
        .withIp("192.0.2.7")
        .endIngress()
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  private static Future<Vertx> clustered(String name, int port, List<String> peers) {
    Config hz = ConfigUtil.loadConfig();
    hz.setClusterName(name);
    hz.setProperty("hazelcast.logging.type", "slf4j");
    hz.setProperty("hazelcast.phone.home.enabled", "false");
    hz.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
    hz.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    hz.setProperty("hazelcast.local.localAddress", "127.0.0.1");
    JoinConfig join = hz.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(new ArrayList<>(peers));
    VertxOptions options = new VertxOptions();
    options.getEventBusOptions().setHost("127.0.0.1").setClusterPublicHost("127.0.0.1").setPort(0);
    return Vertx.builder()
        .with(options)
        .withClusterManager(new HazelcastClusterManager(hz))
        .buildClustered();
  }
}
