package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import dev.pier.federation.CopyState;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.members.FakeMembers;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.model.Addresses;
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
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The federation's messages between replicas over a real clustered event bus: two Vert.x instances
 * joined through Hazelcast on loopback, one owning member east, the other reading its copies and
 * telling it of changes, as a host's owner and a member's owner do under scale-out. The bus is
 * shared by the methods (a cluster takes seconds to form), so each method names its own member, and
 * hence its own copies address; the one fixed address, that of changes, is left without a handler
 * after each method.
 */
class CopyExchangeTest {
  private static final ShardMap MAP = new ShardMap(8);
  private static final AtomicInteger MEMBERS = new AtomicInteger();
  private static Vertx owner;
  private static Vertx other;
  private final List<CopyExchange> exchanges = new ArrayList<>();
  private String east;

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

  @BeforeEach
  void aMemberOfThisMethodsOwn() {
    east = "east-" + MEMBERS.incrementAndGet();
  }

  @AfterEach
  void closeExchanges() {
    exchanges.forEach(CopyExchange::close);
    await("no handler left on " + copies(east) + " or " + Addresses.FEDERATION_CHANGED)
        .atMost(Duration.ofSeconds(10))
        .until(() -> noHandler(copies(east)) && noHandler(Addresses.FEDERATION_CHANGED));
  }

  @Test
  void theMembersOwnerAnswersReadsOfItsCopiesAndCountsThem() throws Exception {
    Members ownerMembers = members(servingCopy());
    CopyExchange answering = exchange(owner, ownerMembers, true);
    CopyExchange reading = exchange(other, members(), false);
    answering.answer(east).await(30, TimeUnit.SECONDS);
    Member member = ownerMembers.get(east);

    CopyState read = reading.read(member, "ns", "web").await(30, TimeUnit.SECONDS);

    assertThat(read).isEqualTo(LOCAL.state(member, "ns", "web"));
    assertThat(read.owned()).isTrue();
    assertThat(read.uid()).isEqualTo("web-uid");
    assertThat(read.status().ingress()).extracting(i -> i.ip()).containsExactly("192.0.2.7");
    assertThat(reading.ownedCopies(east).await(30, TimeUnit.SECONDS)).isEqualTo(1);
  }

  @Test
  void aReplicaThatNoLongerOwnsTheMemberRefusesToAnswer() throws Exception {
    Members ownerMembers = members(servingCopy());
    CopyExchange stale = exchange(owner, ownerMembers, false);
    CopyExchange reading = exchange(other, members(), false);
    stale.answer(east).await(30, TimeUnit.SECONDS);

    Future<CopyState> read = reading.read(ownerMembers.get(east), "ns", "web");

    assertThat(cause(read))
        .isInstanceOfSatisfying(
            ReplyException.class,
            e -> {
              assertThat(e.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
              assertThat(e.failureCode()).isEqualTo(503);
            })
        .hasMessageContaining("does not own member " + east);
  }

  @Test
  void aMembersOwnerTellsTheHostsOwnerWhichServiceChanged() throws Exception {
    List<ServiceKey> told = new CopyOnWriteArrayList<>();
    CopyExchange host = exchange(owner, members(), true);
    CopyExchange member = exchange(other, members(), true);
    host.listenForChanges(told::add).await(30, TimeUnit.SECONDS);

    member.tellChanged(new ServiceKey("host", "ns", "web"));

    await().atMost(Duration.ofSeconds(10)).until(() -> !told.isEmpty());
    assertThat(told).containsExactly(new ServiceKey("host", "ns", "web"));
  }

  /** A change told to a host's owner that does not answer in time is told again. */
  @Test
  void aChangeThatTimesOutIsToldAgain() throws Exception {
    List<String> received = new CopyOnWriteArrayList<>();
    MessageConsumer<String> slow =
        owner
            .eventBus()
            .<String>consumer(
                Addresses.FEDERATION_CHANGED,
                m -> {
                  received.add(m.body());
                  if (received.size() > 1) {
                    m.reply("ok");
                  }
                });
    slow.completion().await(30, TimeUnit.SECONDS);
    try {
      exchange(other, members(), true).tellChanged(new ServiceKey("host", "ns", "web"));

      await().atMost(Duration.ofSeconds(15)).until(() -> received.size() >= 2);
      // No third telling, which would follow the second's outcome after a pause of 2 s.
      await("told once more, then answered, and no more")
          .during(Duration.ofMillis(2_500))
          .atMost(Duration.ofSeconds(4))
          .until(() -> received.size() == 2);
    } finally {
      slow.unregister().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void noOwnerMeansAFailedReadNotAnEmptyOne() throws Exception {
    CopyExchange reading = exchange(other, members(), false);
    Members elsewhere = members(servingCopy());

    Future<CopyState> read = reading.read(elsewhere.get(east), "ns", "web");

    assertThat(cause(read))
        .as("the read fails for want of an owner")
        .isInstanceOfSatisfying(
            ReplyException.class,
            e -> assertThat(e.failureType()).isEqualTo(ReplyFailure.NO_HANDLERS));
  }

  /** Why the future failed; null when it succeeded. */
  private static Throwable cause(Future<?> f) throws Exception {
    return f.transform(ar -> Future.succeededFuture(ar.cause())).await(30, TimeUnit.SECONDS);
  }

  /** Whether no replica of the cluster handles {@code address} now. */
  private static boolean noHandler(String address) throws Exception {
    // Neither a Service key nor a read: a handler left behind changes nothing.
    Future<?> probe =
        other.eventBus().request(address, "probe", new DeliveryOptions().setSendTimeout(2_000));
    return cause(probe) instanceof ReplyException e && e.failureType() == ReplyFailure.NO_HANDLERS;
  }

  private static String copies(String member) {
    return Addresses.federationCopies(member);
  }

  private CopyExchange exchange(Vertx vertx, Members members, boolean owns) {
    CopyExchange exchange =
        new CopyExchange(vertx, members, FederationShards.divided(MAP, shard -> owns), LOCAL);
    exchanges.add(exchange);
    return exchange;
  }

  /** Every Service there carries the marks; none is proven. */
  private static final CopyReader.Local LOCAL =
      new CopyReader.Local() {
        @Override
        public CopyState state(Member member, String namespace, String name) {
          return CopyReader.local(member, namespace, name, s -> s != null, null);
        }

        @Override
        public int owned(Member member) {
          return CopyReader.owned(member, (m, s) -> true);
        }
      };

  /** A registry of this method's member, holding {@code copies}. */
  private Members members(Service... copies) {
    Members members = FakeMembers.registry(new FederationOptions().setName("fed"));
    FakeCluster cluster = new FakeCluster(east);
    for (Service s : copies) {
      cluster.put(s);
    }
    FakeMembers.add(members, cluster, Map.of());
    return members;
  }

  private static Service servingCopy() {
    return new ServiceBuilder(Services.loadBalancer("ns", "web", 80, 30080))
        .editMetadata()
        .withUid("web-uid")
        .endMetadata()
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
