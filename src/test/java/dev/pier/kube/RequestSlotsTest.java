package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.util.RequestFence;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RequestSlotsTest {
  private static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    vertx.close();
  }

  @Test
  void aRequestBeyondTheSlotsWaitsForTheOneBeforeIt() {
    RequestSlots slots = new RequestSlots(2);
    Context ctx = vertx.getOrCreateContext();
    List<Future<Void>> got = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      got.add(slots.acquire(ctx));
    }
    assertThat(got.get(0).succeeded()).isTrue();
    assertThat(got.get(1).succeeded()).isTrue();
    assertThat(got.get(2).isComplete()).isFalse();
    assertThat(slots.waiting()).isEqualTo(1);

    slots.release();
    await(got.get(2));
    assertThat(slots.waiting()).isZero();
    // The freed slot went to the waiter: a fourth request waits again.
    assertThat(slots.acquire(ctx).isComplete()).isFalse();
  }

  /**
   * A write that waited for a slot is asked about at the moment it leaves the queue: a leader that
   * lost its Lease meanwhile sends nothing, although the gate was open when the write was made.
   */
  @Test
  void aWriteThatWaitedAsksTheFenceAsItLeavesTheQueue() throws Exception {
    AtomicBoolean open = new AtomicBoolean(true);
    RequestFence fence =
        new RequestFence() {
          @Override
          public long term() {
            return 1;
          }

          @Override
          public RuntimeException refusal(long term, String what) {
            return open.get() ? null : new IllegalStateException("not leading: " + what);
          }
        };
    // Nothing listens there: a request that went would fail to connect, not be refused.
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build();
    try {
      RequestSlots slots = new RequestSlots(1);
      AsyncKubeApi api = new AsyncKubeApi(client, fence, slots);
      Context ctx = vertx.getOrCreateContext();
      assertThat(slots.acquire(ctx).succeeded()).isTrue();
      Future<JsonObject> write =
          api.post(ctx, AsyncKubeApi.corePath("ns", "events", null), new JsonObject());
      assertThat(write.isComplete()).isFalse();

      open.set(false);
      slots.release();

      Throwable failure =
          write
              .toCompletionStage()
              .toCompletableFuture()
              .handle((v, e) -> e)
              .get(10, TimeUnit.SECONDS);
      assertThat(failure).hasMessageContaining("not leading: POST /api/v1/namespaces/ns/events");
      assertThat(slots.waiting()).isZero();
    } finally {
      client.close();
    }
  }

  private static void await(Future<?> f) {
    try {
      f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
