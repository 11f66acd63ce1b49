package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.pier.model.KubeCredentials;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialExpiryTest {
  @TempDir Path tmp;

  private static String jwt(String claims) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8))
        + "."
        + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8))
        + ".c2lnbmF0dXJl";
  }

  @Test
  void aServiceAccountTokenExpiresAtItsExpClaim() {
    String token = jwt("{\"iss\":\"https://kubernetes.default.svc\",\"exp\":1767225600}");
    assertThat(CredentialExpiry.ofToken(token)).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(CredentialExpiry.of(new KubeCredentials("https://a", "", token, "", "")))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(CredentialExpiry.kind(new KubeCredentials("https://a", "", token, "", "")))
        .isEqualTo("token");
  }

  @Test
  void aTokenWithoutAReadableExpHasNoExpiry() {
    assertThat(CredentialExpiry.ofToken("static-t0ken")).isNull();
    assertThat(CredentialExpiry.ofToken(jwt("{\"sub\":\"x\"}"))).isNull();
    assertThat(CredentialExpiry.ofToken(jwt("{\"exp\":\"soon\"}"))).isNull();
    assertThat(CredentialExpiry.ofToken("a.!!!.c")).isNull();
    assertThat(CredentialExpiry.ofToken("a.bm90IGpzb24.c")).isNull();
  }

  @Test
  void aClientCertificateExpiresAtItsNotAfter() throws Exception {
    String data = certificate(7);
    Instant notAfter = CredentialExpiry.ofCertificate(data);
    assertThat(notAfter)
        .isCloseTo(Instant.now().plus(7, ChronoUnit.DAYS), within(1, ChronoUnit.HOURS));
    assertThat(CredentialExpiry.of(new KubeCredentials("https://a", "", "", data, "a2V5")))
        .isEqualTo(notAfter);
    assertThat(CredentialExpiry.kind(new KubeCredentials("https://a", "", "", data, "a2V5")))
        .isEqualTo("client-certificate");
    assertThat(CredentialExpiry.ofCertificate("bm90IGEgY2VydA==")).isNull();
  }

  @Test
  void withATokenAndAClientCertificateTheOneThatExpiresFirstCounts() throws Exception {
    String cert = certificate(7);
    Instant notAfter = CredentialExpiry.ofCertificate(cert);
    Instant sooner = notAfter.minus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
    Instant later = notAfter.plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
    KubeCredentials tokenFirst =
        new KubeCredentials(
            "https://a", "", jwt("{\"exp\":" + sooner.getEpochSecond() + "}"), cert, "a2V5");
    assertThat(CredentialExpiry.of(tokenFirst)).isEqualTo(sooner);
    assertThat(CredentialExpiry.kind(tokenFirst)).isEqualTo("token");
    KubeCredentials certificateFirst =
        new KubeCredentials(
            "https://a", "", jwt("{\"exp\":" + later.getEpochSecond() + "}"), cert, "a2V5");
    assertThat(CredentialExpiry.of(certificateFirst)).isEqualTo(notAfter);
    assertThat(CredentialExpiry.kind(certificateFirst)).isEqualTo("client-certificate");
    // A static token never expires: the certificate's notAfter is the expiry.
    KubeCredentials staticToken =
        new KubeCredentials("https://a", "", "static-t0ken", cert, "a2V5");
    assertThat(CredentialExpiry.of(staticToken)).isEqualTo(notAfter);
    assertThat(CredentialExpiry.kind(staticToken)).isEqualTo("client-certificate");
    // Neither carries one Pier can read: the token is named, as before.
    KubeCredentials neither =
        new KubeCredentials("https://a", "", "static-t0ken", "bm90IGEgY2VydA==", "a2V5");
    assertThat(CredentialExpiry.of(neither)).isNull();
    assertThat(CredentialExpiry.kind(neither)).isEqualTo("token");
  }

  /** A self-signed client certificate valid for {@code days}, as base64 PEM. */
  private String certificate(int days) throws Exception {
    Path keystore = tmp.resolve("ks.p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    run(
        keytool.toString(),
        "-genkeypair",
        "-keystore",
        keystore.toString(),
        "-storepass",
        "changeit",
        "-alias",
        "c",
        "-keyalg",
        "EC",
        "-dname",
        "CN=pier",
        "-validity",
        String.valueOf(days));
    Path pem = tmp.resolve("c.pem");
    run(
        keytool.toString(),
        "-exportcert",
        "-rfc",
        "-keystore",
        keystore.toString(),
        "-storepass",
        "changeit",
        "-alias",
        "c",
        "-file",
        pem.toString());
    return Base64.getEncoder().encodeToString(Files.readAllBytes(pem));
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }
}
