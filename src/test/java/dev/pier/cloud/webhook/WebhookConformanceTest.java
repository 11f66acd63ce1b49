package dev.pier.cloud.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancers;
import dev.pier.cloud.ProviderException;
import dev.pier.cloud.VerifyResult;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit of docs/webhook-provider.md. Extend it, return the webhook's base URL (and
 * bearer token, if it requires one), and run it with JUnit 5: it drives the webhook through Pier's
 * own client, {@link WebhookLoadBalancerProvider}, plus raw HTTP for malformed requests and
 * authentication. Each test uses fresh Service uids and deletes what it made.
 */
public abstract class WebhookConformanceTest {
  private static final String CLUSTER = "conformance";
  private static final ClusterIdentity IDENTITY =
      new ClusterIdentity(CLUSTER, "9d0c7a7e-0000-4000-8000-c0f0c0f0c0f0");

  /** The webhook's base URL: calls go to {@code <url>/get}, {@code /ensure}, ... */
  protected abstract String webhookUrl();

  /** The bearer token the webhook requires; empty when it requires none. */
  protected String webhookToken() {
    return "";
  }

  /**
   * Whether the webhook must implement the optional {@code list} call. When false and the webhook
   * answers {@code /list} with 404, the list test passes without checking anything.
   */
  protected boolean listRequired() {
    return false;
  }

  /** The client's options; override to add TLS settings (caFile, certFile, keyFile). */
  protected WebhookOptions clientOptions() {
    return new WebhookOptions()
        .setUrl(webhookUrl())
        .setToken(webhookToken())
        .setRetries(0)
        .setTimeout(Duration.ofSeconds(10));
  }

  private Vertx vertx;
  private WebhookLoadBalancerProvider provider;
  private WebClient raw;

  @BeforeEach
  void connect() {
    vertx = Vertx.vertx();
    WebhookOptions options = clientOptions();
    provider = new WebhookLoadBalancerProvider(vertx, options);
    provider.initialize(IDENTITY, List.of());
    WebClientOptions rawOptions = new WebClientOptions();
    if (!options.getCaFile().isEmpty()) {
      rawOptions.setTrustOptions(new PemTrustOptions().addCertPath(options.getCaFile()));
    }
    if (!options.getCertFile().isEmpty()) {
      rawOptions.setKeyCertOptions(
          new PemKeyCertOptions()
              .setCertPath(options.getCertFile())
              .setKeyPath(options.getKeyFile()));
    }
    raw = WebClient.create(vertx, rawOptions);
  }

  @AfterEach
  void disconnect() throws Exception {
    provider.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  protected static LbService service(String name, LbPort... ports) {
    return new LbService(
        new ServiceKey(CLUSTER, "conformance", name),
        UUID.randomUUID().toString(),
        List.of(ports),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of("IPv4"),
        LbStatus.EMPTY);
  }

  protected static List<LbNode> nodes(String... names) {
    return java.util.Arrays.stream(names)
        .map(n -> new LbNode(n, "", "10.0.0." + (Math.abs(n.hashCode()) % 250 + 1), null, Map.of()))
        .toList();
  }

  private static LbPort tcp(int port, int nodePort) {
    return new LbPort("p" + port, "TCP", port, nodePort);
  }

  private static void assertUsable(LbStatus status) {
    assertThat(status.ingress()).as("ensure must answer at least one ingress").isNotEmpty();
    status
        .ingress()
        .forEach(
            i -> assertThat(i.ip() != null || i.hostname() != null).as("ip or hostname").isTrue());
  }

  @Test
  void getOfAnUnknownServiceSaysItDoesNotExist() throws Exception {
    assertThat(
            provider
                .getLoadBalancer(CLUSTER, service("unknown", tcp(80, 30080)))
                .await(30, TimeUnit.SECONDS))
        .isEmpty();
  }

  @Test
  void ensureAnswersAnAddressIsIdempotentAndGetAgrees() throws Exception {
    LbService svc = service("web", tcp(80, 30080));
    EnsureResult first =
        provider.ensureLoadBalancer(CLUSTER, svc, nodes("n1", "n2")).await(30, TimeUnit.SECONDS);
    assertUsable(first.status());
    EnsureResult again =
        provider.ensureLoadBalancer(CLUSTER, svc, nodes("n1", "n2")).await(30, TimeUnit.SECONDS);
    assertThat(again.status()).isEqualTo(first.status());
    assertThat(provider.getLoadBalancer(CLUSTER, svc).await(30, TimeUnit.SECONDS))
        .contains(first.status());
    provider.ensureLoadBalancerDeleted(CLUSTER, svc).await(30, TimeUnit.SECONDS);
  }

  @Test
  void portAndHostChangesKeepTheAddress() throws Exception {
    LbService svc = service("ports", tcp(80, 30080));
    LbStatus status =
        provider.ensureLoadBalancer(CLUSTER, svc, nodes("n1")).await(30, TimeUnit.SECONDS).status();
    provider
        .updateLoadBalancerHosts(CLUSTER, svc, nodes("n1", "n2", "n3"))
        .await(30, TimeUnit.SECONDS);
    provider.updateLoadBalancerHosts(CLUSTER, svc, List.of()).await(30, TimeUnit.SECONDS);
    assertThat(provider.getLoadBalancer(CLUSTER, svc).await(30, TimeUnit.SECONDS)).contains(status);
    LbService changed =
        new LbService(
            svc.key(),
            svc.uid(),
            List.of(tcp(8080, 30081), tcp(443, 30443)),
            null,
            "Cluster",
            0,
            "None",
            List.of(),
            Map.of(),
            List.of("IPv4"),
            status);
    assertThat(
            provider
                .ensureLoadBalancer(CLUSTER, changed, nodes("n2"))
                .await(30, TimeUnit.SECONDS)
                .status())
        .isEqualTo(status);
    provider.ensureLoadBalancerDeleted(CLUSTER, changed).await(30, TimeUnit.SECONDS);
  }

  @Test
  void deleteIsIdempotentAndTheLoadBalancerIsGone() throws Exception {
    LbService svc = service("gone", tcp(80, 30080));
    provider.ensureLoadBalancer(CLUSTER, svc, nodes("n1")).await(30, TimeUnit.SECONDS);
    provider.ensureLoadBalancerDeleted(CLUSTER, svc).await(30, TimeUnit.SECONDS);
    assertThat(provider.getLoadBalancer(CLUSTER, svc).await(30, TimeUnit.SECONDS)).isEmpty();
    provider.ensureLoadBalancerDeleted(CLUSTER, svc).await(30, TimeUnit.SECONDS);
    provider
        .ensureLoadBalancerDeleted(CLUSTER, service("never-made", tcp(80, 30080)))
        .await(30, TimeUnit.SECONDS);
  }

  @Test
  void servicesAreIndependent() throws Exception {
    LbService a = service("a", tcp(80, 30080));
    LbService b = service("b", tcp(80, 30081));
    LbStatus sa =
        provider.ensureLoadBalancer(CLUSTER, a, nodes("n1")).await(30, TimeUnit.SECONDS).status();
    LbStatus sb =
        provider.ensureLoadBalancer(CLUSTER, b, nodes("n1")).await(30, TimeUnit.SECONDS).status();
    assertUsable(sa);
    assertUsable(sb);
    provider.ensureLoadBalancerDeleted(CLUSTER, a).await(30, TimeUnit.SECONDS);
    assertThat(provider.getLoadBalancer(CLUSTER, a).await(30, TimeUnit.SECONDS)).isEmpty();
    assertThat(provider.getLoadBalancer(CLUSTER, b).await(30, TimeUnit.SECONDS))
        .isEqualTo(Optional.of(sb));
    provider.ensureLoadBalancerDeleted(CLUSTER, b).await(30, TimeUnit.SECONDS);
  }

  @Test
  void listReturnsWhatEnsureMadeForThisClusterUidOnlyAndDeleteRemovesAListedOne() throws Exception {
    LbService a = service("listed-a", tcp(80, 30080));
    LbService b = service("listed-b", tcp(80, 30081));
    LbService foreign = service("listed-foreign", tcp(80, 30082));
    WebhookLoadBalancerProvider other = new WebhookLoadBalancerProvider(vertx, clientOptions());
    other.initialize(
        new ClusterIdentity(CLUSTER, "9d0c7a7e-0000-4000-8000-0000000000ff"), List.of());
    try {
      provider.ensureLoadBalancer(CLUSTER, a, nodes("n1")).await(30, TimeUnit.SECONDS);
      provider.ensureLoadBalancer(CLUSTER, b, nodes("n1")).await(30, TimeUnit.SECONDS);
      other.ensureLoadBalancer(CLUSTER, foreign, nodes("n1")).await(30, TimeUnit.SECONDS);
      Optional<OwnedLoadBalancers> owned = provider.ownedLoadBalancers();
      assertThat(owned).as("the client offers list until the webhook answers 404").isPresent();
      List<OwnedLoadBalancer> listed = owned.get().list(CLUSTER).await(30, TimeUnit.SECONDS);
      if (provider.ownedLoadBalancers().isEmpty()) {
        assertThat(listRequired()).as("the webhook answered /list with 404").isFalse();
        assertThat(listed).isEmpty();
        return;
      }
      assertThat(listed)
          .as("what ensure made for this clusterUid, and nothing of another clusterUid")
          .extracting(OwnedLoadBalancer::serviceUid)
          .contains(a.uid(), b.uid())
          .doesNotContain(foreign.uid());
      OwnedLoadBalancer la =
          listed.stream().filter(l -> l.serviceUid().equals(a.uid())).findFirst().orElseThrow();
      assertThat(la.serviceKey()).isEqualTo(a.key().toString());
      assertThat(la.name()).isEqualTo(provider.loadBalancerName(CLUSTER, a));
      assertThat(la.id()).isNotBlank();

      owned.get().delete(CLUSTER, la).await(30, TimeUnit.SECONDS);
      assertThat(provider.getLoadBalancer(CLUSTER, a).await(30, TimeUnit.SECONDS)).isEmpty();
      assertThat(provider.getLoadBalancer(CLUSTER, b).await(30, TimeUnit.SECONDS)).isPresent();
      assertThat(owned.get().list(CLUSTER).await(30, TimeUnit.SECONDS))
          .extracting(OwnedLoadBalancer::serviceUid)
          .doesNotContain(a.uid())
          .contains(b.uid());
    } finally {
      provider.ensureLoadBalancerDeleted(CLUSTER, a).await(30, TimeUnit.SECONDS);
      provider.ensureLoadBalancerDeleted(CLUSTER, b).await(30, TimeUnit.SECONDS);
      other.ensureLoadBalancerDeleted(CLUSTER, foreign).await(30, TimeUnit.SECONDS);
      other.close();
    }
  }

  @Test
  void verifyWhenImplementedAnswersLikeEnsureAndRecreatesAMissingLoadBalancerSayingSo()
      throws Exception {
    LbService svc = service("verify", tcp(80, 30080));
    LbStatus status =
        provider.ensureLoadBalancer(CLUSTER, svc, nodes("n1")).await(30, TimeUnit.SECONDS).status();
    VerifyResult unchanged =
        provider.verifyLoadBalancer(CLUSTER, svc, nodes("n1")).await(30, TimeUnit.SECONDS);
    assertThat(unchanged.result().status()).isEqualTo(status);
    if (!provider.verifySupported()) {
      // verify is optional: this webhook answered 404, and the client verified with ensure.
      provider.ensureLoadBalancerDeleted(CLUSTER, svc).await(30, TimeUnit.SECONDS);
      return;
    }
    assertThat(unchanged.repairs()).as("nothing differed, so nothing was repaired").isEmpty();
    // Gone (here through delete; out of band in real life): verify makes it again and says so.
    provider.ensureLoadBalancerDeleted(CLUSTER, svc).await(30, TimeUnit.SECONDS);
    VerifyResult repaired =
        provider.verifyLoadBalancer(CLUSTER, svc, nodes("n1")).await(30, TimeUnit.SECONDS);
    assertUsable(repaired.result().status());
    assertThat(repaired.repairs()).as("a missing load balancer is a repair").isNotEmpty();
    assertThat(repaired.repairs()).allSatisfy(r -> assertThat(r).isNotBlank());
    assertThat(provider.getLoadBalancer(CLUSTER, svc).await(30, TimeUnit.SECONDS))
        .contains(repaired.result().status());
    provider.ensureLoadBalancerDeleted(CLUSTER, svc).await(30, TimeUnit.SECONDS);
  }

  @Test
  void anImpossibleProtocolIsInvalidInputNamingTheField() throws Exception {
    LbService svc = service("sctp", tcp(80, 30080), new LbPort("s", "SCTP", 9999, 30999));
    assertThatThrownBy(
            () ->
                provider.ensureLoadBalancer(CLUSTER, svc, nodes("n1")).await(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec.ports[1].protocol");
              assertThat(e.value()).isEqualTo("SCTP");
            });
    provider.ensureLoadBalancerDeleted(CLUSTER, svc).await(30, TimeUnit.SECONDS);
  }

  @Test
  void malformedRequestsGet400WithAnErrorBody() throws Exception {
    var request = raw.postAbs(webhookUrl() + "/ensure");
    if (!webhookToken().isEmpty()) {
      request.bearerTokenAuthentication(webhookToken());
    }
    HttpResponse<Buffer> r =
        request
            .putHeader("Content-Type", "application/json")
            .sendBuffer(Buffer.buffer("{not json"))
            .await(30, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(400);
    JsonObject error = r.bodyAsJsonObject().getJsonObject("error");
    assertThat(error).isNotNull();
    assertThat(error.getString("message")).isNotBlank();
  }

  @Test
  void aRequiredTokenIsEnforced() throws Exception {
    if (webhookToken().isEmpty()) {
      return; // the webhook declares no authentication: nothing to check
    }
    HttpResponse<Buffer> r =
        raw.postAbs(webhookUrl() + "/get")
            .bearerTokenAuthentication("wrong-" + webhookToken())
            .putHeader("Content-Type", "application/json")
            .sendBuffer(
                WebhookJson.encode(
                    WebhookJson.request(
                        CLUSTER, IDENTITY.uid(), "x", service("auth", tcp(80, 30080)), null)))
            .await(30, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(401);
  }
}
