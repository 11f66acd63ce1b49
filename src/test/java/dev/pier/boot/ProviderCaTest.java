package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.MemberProvider;
import dev.pier.model.ServiceKey;
import dev.pier.util.RequestFence;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A member Secret's {@code provider-ca}: the only certificates its webhook's HTTPS endpoint is
 * checked against. A webhook whose certificate no public CA signed works with it and fails without
 * it; a value that is no certificate, or one for another provider, is refused by name.
 */
class ProviderCaTest {
  private static final String TOKEN = "provider-ca-t0ken";
  private static final ConfigValues LOOPBACK_ALLOWED =
      new ConfigLoader(
              PierOptions.ALL,
              Map.of("PIER_FEDERATION_MEMBER_EGRESS_ALLOW", "127.0.0.0/8,::1/128")::get)
          .load(null);

  private static SelfSignedCertificate serverCert;
  private static ReferenceWebhook webhook;
  private static Vertx vertx;

  @BeforeAll
  static void start() {
    serverCert = SelfSignedCertificate.create("localhost");
    webhook =
        ReferenceWebhook.start(
            TOKEN,
            new HttpServerOptions().setSsl(true).setKeyCertOptions(serverCert.keyCertOptions()));
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() throws Exception {
    webhook.close();
    serverCert.delete();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static MemberProvider member(String ca) {
    return new MemberProvider(
        Map.of("provider", "webhook", "webhook.url", webhook.url(), "webhook.retries", "0"),
        TOKEN,
        ca);
  }

  private static Throwable getFails(MemberProvider member) throws Exception {
    LoadBalancerProvider provider =
        MemberProviders.create(vertx, LOOPBACK_ALLOWED, member, RequestFence.OPEN);
    try {
      return provider
          .initialize(
              new ClusterIdentity("member", "9d0c7a7e-0000-4000-8000-00000000ca00"), List.of())
          .compose(v -> provider.getLoadBalancer("member", service()))
          .transform(ar -> io.vertx.core.Future.succeededFuture(ar.cause()))
          .await(30, TimeUnit.SECONDS);
    } finally {
      provider.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static LbService service() {
    return new LbService(
        new ServiceKey("member", "ns", "web"),
        "uid-1",
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

  @Test
  void theWebhookIsTrustedThroughTheSecretsCaAndOnlyThen() throws Exception {
    String ca = Files.readString(Path.of(serverCert.certificatePath()));
    assertThat(getFails(member(ca))).as("with the Secret's CA").isNull();
    assertThat(getFails(member(""))).as("with the JVM's CAs only").isNotNull();
  }

  @Test
  void aValueThatIsNoCertificateOrForAnotherProviderIsRefusedByName() {
    assertThatThrownBy(() -> MemberProviders.check(LOOPBACK_ALLOWED, member("not a certificate")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("data.provider-ca: holds no PEM certificate")
        .hasMessageNotContaining("not a certificate");
    MemberProvider hetzner =
        new MemberProvider(
            Map.of("provider", "hetzner"),
            TOKEN,
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    assertThatThrownBy(() -> MemberProviders.check(LOOPBACK_ALLOWED, hetzner))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("data.provider-ca: only provider webhook takes a CA of its own");
  }
}
