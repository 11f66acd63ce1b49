package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AsyncKubeApiTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  /**
   * A request on a client closed at shutdown fails its future: it never throws into the caller (an
   * Event drained after the client closed used to end as an unhandled exception on the event loop).
   */
  @Test
  void aRequestOnAClosedClientIsAFailedFutureNotAThrow() {
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:1").build())
            .withHttpClientFactory(new Vertx5HttpClientFactory(vertx))
            .build();
    AsyncKubeApi api = new AsyncKubeApi(client);
    client.close();

    Future<JsonObject> post =
        api.post(
            vertx.getOrCreateContext(),
            AsyncKubeApi.corePath("ns", "events", null),
            new JsonObject());
    Future<String> text = api.getText(vertx.getOrCreateContext(), "/readyz", Duration.ofSeconds(1));

    await().atMost(Duration.ofSeconds(5)).until(() -> post.failed() && text.failed());
    assertThat(post.cause()).hasMessageContaining("closed");
    assertThat(api.inFlight()).isZero();
  }
}
