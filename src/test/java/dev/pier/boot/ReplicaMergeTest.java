package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.testkit.FreePorts;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.internal.VertxInternal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two replicas that started apart, each a cluster of its own (as replicas started together may,
 * when none finds another within the join timeout, or as the two sides of a healed partition are),
 * merge into one; each then reaches the other's handlers over the event bus. Infinispan keeps one
 * side's copy of Vert.x's node information and subscriptions when a cluster merges; each replica
 * puts its own back.
 */
class ReplicaMergeTest {
  private static final Duration MERGED = Duration.ofSeconds(60);
  private final List<Vertx> nodes = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (Vertx v : nodes) {
      v.close().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void replicasThatStartedApartReachEachOthersHandlersOnceMerged() throws Exception {
    int a = FreePorts.take();
    int b = FreePorts.take();
    String name = "replica-merge-" + ProcessHandle.current().pid();
    // a knows both and finds no one: a cluster of its own. b knows only itself: another one, until
    // a's merge protocol finds it.
    Vertx first = node(name, a, List.of(a, b));
    first.eventBus().<String>consumer("merge.a", m -> m.reply("a")).completion().await();
    Vertx second = node(name, b, List.of(b));
    second.eventBus().<String>consumer("merge.b", m -> m.reply("b")).completion().await();

    await("one cluster of two")
        .atMost(MERGED)
        .until(() -> members(first) == 2 && members(second) == 2);

    await("each reaching the other's handler after the merge")
        .atMost(MERGED)
        .until(() -> answers(first, "merge.b", "b") && answers(second, "merge.a", "a"));
    assertThat(answers(first, "merge.b", "b")).isTrue();
    assertThat(answers(second, "merge.a", "a")).isTrue();
  }

  private Vertx node(String name, int port, List<Integer> peers) throws Exception {
    Vertx v =
        ScaleOutNodes.plain(name, port, peers.stream().map(p -> "127.0.0.1:" + p).toList())
            .await(60, TimeUnit.SECONDS);
    nodes.add(v);
    return v;
  }

  private static int members(Vertx v) {
    return ((VertxInternal) v).clusterManager().getNodes().size();
  }

  private static boolean answers(Vertx from, String address, String expected) {
    Future<String> reply =
        from.eventBus()
            .<String>request(address, "ping", new DeliveryOptions().setSendTimeout(2_000))
            .map(m -> m.body());
    try {
      return expected.equals(reply.await(5, TimeUnit.SECONDS));
    } catch (Exception notYet) {
      return false;
    }
  }
}
