package dev.pier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.model.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the workers hear of the shards a replica takes and loses: in the order it happened, after
 * they started, and never a taking told after the loss that undid it.
 */
class ShardHandoverTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private final Vertx vertx = Vertx.vertx();
  private final List<String> reconcile = new CopyOnWriteArrayList<>();
  private final List<String> federation = new CopyOnWriteArrayList<>();
  private final Set<Integer> held = ConcurrentHashMap.newKeySet();
  private final AtomicInteger starts = new AtomicInteger();
  private Promise<Void> workers = Promise.promise();

  ShardHandoverTest() throws Exception {
    listen(Addresses.RECONCILE_CONTROL, reconcile);
    listen(Addresses.FEDERATION_CONTROL, federation);
  }

  private void listen(String address, List<String> into) throws Exception {
    vertx
        .eventBus()
        .<String>localConsumer(address, m -> heard(into, m))
        .completion()
        .toCompletionStage()
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
  }

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static void heard(List<String> into, Message<String> m) {
    String shard = m.headers().get(Addresses.SHARD);
    into.add(m.body() + (shard == null ? "" : " " + shard));
    m.reply("ok");
  }

  private ShardHandover handover(boolean withFederation) {
    return new ShardHandover(
        vertx,
        () -> {
          starts.incrementAndGet();
          return workers.future();
        },
        withFederation,
        held::contains,
        () -> false);
  }

  private void gain(ShardHandover h, int shard) {
    held.add(shard);
    h.onGained(shard);
  }

  private void lose(ShardHandover h, int shard) {
    held.remove(shard);
    h.onLost(shard);
  }

  @Test
  void aShardLostWhileTheWorkersStartIsNeverToldAsTakenAfterItsLoss() {
    ShardHandover h = handover(true);
    gain(h, 5);
    gain(h, 7);
    lose(h, 5);

    workers.complete();

    List<String> expected = List.of("shards-gained 7", "shards-lost 5");
    await().atMost(WAIT).untilAsserted(() -> assertThat(federation).isEqualTo(expected));
    await().atMost(WAIT).untilAsserted(() -> assertThat(reconcile).hasSize(2));
    assertThat(reconcile).containsExactly("shards-gained 7", "shards-lost 5");
  }

  @Test
  void tellingsKeepTheirOrderAndTheWorkersStartOnce() {
    ShardHandover h = handover(true);
    workers.complete();
    gain(h, 1);
    gain(h, 2);
    lose(h, 1);
    gain(h, 1);

    List<String> expected =
        List.of("shards-gained 1", "shards-gained 2", "shards-lost 1", "shards-gained 1");
    await().atMost(WAIT).untilAsserted(() -> assertThat(federation).isEqualTo(expected));
    assertThat(starts).hasValue(1);
  }

  @Test
  void withoutTheFederationOnlyTheReconcileWorkersHear() {
    ShardHandover h = handover(false);
    workers.complete();
    gain(h, 3);
    lose(h, 3);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(reconcile).containsExactly("shards-gained 3", "shards-lost 3"));
    assertThat(federation).isEmpty();
  }

  @Test
  void workersThatFailedToStartStartAgainWithTheNextShard() {
    ShardHandover h = handover(true);
    gain(h, 1);
    workers.fail("no provider");
    workers = Promise.promise();
    gain(h, 2);
    workers.complete();

    await().atMost(WAIT).untilAsserted(() -> assertThat(federation).contains("shards-gained 2"));
    assertThat(starts).hasValue(2);
  }

  @Test
  void nothingIsToldOnceStopping() {
    ShardHandover h =
        new ShardHandover(vertx, () -> Future.succeededFuture(), true, held::contains, () -> true);
    gain(h, 1);
    lose(h, 1);

    await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> federation.isEmpty());
    assertThat(reconcile).isEmpty();
  }
}
