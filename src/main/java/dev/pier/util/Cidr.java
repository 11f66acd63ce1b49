package dev.pier.util;

import java.math.BigInteger;

/**
 * An address with a prefix length, {@code 10.0.0.0/8} or {@code fd00::/8}, as written: host bits
 * may be set and the prefix may exceed the family's bits; callers decide what they accept.
 */
public record Cidr(Ip address, int prefix) {

  /**
   * Parses {@code address/prefix} (spaces around either part allowed), or returns null when {@code
   * text} does not have that form: no slash, no literal address, or a prefix that is not one to
   * three digits.
   */
  public static Cidr parse(String text) {
    if (text == null) {
      return null;
    }
    int slash = text.indexOf('/');
    if (slash < 0) {
      return null;
    }
    Ip address = Ip.parse(text.substring(0, slash).trim());
    String prefixText = text.substring(slash + 1).trim();
    if (address == null || prefixText.isEmpty() || prefixText.length() > 3) {
      return null;
    }
    for (int i = 0; i < prefixText.length(); i++) {
      if (prefixText.charAt(i) < '0' || prefixText.charAt(i) > '9') {
        return null;
      }
    }
    return new Cidr(address, Integer.parseInt(prefixText));
  }

  /** The bits below the prefix, all set; assumes {@code prefix <= address.bits()}. */
  public BigInteger hostMask() {
    return BigInteger.ONE.shiftLeft(address.bits() - prefix).subtract(BigInteger.ONE);
  }

  /** The network address: the address with its host bits cleared. */
  public BigInteger network() {
    return address.value().andNot(hostMask());
  }
}
