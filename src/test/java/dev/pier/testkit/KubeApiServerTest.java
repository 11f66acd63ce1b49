package dev.pier.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@RealKubeApiServer(
    auditLog = true,
    users = @RealKubeApiServer.User(token = "viewer-token", name = "viewer", groups = "viewers"))
class KubeApiServerTest {

  private static final String CLEANUP_FINALIZER = "service.kubernetes.io/load-balancer-cleanup";

  private final KubeApiServer kube;

  KubeApiServerTest(KubeApiServer kube) {
    this.kube = kube;
  }

  /** The server the suite starts is the pinned release, built by scripts/provision.sh. */
  @Test
  void answersThePinnedVersion() {
    assertThat(kube.url()).startsWith("https://127.0.0.1:");
    var version = kube.client().getKubernetesVersion();
    assertThat(version.getGitVersion()).isEqualTo("v" + KubeApiServer.version());
    assertThat(version.getMajor() + "." + version.getMinor())
        .isEqualTo(KubeApiServer.version().substring(0, KubeApiServer.version().lastIndexOf('.')));
  }

  @Test
  void oneServerPerClassIsInjectedEverywhere(KubeApiServer injected) {
    assertThat(injected).isSameAs(kube);
  }

  @Test
  void allocatesNodePortAndClusterIpForLoadBalancerService() {
    String ns = kube.createNamespace("lb");
    Service created = kube.client().services().inNamespace(ns).resource(service("web")).create();

    assertThat(created.getSpec().getClusterIP()).startsWith("10.96.");
    assertThat(created.getSpec().getPorts())
        .allSatisfy(port -> assertThat(port.getNodePort()).isBetween(10000, 32767));
    assertThat(created.getSpec().getPorts())
        .extracting(ServicePort::getProtocol)
        .containsExactly("TCP", "UDP");
  }

  @Test
  void createsReadyNodesAndFlipsReadiness() {
    Node node = kube.createReadyNode("node-a", "127.0.10.1", Map.of("pier.dev/pool", "a"));

    Node fetched = kube.client().nodes().withName("node-a").get();
    assertThat(fetched.getMetadata().getLabels()).containsEntry("pier.dev/pool", "a");
    assertThat(readyStatus(fetched)).isEqualTo("True");
    assertThat(fetched.getStatus().getAddresses())
        .extracting(NodeAddress::getType, NodeAddress::getAddress)
        .contains(tuple("InternalIP", "127.0.10.1"));
    assertThat(readyStatus(node)).isEqualTo("True");

    kube.setNodeReady("node-a", false);
    assertThat(readyStatus(kube.client().nodes().withName("node-a").get())).isEqualTo("False");
    kube.setNodeReady("node-a", true);
    Node again = kube.client().nodes().withName("node-a").get();
    assertThat(readyStatus(again)).isEqualTo("True");
    assertThat(again.getStatus().getConditions()).hasSize(1);
  }

  @Test
  void survivesMergePatchesOfObjectsWithMaps() throws Exception {
    // An apiserver built with a Go newer than its vendored reflect2 knew (1.20 with Go 1.18+)
    // dies ("fatal error: fault") encoding maps in a pretty-printed PATCH answer like this one.
    kube.createReadyNode("node-maps", "127.0.10.9", Map.of("a", "1", "b", "2"));
    var http = kube.client().getHttpClient();
    for (int i = 0; i < 3; i++) {
      var request =
          http.newHttpRequestBuilder()
              .uri(kube.url() + "/api/v1/nodes/node-maps/status?pretty=true")
              .method(
                  "PATCH",
                  "application/merge-patch+json",
                  "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"127.0.10."
                      + (10 + i)
                      + "\"}]}}")
              .build();
      assertThat(http.sendAsync(request, String.class).get(30, TimeUnit.SECONDS).code())
          .isEqualTo(200);
    }
    Node node = kube.client().nodes().withName("node-maps").get();
    assertThat(node.getStatus().getAddresses())
        .extracting(NodeAddress::getAddress)
        .contains("127.0.10.12");
  }

  @Test
  void patchesLoadBalancerIngressThroughStatusSubresource() {
    String ns = kube.createNamespace("status");
    kube.client().services().inNamespace(ns).resource(service("web")).create();

    kube.client()
        .services()
        .inNamespace(ns)
        .withName("web")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"127.0.100.1\"}]}}}");

    Service fetched = kube.client().services().inNamespace(ns).withName("web").get();
    assertThat(fetched.getStatus().getLoadBalancer().getIngress())
        .extracting(LoadBalancerIngress::getIp)
        .containsExactly("127.0.100.1");
  }

  @Test
  void cleanupFinalizerHoldsDeletedServiceUntilRemoved() {
    String ns = kube.createNamespace("finalizer");
    Service service = service("web");
    service.getMetadata().setFinalizers(List.of(CLEANUP_FINALIZER));
    KubernetesClient client = kube.client();
    client.services().inNamespace(ns).resource(service).create();

    client.services().inNamespace(ns).withName("web").delete();

    Service terminating = client.services().inNamespace(ns).withName("web").get();
    assertThat(terminating).isNotNull();
    assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();

    client
        .services()
        .inNamespace(ns)
        .withName("web")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.services().inNamespace(ns).withName("web").get() == null);
  }

  @Test
  void extraUserIsAuthenticatedButNotAuthorized() {
    try (KubernetesClient viewer = kube.newClient("viewer-token")) {
      assertThatThrownBy(() -> viewer.services().inNamespace("default").list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403))
          .hasMessageContaining("User \"viewer\" cannot list resource \"services\"");
    }
    try (KubernetesClient stranger = kube.newClient("no-such-token")) {
      assertThatThrownBy(() -> stranger.services().inNamespace("default").list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(401));
    }
  }

  @Test
  void auditLogRecordsRequestsWithUser() throws Exception {
    kube.client().services().inNamespace("default").list();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                Files.readString(kube.auditLogPath()).contains("\"resource\":\"services\"")
                    && Files.readString(kube.auditLogPath()).contains("\"username\":\"admin\""));
  }

  private static String readyStatus(Node node) {
    return node.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()))
        .map(NodeCondition::getStatus)
        .findFirst()
        .orElse(null);
  }

  /**
   * A WebSocket watch of Services ends at its {@code timeoutSeconds} like any other resource's
   * (kubernetes/kubernetes#102464 left it open and silent on 1.20.0-1.20.9, which is also what a
   * slow watcher that the watch cache drops saw; upstream's TestWebsocketWatchClientTimeout).
   */
  @Test
  void aWebSocketWatchOfServicesEndsAtItsTimeout() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      WebSocketClient ws =
          vertx.createWebSocketClient(
              new WebSocketClientOptions().setSsl(true).setTrustAll(true).setVerifyHost(false));
      Future<Long> services = watchSeconds(vertx, ws, "/api/v1/services");
      Future<Long> configMaps = watchSeconds(vertx, ws, "/api/v1/configmaps");
      long deadline = TimeUnit.SECONDS.toMillis(10);
      assertThat(configMaps.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS))
          .as("the ConfigMap watch's lifetime in ms")
          .isBetween(4_000L, deadline);
      assertThat(services.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS))
          .as("the Service watch's lifetime in ms")
          .isBetween(4_000L, deadline);
    } finally {
      vertx.close().await();
    }
  }

  /** Opens a WebSocket watch with timeoutSeconds=5; completes with how long it stayed open. */
  private Future<Long> watchSeconds(Vertx vertx, WebSocketClient ws, String path) {
    URI url = URI.create(kube.url());
    long start = System.nanoTime();
    Promise<Long> closed = Promise.promise();
    // A watch still open after 15 s counts as one that never ends.
    vertx.setTimer(15_000, id -> closed.tryComplete(Long.MAX_VALUE));
    ws.connect(
            new WebSocketConnectOptions()
                .setHost(url.getHost())
                .setPort(url.getPort())
                .setSsl(true)
                .setURI(path + "?watch=true&timeoutSeconds=5")
                .addHeader("Authorization", "Bearer " + kube.adminToken()))
        .onFailure(closed::tryFail)
        .onSuccess(
            socket ->
                socket.closeHandler(
                    v ->
                        closed.tryComplete(
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))));
    return closed.future();
  }

  private static Service service(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withSelector(Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .endPort()
        .addNewPort()
        .withName("dns")
        .withProtocol("UDP")
        .withPort(53)
        .endPort()
        .endSpec()
        .build();
  }
}
