package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.federation.members.MemberSecrets;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.Date;

/**
 * A member Secret's {@code provider-ca}: PEM CA certificates that its webhook's HTTPS certificate
 * is checked against, in place of the JVM's. Checked before the member runs: parsable, at least one
 * certificate, each a CA in force; the error names the key and never quotes it.
 */
final class ProviderCa {
  private static final String KEY = "data." + MemberSecrets.PROVIDER_CA_KEY;

  private ProviderCa() {}

  static void check(String pem) {
    if (!pem.contains("-----BEGIN CERTIFICATE-----")) {
      throw new ConfigException(KEY + ": holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    Collection<? extends java.security.cert.Certificate> certs;
    try {
      certs =
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new ConfigException(KEY + ": not a readable PEM certificate: " + e.getMessage());
    }
    if (certs.isEmpty()) {
      throw new ConfigException(KEY + ": holds no PEM certificate");
    }
    Date now = new Date();
    for (var c : certs) {
      X509Certificate cert = (X509Certificate) c;
      String who = cert.getSubjectX500Principal().getName();
      if (now.after(cert.getNotAfter()) || now.before(cert.getNotBefore())) {
        throw new ConfigException(
            KEY
                + ": the certificate of "
                + who
                + " is valid from "
                + cert.getNotBefore().toInstant()
                + " to "
                + cert.getNotAfter().toInstant()
                + ", not now");
      }
    }
  }
}
