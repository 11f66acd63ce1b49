package dev.pier.cloud.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.ProviderException;
import dev.pier.cloud.VerifyResult;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The optional {@code verify} operation: used while the webhook implements it, and replaced by
 * {@code ensure} for good once it answers 404.
 */
class WebhookVerifyTest {
  private static final ClusterIdentity CLUSTER =
      new ClusterIdentity("kubernetes", "0b7c1f3e-0000-4000-8000-000000000001");
  private static final List<LbNode> NODES =
      List.of(new LbNode("n1", "", "10.0.0.1", null, Map.of()));

  private Vertx vertx;
  private ReferenceWebhook webhook;
  private WebhookLoadBalancerProvider provider;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    webhook = ReferenceWebhook.start("");
    provider =
        new WebhookLoadBalancerProvider(
            vertx,
            new WebhookOptions()
                .setUrl(webhook.url())
                .setRetries(0)
                .setTimeout(Duration.ofSeconds(5)));
    provider.initialize(CLUSTER, List.of()).await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close();
    webhook.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static LbService service(String name) {
    return new LbService(
        new ServiceKey(CLUSTER.name(), "shop", name),
        UUID.randomUUID().toString(),
        List.of(new LbPort("http", "TCP", 80, 30080)),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of("IPv4"),
        LbStatus.EMPTY);
  }

  private VerifyResult verify(LbService svc) throws Exception {
    return provider.verifyLoadBalancer(CLUSTER.name(), svc, NODES).await(10, TimeUnit.SECONDS);
  }

  @Test
  void aWebhookThatImplementsVerifySaysWhatItRepaired() throws Exception {
    LbService svc = service("web");
    LbStatus status =
        provider
            .ensureLoadBalancer(CLUSTER.name(), svc, NODES)
            .await(10, TimeUnit.SECONDS)
            .status();
    assertThat(verify(svc).repairs()).isEmpty();

    webhook.deleteOutOfBand(CLUSTER.uid() + "/" + svc.uid());
    VerifyResult repaired = verify(svc);
    assertThat(repaired.repairs())
        .singleElement()
        .satisfies(r -> assertThat(r).contains(svc.defaultLoadBalancerName(), "was missing"));
    assertThat(repaired.result().status().ingress()).isNotEmpty();
    assertThat(webhook.loadBalancers()).containsKey(CLUSTER.uid() + "/" + svc.uid());
    assertThat(status.ingress()).isNotEmpty();
    assertThat(webhook.operations()).containsExactly("ensure", "verify", "verify");
    assertThat(provider.verifySupported()).isTrue();
  }

  @Test
  void aWebhookWithoutVerifyIsVerifiedWithEnsureFromItsFirst404On() throws Exception {
    webhook.supportVerify(false);
    LbService svc = service("web");
    provider.ensureLoadBalancer(CLUSTER.name(), svc, NODES).await(10, TimeUnit.SECONDS);
    webhook.deleteOutOfBand(CLUSTER.uid() + "/" + svc.uid());

    VerifyResult first = verify(svc);
    assertThat(first.repairs()).as("ensure cannot say what it repaired").isEmpty();
    assertThat(first.result().status().ingress()).isNotEmpty();
    assertThat(webhook.loadBalancers()).containsKey(CLUSTER.uid() + "/" + svc.uid());
    assertThat(provider.verifySupported()).isFalse();
    assertThat(webhook.operations()).containsExactly("ensure", "verify", "ensure");

    // Remembered: later verifications (of any Service) go straight to ensure.
    verify(svc);
    verify(service("other"));
    assertThat(webhook.operations())
        .containsExactly("ensure", "verify", "ensure", "ensure", "ensure");
  }

  @Test
  void otherFailuresOfVerifyAreFailuresNotAFallback() throws Exception {
    LbService svc = service("web");
    provider.ensureLoadBalancer(CLUSTER.name(), svc, NODES).await(10, TimeUnit.SECONDS);
    webhook.failNext(1);
    assertThatThrownBy(() -> verify(svc)).isInstanceOf(ProviderException.Retry.class);
    assertThat(provider.verifySupported()).isTrue();
    assertThat(webhook.operations()).containsExactly("ensure", "verify");
    assertThat(verify(svc).repairs()).isEmpty();
    assertThat(webhook.operations()).containsExactly("ensure", "verify", "verify");
  }
}
