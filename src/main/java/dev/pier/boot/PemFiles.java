package dev.pier.boot;

import dev.pier.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The PEM files that Pier's TLS options name, read and checked at startup. A {@link
 * ConfigException} names the option and the path, and, when the file cannot be read, how to make
 * it.
 */
final class PemFiles {
  private PemFiles() {}

  /** The file's text. */
  static String read(String option, Path file, String howToCreate) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException(option + ": cannot read " + file + " (" + e + "); " + howToCreate);
    }
  }

  /** The certificates in the file, at least one; the first is the leaf of a chain. */
  @SuppressWarnings("unchecked")
  static List<X509Certificate> certificates(String option, Path file, String howToCreate) {
    read(option, file, howToCreate);
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> certs =
          new ArrayList<>(
              (Collection<X509Certificate>)
                  CertificateFactory.getInstance("X.509").generateCertificates(in));
      if (certs.isEmpty()) {
        throw new ConfigException(option + ": " + file + " holds no PEM certificate");
      }
      return certs;
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigException(
          option + ": " + file + " holds no readable PEM certificate: " + e.getMessage());
    }
  }

  /** The file's text, which holds a PEM private key. */
  static String privateKey(String option, Path file, String howToCreate) {
    String text = read(option, file, howToCreate);
    if (!text.matches("(?s).*-----BEGIN (RSA |EC )?PRIVATE KEY-----.*")) {
      throw new ConfigException(
          option
              + ": "
              + file
              + " holds no PEM private key (-----BEGIN PRIVATE KEY-----, RSA PRIVATE KEY or EC"
              + " PRIVATE KEY)");
    }
    return text;
  }
}
