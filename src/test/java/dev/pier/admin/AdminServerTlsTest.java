package dev.pier.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.ScaleOutCredentials;
import dev.pier.testkit.TrustAll;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin server with a certificate: HTTPS only (plain HTTP gets no HTTP answer), and a renewed
 * certificate served after a reload without a restart, while a broken one keeps the old.
 */
class AdminServerTlsTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    await(vertx.close());
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void servesHttpsOnlyAndARenewedCertificateAfterAReload(@TempDir Path dir) throws Exception {
    Path serving = Files.createDirectories(dir.resolve("serving"));
    ScaleOutCredentials.Material first = ScaleOutCredentials.other(dir.resolve("first"));
    ScaleOutCredentials.Material second = ScaleOutCredentials.other(dir.resolve("second"));
    install(first, serving);
    AdminServer admin =
        new AdminServer(
            "127.0.0.1",
            0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            () -> true,
            () -> null,
            null,
            new PemKeyCertOptions()
                .setCertPath(serving.resolve("tls.crt").toString())
                .setKeyPath(serving.resolve("tls.key").toString()));
    await(vertx.deployVerticle(admin));
    int port = admin.actualPort();

    assertThat(httpsGet(port, "/healthz")).startsWith("HTTP/1.1 200");
    assertThat(presented(port)).isEqualTo(serial(first.cert()));
    assertThat(plainGet(port, "/healthz")).doesNotStartWith("HTTP/1.1");

    install(second, serving);
    assertThat(presented(port)).as("before the reload").isEqualTo(serial(first.cert()));
    await(admin.reloadTls());
    assertThat(presented(port)).as("after the reload").isEqualTo(serial(second.cert()));
    assertThat(httpsGet(port, "/readyz")).startsWith("HTTP/1.1 200");

    // A broken file on the next reload: the server keeps serving what it had.
    Files.writeString(serving.resolve("tls.key"), "not a key\n");
    assertThat(admin.reloadTls().toCompletionStage().toCompletableFuture())
        .failsWithin(java.time.Duration.ofSeconds(30));
    assertThat(presented(port)).isEqualTo(serial(second.cert()));
  }

  private static void install(ScaleOutCredentials.Material m, Path dir) throws IOException {
    Files.copy(m.cert(), dir.resolve("tls.crt"), StandardCopyOption.REPLACE_EXISTING);
    Files.copy(m.key(), dir.resolve("tls.key"), StandardCopyOption.REPLACE_EXISTING);
  }

  private static BigInteger serial(Path cert) throws Exception {
    try (InputStream in = Files.newInputStream(cert)) {
      return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in))
          .getSerialNumber();
    }
  }

  private static BigInteger presented(int port) throws Exception {
    try (SSLSocket s =
        (SSLSocket) TrustAll.context(null).getSocketFactory().createSocket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      s.startHandshake();
      return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  private static String httpsGet(int port, String path) throws Exception {
    try (Socket s = TrustAll.context(null).getSocketFactory().createSocket("127.0.0.1", port)) {
      return exchange(s, path);
    }
  }

  /** What a plain HTTP request reads back: empty when the server closed the connection. */
  private static String plainGet(int port, String path) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      return exchange(s, path);
    } catch (IOException e) {
      return "";
    }
  }

  private static String exchange(Socket s, String path) throws IOException {
    s.setSoTimeout(10_000);
    OutputStream out = s.getOutputStream();
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
  }
}
