package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.events.ObjectRef;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.util.RequestFence;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Events against a real kube-apiserver: while other writes are in flight they wait (in a cold
 * start, Service writes are what makes load balancers visible), and they are written once those
 * end, or once one has waited the longest hold.
 */
@RealKubeApiServer
class KubeEventRecorderTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  /** A request that stays in flight for {@code seconds}: a watch with a server-side timeout. */
  private static Future<?> busyFor(AsyncKubeApi api, Context ctx, String ns, int seconds) {
    return api.getText(
        ctx,
        "/api/v1/namespaces/" + ns + "/configmaps?watch=1&timeoutSeconds=" + seconds,
        Duration.ofSeconds(seconds + 10));
  }

  private static List<Event> events(KubernetesClient client, String ns) {
    return client.v1().events().inNamespace(ns).list().getItems();
  }

  private static ObjectRef ref(String ns) {
    return new ObjectRef("Service", "v1", ns, "web", "uid-1");
  }

  @Test
  void eventsWaitWhileOtherWritesAreInFlightAndGoWhenTheyEnd(KubeApiServer kube) {
    KubernetesClient client = kube.client();
    String ns = kube.createNamespace("events-hold");
    AsyncKubeApi api = new AsyncKubeApi(client);
    Context ctx = vertx.getOrCreateContext();
    KubeEventRecorder recorder =
        new KubeEventRecorder(vertx, api, "pier-test", Duration.ofSeconds(60));
    Future<?> busy = busyFor(api, ctx, ns, 3);
    recorder.record(ref(ns), "Normal", "EnsuringLoadBalancer", "Ensuring load balancer");
    // Held while the other request is in flight (before the change: written at once).
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> events(client, ns).isEmpty() && !busy.isComplete());
    await().atMost(Duration.ofSeconds(10)).until(busy::isComplete);
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () ->
                assertThat(events(client, ns))
                    .extracting(Event::getReason)
                    .containsExactly("EnsuringLoadBalancer"));
    assertThat(recorder.written()).isEqualTo(1);
  }

  /**
   * A repeat that comes while the first Event's create is still in flight counts on that Event:
   * before, its patch found no Event yet and created a second one (a conflict Warning written
   * twice, 45 ms apart).
   */
  @Test
  void repeatsWhileTheFirstIsBeingWrittenAreOneEventWithItsCount(KubeApiServer kube) {
    KubernetesClient client = kube.client();
    String ns = kube.createNamespace("events-repeat");
    KubeEventRecorder recorder =
        new KubeEventRecorder(vertx, new AsyncKubeApi(client), "pier-test", Duration.ofSeconds(60));
    for (int i = 0; i < 5; i++) {
      recorder.record(ref(ns), "Warning", "FederatedServiceConflict", "Cluster east: taken");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> recorder.written() == 5);
    assertThat(events(client, ns))
        .singleElement()
        .satisfies(e -> assertThat(e.getCount()).isEqualTo(5));
  }

  @Test
  void anEventThatHasWaitedTheLongestHoldGoesWhileWritesContinue(KubeApiServer kube) {
    KubernetesClient client = kube.client();
    String ns = kube.createNamespace("events-max-hold");
    AsyncKubeApi api = new AsyncKubeApi(client);
    Context ctx = vertx.getOrCreateContext();
    KubeEventRecorder recorder =
        new KubeEventRecorder(vertx, api, "pier-test", Duration.ofSeconds(1));
    Future<?> busy = busyFor(api, ctx, ns, 6);
    recorder.record(ref(ns), "Normal", "EnsuredLoadBalancer", "Ensured load balancer");
    await()
        .atMost(Duration.ofSeconds(4))
        .untilAsserted(() -> assertThat(events(client, ns)).hasSize(1));
    assertThat(busy.isComplete()).isFalse();
  }

  /**
   * An Event queued while this process led, and sent after it stopped leading (a leader frozen with
   * Events held behind its writes, then thawed), never reaches the API server: the fence is asked
   * right before each write goes, and the Event is dropped. LeaderFreezeIT saw such a late Event
   * from a deposed leader.
   */
  @Test
  void aWriteIsFencedRightBeforeItIsSent(KubeApiServer kube) {
    KubernetesClient client = kube.client();
    String ns = kube.createNamespace("events-fenced");
    java.util.concurrent.atomic.AtomicBoolean leading =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    AsyncKubeApi api =
        new AsyncKubeApi(
            client,
            new RequestFence() {
              @Override
              public long term() {
                return 1;
              }

              @Override
              public RuntimeException refusal(long term, String what) {
                return leading.get() ? null : new IllegalStateException("fenced: " + what);
              }
            });
    Context ctx = vertx.getOrCreateContext();
    KubeEventRecorder recorder =
        new KubeEventRecorder(vertx, api, "pier-test", Duration.ofSeconds(60));
    Future<?> busy = busyFor(api, ctx, ns, 2);
    recorder.record(ref(ns), "Normal", "EnsuringLoadBalancer", "Ensuring load balancer");
    // Queued behind the other request while leading; the lead is lost before it goes.
    leading.set(false);
    await().atMost(Duration.ofSeconds(10)).until(busy::isComplete);
    recorder.record(ref(ns), "Normal", "EnsuredLoadBalancer", "Ensured load balancer");
    long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    await().atMost(Duration.ofSeconds(3)).until(() -> System.nanoTime() > deadline);
    assertThat(events(client, ns)).isEmpty();
    assertThat(recorder.written()).isZero();
    // Reads are never fenced, and writes go again once it leads.
    leading.set(true);
    recorder.record(ref(ns), "Normal", "EnsuredLoadBalancer", "Ensured load balancer again");
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(events(client, ns)).hasSize(1));
  }
}
