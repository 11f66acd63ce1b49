package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pier scale-out-certs}: what it writes, checked by the JDK's own TLS trust manager. */
class ScaleOutCertsTest {
  private record Run(int status, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Cli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static X509Certificate certificate(String pem) throws CertificateException {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
  }

  private static X509TrustManager trusting(X509Certificate ca) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("ca", ca);
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return (X509TrustManager) factory.getTrustManagers()[0];
  }

  @Test
  void theCertificateIsSignedByTheCaAndServesTlsClientsAndServers() throws Exception {
    PeerCertificates.Material m =
        new PeerCertificates().generate(Instant.now(), Duration.ofDays(30));
    X509Certificate ca = certificate(m.caCertificate());
    X509Certificate peer = certificate(m.certificate());
    assertThat(ca.getBasicConstraints()).isZero();
    assertThat(peer.getBasicConstraints()).isEqualTo(-1);
    assertThat(peer.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    assertThat(peer.getExtendedKeyUsage())
        .containsExactly("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
    assertThat(peer.getSubjectAlternativeNames())
        .containsExactly(List.of(2, PeerCertificates.PEER_DNS_NAME));
    peer.verify(ca.getPublicKey());
    peer.checkValidity();
    assertThat(peer.getNotAfter().toInstant())
        .isBetween(
            Instant.now().plus(Duration.ofDays(29)), Instant.now().plus(Duration.ofDays(31)));

    X509TrustManager trust = trusting(ca);
    X509Certificate[] chain = {peer};
    trust.checkClientTrusted(chain, "EC");
    trust.checkServerTrusted(chain, "ECDHE_ECDSA");
    // Not the other way round: the CA of another set does not vouch for it.
    X509Certificate otherCa =
        certificate(
            new PeerCertificates().generate(Instant.now(), Duration.ofDays(1)).caCertificate());
    assertThatThrownBy(() -> trusting(otherCa).checkClientTrusted(chain, "EC"))
        .isInstanceOf(CertificateException.class);

    // The key is the certificate's.
    String base64 =
        m.privateKey()
            .replace("-----BEGIN PRIVATE KEY-----", "")
            .replace("-----END PRIVATE KEY-----", "")
            .replaceAll("\\s", "");
    PrivateKey key =
        KeyFactory.getInstance("EC")
            .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(key);
    signer.update(new byte[] {1, 2, 3});
    byte[] signed = signer.sign();
    Signature verifier = Signature.getInstance("SHA256withECDSA");
    verifier.initVerify(peer.getPublicKey());
    verifier.update(new byte[] {1, 2, 3});
    assertThat(verifier.verify(signed)).isTrue();
  }

  @Test
  void theCommandWritesTheSetWithThePrivateKeyForItsOwnerAloneAndKeepsAnEarlierSet(
      @TempDir Path dir) throws Exception {
    Path out = dir.resolve("tls");
    Run first = run("scale-out-certs", "--out", out.toString());
    assertThat(first.status()).as(first.err()).isZero();
    assertThat(first.out())
        .contains("kubectl -n pier create secret generic pier-scale-out-tls --from-file=" + out);
    for (String file : ScaleOutCerts.FILES) {
      assertThat(out.resolve(file)).isRegularFile();
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("tls.key"))))
        .isEqualTo("rw-------");
    String key = Files.readString(out.resolve("tls.key"));

    Run again = run("scale-out-certs", "--out", out.toString());
    assertThat(again.status()).isEqualTo(CliException.FAILED);
    assertThat(again.err()).contains("exists").contains("--force");
    assertThat(Files.readString(out.resolve("tls.key"))).isEqualTo(key);

    assertThat(run("scale-out-certs", "--out", out.toString(), "--force").status()).isZero();
    assertThat(Files.readString(out.resolve("tls.key"))).isNotEqualTo(key);
  }

  @Test
  void withoutOutItIsAUsageError() {
    Run run = run("scale-out-certs");
    assertThat(run.status()).isEqualTo(CliException.USAGE);
    assertThat(run.err()).contains("missing --out DIR");
    assertThat(run("scale-out-certs", "--help").out()).contains("--out DIR");
  }
}
