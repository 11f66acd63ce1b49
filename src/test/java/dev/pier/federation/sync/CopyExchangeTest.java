package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.ScaleOutNodes;
import dev.pier.federation.CopyState;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.members.FakeMembers;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.model.Addresses;
import dev.pier.model.ServiceKey;
import dev.pier.reconcile.ReconcileFakes.FakeCluster;
import dev.pier.shards.ReplySeal;
import dev.pier.shards.ShardHolders;
import dev.pier.shards.ShardMap;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The federation's messages between replicas over a real clustered event bus: two Vert.x instances
 * joined through the replicas' membership on loopback, one owning member east, the other reading
 * its copies and telling it of changes, as a host's owner and a member's owner do under scale-out.
 * The bus is shared by the methods (a cluster takes seconds to form), so each method names its own
 * member, and hence its own copies address; the one fixed address, that of changes, is left without
 * a handler after each method.
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
    awaitHandler(copies(east));
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

    // Read until a read reaches the handler (a probe would reach it too, and end it).
    AtomicReference<Throwable> refused = new AtomicReference<>();
    await("a read reaching the handler on " + copies(east))
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              refused.set(cause(reading.read(ownerMembers.get(east), "ns", "web")));
              return !(refused.get() instanceof ReplyException e
                  && e.failureType() == ReplyFailure.NO_HANDLERS);
            });

    assertThat(refused.get())
        .isInstanceOfSatisfying(
            ReplyException.class,
            e -> {
              assertThat(e.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
              assertThat(e.failureCode()).isEqualTo(503);
            })
        .hasMessageContaining("does not own member " + east);
    // And it stops answering: a handler left there would take a share of the reads for good.
    await("no handler left on " + copies(east) + " by the replica that refused")
        .atMost(Duration.ofSeconds(20))
        .until(() -> noHandler(copies(east)));
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

  /**
   * A change told while no replica listens (the host's shard between owners, or a registration not
   * yet seen on this side of the bus) is told again until one answers, not dropped.
   */
  @Test
  void aChangeToldWhileNoOneListensArrivesOnceOneDoes() throws Exception {
    List<ServiceKey> told = new CopyOnWriteArrayList<>();
    CopyExchange member = exchange(other, members(), true);
    member.tellChanged(new ServiceKey("host", "ns", "web"));
    // The first telling found no handler; the next follows a pause of a second or more.
    Thread.sleep(1_500);

    exchange(owner, members(), true).listenForChanges(told::add).await(30, TimeUnit.SECONDS);

    // The pauses double (1, 2, 4 … s): a registration seen late on a loaded machine is found by a
    // telling up to a pause of 30 s later.
    await("the change told again once a host's owner listens")
        .atMost(Duration.ofSeconds(60))
        .until(() -> !told.isEmpty());
    assertThat(told).containsExactly(new ServiceKey("host", "ns", "web"));
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

  /**
   * Until the other instance sees a handler on {@code address}: a registration reaches the
   * cluster's other member a moment after it completes, later on a loaded machine.
   */
  private static void awaitHandler(String address) {
    await("a handler on " + address + ", seen from the other instance")
        .atMost(Duration.ofSeconds(30))
        .until(() -> !noHandler(address));
  }

  private static String copies(String member) {
    return Addresses.federationCopies(member);
  }

  private CopyExchange exchange(Vertx vertx, Members members, boolean owns) {
    return exchange(vertx, members, owns, "replica-a");
  }

  /**
   * An exchange on {@code vertx}: its replica is replica-a on the owner's instance and replica-b on
   * the other's, and the Leases it last read say {@code holder} holds every shard.
   */
  private CopyExchange exchange(Vertx vertx, Members members, boolean owns, String holder) {
    boolean a = vertx == owner;
    ShardHolders holders = new ShardHolders(a ? "replica-a" : "replica-b", a ? KEY_A : KEY_B);
    Map<Integer, String> held = new HashMap<>();
    for (int shard = 0; shard < MAP.count(); shard++) {
      held.put(shard, holder);
    }
    holders.update(held, Map.of("replica-a", Set.of(KEY_A), "replica-b", Set.of(KEY_B)));
    CopyExchange exchange =
        new CopyExchange(
            vertx, members, FederationShards.divided(MAP, shard -> owns, holders), LOCAL);
    exchanges.add(exchange);
    return exchange;
  }

  private static final String KEY_A = ReplySeal.newKey();
  private static final String KEY_B = ReplySeal.newKey();

  /**
   * An answer is believed only from the holder of the member's shard as the asker last read the
   * Leases, sealed with a key that holder published: the owner's true answer while the Leases name
   * another holder, or an answer on the bus that names the holder without its key, is unknown.
   */
  @Test
  void anAnswerNotSealedByTheShardsHolderIsUnknown() throws Exception {
    Members ownerMembers = members(servingCopy());
    CopyExchange answering = exchange(owner, ownerMembers, true);
    answering.answer(east).await(30, TimeUnit.SECONDS);
    awaitHandler(copies(east));
    Member member = ownerMembers.get(east);

    CopyExchange readingOtherHolder = exchange(other, members(), false, "replica-b");
    assertThat(cause(readingOtherHolder.read(member, "ns", "web")))
        .as("a true answer from a replica the Leases do not name")
        .hasMessageContaining("not from the holder of its shard");
    assertThat(cause(exchange(other, members(), false).read(member, "ns", "web")))
        .as("the same answer from the holder")
        .isNull();
    answering.stopAnswering(east);

    MessageConsumer<JsonObject> forger =
        owner
            .eventBus()
            .<JsonObject>consumer(
                copies(east),
                m -> {
                  String forged = new JsonObject().put("owned", 7).put("namespace", "ns").encode();
                  m.reply(
                      new JsonObject()
                          .put("answer", forged)
                          .put("replica", "replica-a")
                          .put(
                              "seal",
                              ReplySeal.seal(
                                  ReplySeal.newKey(),
                                  m.body().getString("nonce"),
                                  MAP.ofMember(east),
                                  forged)));
                });
    forger.completion().await(30, TimeUnit.SECONDS);
    try {
      CopyExchange reading = exchange(other, members(), false);
      assertThat(cause(reading.ownedCopies(east)))
          .as("an answer naming the holder, sealed with another key")
          .hasMessageContaining("not from the holder of its shard");
      assertThat(cause(reading.read(member, "ns", "web"))).isNotNull();
    } finally {
      forger.unregister().await(30, TimeUnit.SECONDS);
    }
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

  /** A clustered node as Pier configures a replica (without its TLS: not what is tested here). */
  private static Future<Vertx> clustered(String name, int port, List<String> peers) {
    return ScaleOutNodes.plain(name, port, peers);
  }
}
