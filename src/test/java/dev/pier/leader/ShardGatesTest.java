package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.ServiceKey;
import dev.pier.shards.ShardMap;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ShardGatesTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final ShardMap map = new ShardMap(4);
  private final ShardGates gates = new ShardGates(map, Duration.ofSeconds(10), now::get);

  private ServiceKey keyIn(int shard) {
    for (int i = 0; ; i++) {
      ServiceKey key = new ServiceKey("c", "ns", "svc-" + i);
      if (map.of(key) == shard) {
        return key;
      }
    }
  }

  @Test
  void aKeyIsOpenOnlyWhileItsShardIsHeldAndFresh() {
    ServiceKey one = keyIn(1);
    ServiceKey two = keyIn(2);
    assertThat(gates.isOpen(one)).isFalse();
    gates.took(1, now.get());
    assertThat(gates.isOpen(one)).isTrue();
    assertThat(gates.owns(one)).isTrue();
    assertThat(gates.isOpen(two)).isFalse();
    assertThat(gates.owns(two)).isFalse();
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(gates.isOpen(one)).as("renewal older than the deadline").isFalse();
    assertThat(gates.owns(one)).as("still held until the loss is handled").isTrue();
    gates.renewed(1, now.get());
    assertThat(gates.isOpen(one)).isTrue();
    gates.lost(1);
    assertThat(gates.isOpen(one)).isFalse();
    assertThat(gates.owns(one)).isFalse();
  }

  @Test
  void aKeyIsInExactlyOneShard() {
    ServiceKey two = keyIn(2);
    assertThat(gates.inShard(two, 2)).isTrue();
    assertThat(gates.inShard(two, 1)).isFalse();
    assertThat(LeaderGate.alwaysOpen().inShard(two, 1)).as("one Lease: every key is its").isTrue();
  }

  @Test
  void theClusterWideJobsFollowShardZero() {
    gates.took(3, now.get());
    assertThat(gates.isOpen()).isFalse();
    gates.took(ShardMap.CLUSTER_WIDE, now.get());
    assertThat(gates.isOpen()).isTrue();
  }

  @Test
  void aCallsRequestsAreRefusedOnceItsShardWasLostEvenWhenRetakenSince() {
    ServiceKey one = keyIn(1);
    gates.took(1, now.get());
    long[] term = new long[1];
    Future<Void> call =
        gates.guard(
            one,
            "ensuring",
            () -> {
              term[0] = gates.term();
              assertThat(gates.refusal(gates.term(), "first request")).isNull();
              return Future.succeededFuture();
            });
    assertThat(call.succeeded()).isTrue();
    assertThat(gates.refusal(term[0], "a retry")).isNull();
    gates.lost(1);
    assertThat(gates.refusal(term[0], "a retry")).isInstanceOf(NotLeadingException.class);
    gates.took(1, now.get());
    assertThat(gates.refusal(term[0], "a retry"))
        .as("a later term of the shard is not the call's")
        .isInstanceOf(NotLeadingException.class);
  }

  @Test
  void anotherShardsTermDoesNotOpenAClosedShard() {
    gates.took(1, now.get());
    gates.took(2, now.get());
    long[] term = new long[1];
    gates.guard(
        keyIn(2),
        "ensuring",
        () -> {
          term[0] = gates.term();
          return Future.succeededFuture();
        });
    now.addAndGet(Duration.ofSeconds(11).toNanos());
    gates.renewed(1, now.get());
    assertThat(gates.refusal(term[0], "late request")).isInstanceOf(NotLeadingException.class);
  }

  @Test
  void aRequestOutsideAGuardedStartNeedsAFreshShardAndNoLossSince() {
    assertThat(gates.refusal(gates.term(), "unbound")).isInstanceOf(NotLeadingException.class);
    gates.took(1, now.get());
    gates.took(2, now.get());
    long term = gates.term();
    assertThat(gates.refusal(term, "unbound")).isNull();
    gates.lost(2);
    assertThat(gates.refusal(term, "unbound")).isInstanceOf(NotLeadingException.class);
    assertThat(gates.refusal(gates.term(), "unbound")).isNull();
  }

  @Test
  void theClusterWideFenceAsksShardZeroWhateverElseIsHeld() {
    gates.took(1, now.get());
    assertThat(gates.clusterWide().refusal(gates.clusterWide().term(), "federation write"))
        .isInstanceOf(NotLeadingException.class);
    gates.took(ShardMap.CLUSTER_WIDE, now.get());
    long term = gates.clusterWide().term();
    assertThat(gates.clusterWide().refusal(term, "federation write")).isNull();
    gates.lost(ShardMap.CLUSTER_WIDE);
    gates.took(ShardMap.CLUSTER_WIDE, now.get());
    assertThat(gates.clusterWide().refusal(term, "federation write"))
        .as("a later term of shard 0")
        .isInstanceOf(NotLeadingException.class);
  }

  @Test
  void aGuardOfAClosedShardMakesNoCall() {
    Future<String> call = gates.guard(keyIn(3), "ensuring", () -> Future.succeededFuture("made"));
    assertThat(call.failed()).isTrue();
    assertThat(call.cause()).isInstanceOf(NotLeadingException.class);
  }
}
