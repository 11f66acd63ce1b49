package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.Option;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event bus's mutual TLS under scale-out ({@code scaleOut.tls.*}): every replica presents the
 * certificate of {@code certFile} and accepts only a peer whose certificate the CA of {@code
 * caFile} signed, in both directions. The peers' addresses are not checked (a pod's IP is in no
 * certificate): holding a certificate of that CA is what makes a peer one of the replicas.
 */
record ScaleOutTls(Path certFile, Path keyFile, Path caFile) {
  private static final Logger log = LoggerFactory.getLogger(ScaleOutTls.class);

  static final String HOW_TO_CREATE =
      "`pier scale-out-certs --out DIR` writes ca.crt, tls.crt and tls.key; put them in a Secret"
          + " (`kubectl -n pier create secret generic pier-scale-out-tls --from-file=DIR`) mounted"
          + " into every replica; the chart makes one with scaleOut.enabled";

  /**
   * The files of {@code scaleOut.tls.*}, checked; null with {@code scaleOut.tls.insecure}. A {@link
   * ConfigException} names the option and the path of what is missing or wrong.
   */
  static ScaleOutTls of(ConfigValues config) {
    String cert = config.get(PierOptions.SCALE_OUT_TLS_CERT_FILE);
    String key = config.get(PierOptions.SCALE_OUT_TLS_KEY_FILE);
    String ca = config.get(PierOptions.SCALE_OUT_TLS_CA_FILE);
    if (config.get(PierOptions.SCALE_OUT_TLS_INSECURE)) {
      if (!cert.isEmpty() || !key.isEmpty() || !ca.isEmpty()) {
        throw new ConfigException(
            "scaleOut.tls.insecure is true and scaleOut.tls.certFile, keyFile or caFile is set:"
                + " set one or the other");
      }
      log.warn(
          "scaleOut.tls.insecure: the clustered event bus runs without TLS; anyone who reaches a"
              + " replica's event-bus port can read and send on it. For development only");
      return null;
    }
    List<String> missing = new ArrayList<>();
    for (Option<String> option :
        List.of(
            PierOptions.SCALE_OUT_TLS_CERT_FILE,
            PierOptions.SCALE_OUT_TLS_KEY_FILE,
            PierOptions.SCALE_OUT_TLS_CA_FILE)) {
      if (config.get(option).isEmpty()) {
        missing.add(option.path());
      }
    }
    if (!missing.isEmpty()) {
      throw new ConfigException(
          "scaleOut.enabled needs the event bus's mutual TLS, and "
              + String.join(", ", missing)
              + (missing.size() == 1 ? " is" : " are")
              + " not set: "
              + HOW_TO_CREATE
              + "; for development only, scaleOut.tls.insecure: true runs without");
    }
    ScaleOutTls tls = new ScaleOutTls(Path.of(cert), Path.of(key), Path.of(ca));
    tls.check();
    return tls;
  }

  /**
   * Mutual TLS on the event bus: this replica's certificate, the CA, client auth required, and as a
   * client, servers checked against the CA too (the event bus trusts any server by default).
   */
  void applyTo(EventBusOptions options) {
    options
        .setSsl(true)
        .setClientAuth(ClientAuth.REQUIRED)
        .setTrustAll(false)
        .setKeyCertOptions(
            new PemKeyCertOptions().setCertPath(certFile.toString()).setKeyPath(keyFile.toString()))
        .setTrustOptions(new PemTrustOptions().addCertPath(caFile.toString()));
  }

  /**
   * The same mutual TLS for the membership transport: this replica's key and certificate, and only
   * the CA's certificates trusted, as a server (the transport requires the client's) and as a
   * client. Built from the files' bytes, in the formats the event bus reads.
   */
  SSLContext sslContext() {
    try {
      KeyManagerFactory keys =
          new PemKeyCertOptions()
              .setKeyValue(Buffer.buffer(Files.readAllBytes(keyFile)))
              .setCertValue(Buffer.buffer(Files.readAllBytes(certFile)))
              .getKeyManagerFactory(null);
      KeyStore cas = KeyStore.getInstance("PKCS12");
      cas.load(null, null);
      int n = 0;
      for (X509Certificate ca :
          PemFiles.certificates("scaleOut.tls.caFile", caFile, HOW_TO_CREATE)) {
        cas.setCertificateEntry("ca-" + n++, ca);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(cas);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
      return context;
    } catch (Exception e) {
      throw new ConfigException(
          "scaleOut.tls.certFile, keyFile, caFile ("
              + certFile
              + ", "
              + keyFile
              + ", "
              + caFile
              + "): cannot make the membership's TLS context: "
              + e.getMessage());
    }
  }

  /** Readable, parsable, in force, and the certificate signed by one of the CA's. */
  private void check() {
    List<X509Certificate> chain =
        PemFiles.certificates("scaleOut.tls.certFile", certFile, HOW_TO_CREATE);
    List<X509Certificate> cas = PemFiles.certificates("scaleOut.tls.caFile", caFile, HOW_TO_CREATE);
    PemFiles.privateKey("scaleOut.tls.keyFile", keyFile, HOW_TO_CREATE);
    X509Certificate leaf = chain.get(0);
    Date now = new Date();
    if (now.after(leaf.getNotAfter()) || now.before(leaf.getNotBefore())) {
      throw new ConfigException(
          "scaleOut.tls.certFile: the certificate in "
              + certFile
              + " is valid from "
              + leaf.getNotBefore().toInstant()
              + " to "
              + leaf.getNotAfter().toInstant()
              + ", not now: "
              + HOW_TO_CREATE);
    }
    for (X509Certificate ca : cas) {
      try {
        leaf.verify(ca.getPublicKey());
        return;
      } catch (GeneralSecurityException e) {
        // Signed by another of the file's CAs, or none of them.
      }
    }
    throw new ConfigException(
        "scaleOut.tls.certFile: the certificate in "
            + certFile
            + " ("
            + leaf.getSubjectX500Principal().getName()
            + ") is not signed by a CA of scaleOut.tls.caFile "
            + caFile
            + ": the replicas would refuse it");
  }
}
