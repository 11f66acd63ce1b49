package dev.pier.cli;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import javax.security.auth.x500.X500Principal;

/**
 * The material of scale-out's mutual TLS: a CA, and one certificate with its key that every replica
 * presents (for TLS clients and servers alike) and that the CA signed. EC P-256 keys, ECDSA with
 * SHA-256. The CA's key is not kept: nothing else is ever signed with it, so a new certificate
 * means a new set.
 */
final class PeerCertificates {
  static final String CA_NAME = "CN=Pier scale-out CA";
  static final String PEER_NAME = "CN=pier-replica";
  static final String PEER_DNS_NAME = "pier-replica";

  private static final String EC_WITH_SHA256 = "1.2.840.10045.4.3.2";
  private static final String BASIC_CONSTRAINTS = "2.5.29.19";
  private static final String KEY_USAGE = "2.5.29.15";
  private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
  private static final String SUBJECT_ALT_NAME = "2.5.29.17";
  private static final String SUBJECT_KEY_ID = "2.5.29.14";
  private static final String AUTHORITY_KEY_ID = "2.5.29.35";
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  private static final int DIGITAL_SIGNATURE = 0x80;
  private static final int KEY_CERT_SIGN = 0x04;
  private static final int CRL_SIGN = 0x02;

  /** PEM texts: the CA's certificate, the replicas' certificate and its PKCS#8 key. */
  record Material(String caCertificate, String certificate, String privateKey) {}

  private final SecureRandom random = new SecureRandom();

  /** A new CA and a certificate it signed, both valid from a minute before {@code now}. */
  Material generate(Instant now, Duration validFor) {
    try {
      KeyPair ca = keyPair();
      KeyPair peer = keyPair();
      Instant from = now.minus(Duration.ofMinutes(1));
      Instant to = now.plus(validFor);
      byte[] caId = keyId(ca.getPublic());
      byte[] caCert =
          sign(
              tbs(
                  CA_NAME,
                  CA_NAME,
                  from,
                  to,
                  ca.getPublic(),
                  extension(
                      BASIC_CONSTRAINTS,
                      true,
                      Der.sequence(Der.bool(true), Der.integer(BigInteger.ZERO))),
                  extension(KEY_USAGE, true, Der.namedBits(KEY_CERT_SIGN | CRL_SIGN)),
                  extension(SUBJECT_KEY_ID, false, Der.octetString(caId))),
              ca.getPrivate());
      byte[] peerCert =
          sign(
              tbs(
                  CA_NAME,
                  PEER_NAME,
                  from,
                  to,
                  peer.getPublic(),
                  extension(BASIC_CONSTRAINTS, true, Der.sequence()),
                  extension(KEY_USAGE, true, Der.namedBits(DIGITAL_SIGNATURE)),
                  extension(
                      EXTENDED_KEY_USAGE,
                      false,
                      Der.sequence(Der.oid(SERVER_AUTH), Der.oid(CLIENT_AUTH))),
                  extension(
                      SUBJECT_ALT_NAME,
                      false,
                      Der.sequence(
                          Der.implicit(2, PEER_DNS_NAME.getBytes(StandardCharsets.US_ASCII)))),
                  extension(SUBJECT_KEY_ID, false, Der.octetString(keyId(peer.getPublic()))),
                  extension(AUTHORITY_KEY_ID, false, Der.sequence(Der.implicit(0, caId)))),
              ca.getPrivate());
      return new Material(
          pem("CERTIFICATE", caCert),
          pem("CERTIFICATE", peerCert),
          pem("PRIVATE KEY", peer.getPrivate().getEncoded()));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM cannot make EC P-256 keys or sign with them", e);
    }
  }

  private KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), random);
    return generator.generateKeyPair();
  }

  private byte[] tbs(
      String issuer,
      String subject,
      Instant from,
      Instant to,
      PublicKey key,
      byte[]... extensions) {
    return Der.sequence(
        Der.explicit(0, Der.integer(BigInteger.TWO)),
        Der.integer(new BigInteger(127, random).add(BigInteger.ONE)),
        Der.sequence(Der.oid(EC_WITH_SHA256)),
        new X500Principal(issuer).getEncoded(),
        Der.sequence(Der.time(from), Der.time(to)),
        new X500Principal(subject).getEncoded(),
        key.getEncoded(),
        Der.explicit(3, Der.sequence(extensions)));
  }

  private static byte[] extension(String oid, boolean critical, byte[] value) {
    return critical
        ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octetString(value))
        : Der.sequence(Der.oid(oid), Der.octetString(value));
  }

  private static byte[] sign(byte[] tbs, PrivateKey key) throws GeneralSecurityException {
    Signature signature = Signature.getInstance("SHA256withECDSA");
    signature.initSign(key);
    signature.update(tbs);
    return Der.sequence(
        tbs, Der.sequence(Der.oid(EC_WITH_SHA256)), Der.bitString(signature.sign()));
  }

  /** A key identifier: the first 20 bytes of the SHA-256 of the encoded public key. */
  private static byte[] keyId(PublicKey key) throws GeneralSecurityException {
    return Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(key.getEncoded()), 20);
  }

  static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
