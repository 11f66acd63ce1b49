package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.model.ClusterIdentity;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The cluster identity is the uid of kube-system, read at startup; a refusal names the RBAC. */
class ClusterIdentityTest {
  private Vertx vertx;
  private HttpServer server;
  private volatile int status = 200;
  private final List<String> paths = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  synchronized (paths) {
                    paths.add(req.method() + " " + req.path());
                  }
                  JsonObject body =
                      status == 200
                          ? new JsonObject()
                              .put("kind", "Namespace")
                              .put(
                                  "metadata",
                                  new JsonObject().put("name", "kube-system").put("uid", "u-123"))
                          : new JsonObject()
                              .put("kind", "Status")
                              .put(
                                  "message",
                                  "namespaces \"kube-system\" is forbidden: User \"pier\" cannot"
                                      + " get resource \"namespaces\"");
                  req.response().setStatusCode(status).end(body.encode());
                })
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  private Cluster cluster() {
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + server.actualPort())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .withHttpClientFactory(new Vertx5HttpClientFactory(vertx))
            .build();
    AsyncKubeApi api = new AsyncKubeApi(client);
    return new Cluster(
        "kubernetes",
        client,
        Duration.ZERO,
        new ServiceWriter(api),
        (ref, type, reason, message) -> {},
        api);
  }

  @Test
  void readsTheUidOfKubeSystem() throws Exception {
    Cluster c = cluster();
    ClusterIdentity id = c.loadIdentity(vertx.getOrCreateContext()).await(10, TimeUnit.SECONDS);
    assertThat(id).isEqualTo(new ClusterIdentity("kubernetes", "u-123"));
    assertThat(c.identity()).isEqualTo(id);
    assertThat(paths).containsExactly("GET /api/v1/namespaces/kube-system");
  }

  @Test
  void aRefusalFailsNamingTheMissingPermission() {
    status = 403;
    Cluster c = cluster();
    assertThatThrownBy(() -> c.loadIdentity(vertx.getOrCreateContext()).await(10, TimeUnit.SECONDS))
        .hasMessageContaining("cluster kubernetes: cannot read its identity")
        .hasMessageContaining("namespace kube-system")
        .hasMessageContaining("403")
        .hasMessageContaining("get on namespaces, resourceNames [kube-system]");
    assertThatThrownBy(c::identity).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anEmptyUidIsRefused() {
    assertThatThrownBy(() -> new ClusterIdentity("kubernetes", ""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
