package dev.pier.federation;

import dev.pier.model.KubeCredentials;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * When a member's credentials stop working, as far as they say: a token's {@code exp} when it is a
 * JWT that carries one (service-account tokens do; a static token does not), a client certificate's
 * {@code notAfter}, and with both the one that comes first. Nothing is verified: the member's API
 * server does that; this only reads the date for a warning.
 */
public final class CredentialExpiry {
  private static final JsonMapper MAPPER = JsonMapper.shared();

  private CredentialExpiry() {}

  /**
   * The expiry the credentials carry (the earlier of the token's and the client certificate's when
   * both have one), or null when they carry none Pier can read.
   */
  public static Instant of(KubeCredentials credentials) {
    if (credentials == null) {
      return null;
    }
    return of(credentials.token(), credentials.clientCertData());
  }

  /**
   * The expiry of a token and an inline (base64 PEM) client certificate, either of them empty or
   * null: the earlier of the two that carry one, or null.
   */
  public static Instant of(String bearerToken, String clientCertData) {
    Instant token = bearerToken == null || bearerToken.isEmpty() ? null : ofToken(bearerToken);
    Instant certificate = ofCertificate(clientCertData);
    if (token == null || certificate == null) {
      return token == null ? certificate : token;
    }
    return certificate.isBefore(token) ? certificate : token;
  }

  /**
   * What kind of credential {@link #of} is the expiry of: {@code token} or {@code
   * client-certificate}; without an expiry the token when there is one. Empty without credentials.
   */
  public static String kind(KubeCredentials credentials) {
    if (credentials == null) {
      return "";
    }
    if (credentials.token().isEmpty()) {
      return "client-certificate";
    }
    Instant token = ofToken(credentials.token());
    Instant certificate = ofCertificate(credentials.clientCertData());
    boolean certificateFirst =
        certificate != null && (token == null || certificate.isBefore(token));
    return certificateFirst ? "client-certificate" : "token";
  }

  /** A JWT's {@code exp} claim (seconds since the epoch), or null when it is not such a JWT. */
  public static Instant ofToken(String token) {
    String[] parts = token.trim().split("\\.");
    if (parts.length != 3) {
      return null;
    }
    try {
      byte[] payload = Base64.getUrlDecoder().decode(stripPadding(parts[1]));
      JsonNode claims = MAPPER.readTree(new String(payload, StandardCharsets.UTF_8));
      JsonNode exp = claims == null ? null : claims.get("exp");
      if (exp == null || !exp.isNumber()) {
        return null;
      }
      return Instant.ofEpochSecond(exp.asLong());
    } catch (IllegalArgumentException | JacksonException e) {
      return null;
    }
  }

  /** A base64 PEM (or DER) certificate's {@code notAfter}, or null when it does not parse. */
  public static Instant ofCertificate(String base64Pem) {
    if (base64Pem == null || base64Pem.isBlank()) {
      return null;
    }
    try {
      byte[] bytes = Base64.getMimeDecoder().decode(base64Pem.trim());
      X509Certificate cert =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(new ByteArrayInputStream(bytes));
      return cert.getNotAfter().toInstant();
    } catch (IllegalArgumentException | CertificateException | ClassCastException e) {
      return null;
    }
  }

  private static String stripPadding(String s) {
    int end = s.length();
    while (end > 0 && s.charAt(end - 1) == '=') {
      end--;
    }
    return s.substring(0, end);
  }
}
