package dev.pier.cli;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The few DER encodings (ITU-T X.690) an X.509 certificate is made of, for {@link
 * PeerCertificates}: the JDK reads certificates and signs bytes, but has no public API that writes
 * a certificate.
 */
final class Der {
  private static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter GENERALIZED_TIME =
      DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

  private Der() {}

  static byte[] sequence(byte[]... parts) {
    return tlv(0x30, concat(parts));
  }

  static byte[] integer(BigInteger value) {
    return tlv(0x02, value.toByteArray());
  }

  static byte[] bool(boolean value) {
    return tlv(0x01, new byte[] {(byte) (value ? 0xff : 0)});
  }

  /** A BIT STRING of whole bytes. */
  static byte[] bitString(byte[] bytes) {
    return tlv(0x03, concat(new byte[] {0}, bytes));
  }

  /**
   * A named-bit BIT STRING (key usage) of one byte, bit 0 its most significant: DER drops the
   * trailing zero bits and says how many.
   */
  static byte[] namedBits(int firstByte) {
    int unused = Integer.numberOfTrailingZeros(firstByte);
    return tlv(0x03, new byte[] {(byte) unused, (byte) firstByte});
  }

  static byte[] octetString(byte[] bytes) {
    return tlv(0x04, bytes);
  }

  static byte[] oid(String dotted) {
    String[] arcs = dotted.split("\\.");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    base128(out, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
    for (int i = 2; i < arcs.length; i++) {
      base128(out, Long.parseLong(arcs[i]));
    }
    return tlv(0x06, out.toByteArray());
  }

  /** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050. */
  static byte[] time(Instant at) {
    int year = at.atZone(ZoneOffset.UTC).getYear();
    return year < 2050
        ? tlv(0x17, UTC_TIME.format(at).getBytes(StandardCharsets.US_ASCII))
        : tlv(0x18, GENERALIZED_TIME.format(at).getBytes(StandardCharsets.US_ASCII));
  }

  /** A constructed, context-specific tag: {@code [n] EXPLICIT}. */
  static byte[] explicit(int n, byte[] content) {
    return tlv(0xa0 | n, content);
  }

  /** A primitive, context-specific tag over a value's contents: {@code [n] IMPLICIT}. */
  static byte[] implicit(int n, byte[] contents) {
    return tlv(0x80 | n, contents);
  }

  static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 6);
    out.write(tag);
    int length = value.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      byte[] digits = BigInteger.valueOf(length).toByteArray();
      int skip = digits[0] == 0 ? 1 : 0;
      out.write(0x80 | (digits.length - skip));
      out.write(digits, skip, digits.length - skip);
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static void base128(ByteArrayOutputStream out, long value) {
    int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(value) + 6) / 7);
    for (int i = groups - 1; i >= 0; i--) {
      int b = (int) ((value >>> (7 * i)) & 0x7f);
      out.write(i == 0 ? b : b | 0x80);
    }
  }
}
