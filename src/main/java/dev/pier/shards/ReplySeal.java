package dev.pier.shards;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seal on an answer between replicas: HMAC-SHA256, under the answering replica's reply key, of
 * the asker's nonce, the shard the answer speaks for and the answer's text. A process on the bus
 * without a replica's key (which only Pier's ServiceAccount can read, in the replica's Lease)
 * cannot make one, and a sealed answer cannot be replayed to another question or shard. Pure.
 */
public final class ReplySeal {
  private static final SecureRandom RANDOM = new SecureRandom();

  private ReplySeal() {}

  /** A new random key of 256 bits. */
  public static String newKey() {
    byte[] key = new byte[32];
    RANDOM.nextBytes(key);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(key);
  }

  public static String seal(String key, String nonce, int shard, String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((nonce + "\n" + shard + "\n").getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** Whether {@code seal} is {@code key}'s seal of that answer; in constant time. */
  public static boolean verify(String key, String nonce, int shard, String text, String seal) {
    if (seal == null || key == null) {
      return false;
    }
    return MessageDigest.isEqual(
        seal(key, nonce, shard, text).getBytes(StandardCharsets.UTF_8),
        seal.getBytes(StandardCharsets.UTF_8));
  }
}
