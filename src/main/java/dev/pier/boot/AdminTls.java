package dev.pier.boot;

import dev.pier.admin.MetricsAuth;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Date;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin server's certificate ({@code admin.tls.*}): with both files set every admin endpoint is
 * served over HTTPS. {@code admin.metricsAuth: kubernetes} needs them, since the scrapers' bearer
 * tokens would otherwise cross the network in clear, unless {@code admin.tls.insecure} says plain
 * HTTP on purpose. The files are checked at startup; a {@link ConfigException} names the option and
 * the path. A certificate out of its validity period is only a Warning: the probes do not check it,
 * and a scrape that does fails by itself, where refusing to start would stop the controller.
 */
record AdminTls(Path certFile, Path keyFile) {
  private static final Logger log = LoggerFactory.getLogger(AdminTls.class);

  static final String HOW_TO_CREATE =
      "a kubernetes.io/tls Secret (tls.crt, tls.key; e.g. cert-manager's, or `pier"
          + " scale-out-certs --out DIR`) mounted into the pod; the chart makes one with"
          + " admin.tls.enabled or admin.metricsAuth: kubernetes";

  /**
   * The checked files of {@code admin.tls.*}, or null: plain HTTP (no files, and either no
   * authentication or {@code admin.tls.insecure}), or no admin server at all.
   */
  static AdminTls of(ConfigValues config) {
    if (config.get(PierOptions.ADMIN_PORT) < 0) {
      return null;
    }
    String cert = config.get(PierOptions.ADMIN_TLS_CERT_FILE);
    String key = config.get(PierOptions.ADMIN_TLS_KEY_FILE);
    boolean insecure = config.get(PierOptions.ADMIN_TLS_INSECURE);
    boolean tokens = MetricsAuth.KUBERNETES.equals(config.get(PierOptions.ADMIN_METRICS_AUTH));
    if (insecure && (!cert.isEmpty() || !key.isEmpty())) {
      throw new ConfigException(
          "admin.tls.insecure is true and admin.tls.certFile or keyFile is set: set one or the"
              + " other");
    }
    if (cert.isEmpty() && key.isEmpty()) {
      if (tokens && !insecure) {
        throw new ConfigException(
            "admin.metricsAuth: kubernetes needs admin.tls.certFile and admin.tls.keyFile: over"
                + " plain HTTP the scrapers' bearer tokens cross the network in clear. Use "
                + HOW_TO_CREATE
                + "; admin.tls.insecure: true serves plain HTTP anyway (a private network only)");
      }
      if (tokens) {
        log.warn(
            "admin.tls.insecure: /metrics takes bearer tokens over plain HTTP; anyone on the path"
                + " to the admin port can read them");
      }
      return null;
    }
    if (cert.isEmpty() || key.isEmpty()) {
      throw new ConfigException(
          (cert.isEmpty() ? "admin.tls.certFile" : "admin.tls.keyFile")
              + " is not set, but "
              + (cert.isEmpty() ? "admin.tls.keyFile" : "admin.tls.certFile")
              + " is: HTTPS needs both");
    }
    AdminTls tls = new AdminTls(Path.of(cert), Path.of(key));
    tls.check();
    return tls;
  }

  /**
   * The server's key and certificate by path: read when the server starts and again at each of its
   * reloads, so that a renewed certificate (a Secret's files replaced) is served without a restart.
   */
  PemKeyCertOptions keyCert() {
    return new PemKeyCertOptions().setCertPath(certFile.toString()).setKeyPath(keyFile.toString());
  }

  /** Readable, a certificate and a key that Vert.x can load; a Warning when out of date. */
  private void check() {
    X509Certificate leaf =
        PemFiles.certificates("admin.tls.certFile", certFile, HOW_TO_CREATE).get(0);
    String keyText = PemFiles.privateKey("admin.tls.keyFile", keyFile, HOW_TO_CREATE);
    try {
      new PemKeyCertOptions()
          .setCertValue(Buffer.buffer(PemFiles.read("admin.tls.certFile", certFile, HOW_TO_CREATE)))
          .setKeyValue(Buffer.buffer(keyText))
          .getKeyManagerFactory(null);
    } catch (Exception e) {
      throw new ConfigException(
          "admin.tls.certFile, keyFile ("
              + certFile
              + ", "
              + keyFile
              + "): cannot load the certificate and key: "
              + e.getMessage());
    }
    Date now = new Date();
    if (now.after(leaf.getNotAfter()) || now.before(leaf.getNotBefore())) {
      log.warn(
          "admin.tls.certFile: the certificate in {} is valid from {} to {}, not now; scrapers"
              + " that check it will refuse the admin server",
          certFile,
          leaf.getNotBefore().toInstant(),
          leaf.getNotAfter().toInstant());
    }
  }
}
