package dev.pier.cloud.webhook;

import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SelfSignedCertificate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit over HTTPS with mutual TLS: the client trusts the webhook's certificate
 * through {@code caFile} and authenticates with {@code certFile}/{@code keyFile}.
 */
class TlsReferenceWebhookConformanceTest extends WebhookConformanceTest {
  private static final String TOKEN = "tls-conformance-token";
  private static ReferenceWebhook webhook;
  private static SelfSignedCertificate serverCert;
  private static SelfSignedCertificate clientCert;

  @BeforeAll
  static void start() {
    serverCert = SelfSignedCertificate.create("localhost");
    clientCert = SelfSignedCertificate.create("pier");
    webhook =
        ReferenceWebhook.start(
            TOKEN,
            new HttpServerOptions()
                .setSsl(true)
                .setKeyCertOptions(serverCert.keyCertOptions())
                .setClientAuth(ClientAuth.REQUIRED)
                .setTrustOptions(new PemTrustOptions().addCertPath(clientCert.certificatePath())));
  }

  @AfterAll
  static void stop() {
    webhook.close();
    serverCert.delete();
    clientCert.delete();
  }

  @Override
  protected String webhookUrl() {
    return webhook.url();
  }

  @Override
  protected String webhookToken() {
    return TOKEN;
  }

  @Override
  protected WebhookOptions clientOptions() {
    return super.clientOptions()
        .setCaFile(serverCert.certificatePath())
        .setCertFile(clientCert.certificatePath())
        .setKeyFile(clientCert.privateKeyPath());
  }
}
