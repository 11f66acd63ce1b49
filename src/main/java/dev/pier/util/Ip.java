package dev.pier.util;

import java.math.BigInteger;

/**
 * An IPv4 or IPv6 address as a number. Parsing never touches DNS (unlike {@code
 * InetAddress.getByName}), so it is safe on an event loop; formatting is canonical (dotted quad,
 * RFC 5952 for IPv6), so equal addresses always print alike.
 */
public record Ip(boolean v6, BigInteger value) {

  public static final BigInteger V4_MAX = BigInteger.ONE.shiftLeft(32).subtract(BigInteger.ONE);
  public static final BigInteger V6_MAX = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);

  /** Bits of the address family: 32 or 128. */
  public int bits() {
    return v6 ? 128 : 32;
  }

  /** A URL's host without the brackets around an IPv6 literal ({@code [::1]} is {@code ::1}). */
  public static String unbracketed(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** Parses a literal address, or returns null when {@code text} is not one. */
  public static Ip parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    if (text.indexOf(':') >= 0) {
      BigInteger v = parseV6(text);
      return v == null ? null : new Ip(true, v);
    }
    long v = parseV4(text);
    return v < 0 ? null : new Ip(false, BigInteger.valueOf(v));
  }

  /** The literal form of an address of the given family. */
  public static String format(boolean v6, BigInteger value) {
    if (!v6) {
      long v = value.longValue();
      return ((v >>> 24) & 0xff)
          + "."
          + ((v >>> 16) & 0xff)
          + "."
          + ((v >>> 8) & 0xff)
          + "."
          + (v & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = value.shiftRight(16 * (7 - i)).intValue() & 0xffff;
    }
    // RFC 5952: the longest run (first on a tie) of two or more zero groups becomes "::".
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    StringBuilder out = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLen - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return out.toString();
  }

  @Override
  public String toString() {
    return format(v6, value);
  }

  /** A dotted quad without leading zeros, or -1. */
  private static long parseV4(String text) {
    long result = 0;
    int parts = 0;
    int i = 0;
    int n = text.length();
    while (i <= n) {
      int start = i;
      int octet = 0;
      while (i < n && text.charAt(i) != '.') {
        char c = text.charAt(i);
        if (c < '0' || c > '9' || i - start >= 3) {
          return -1;
        }
        octet = octet * 10 + (c - '0');
        i++;
      }
      int len = i - start;
      if (len == 0 || octet > 255 || (len > 1 && text.charAt(start) == '0')) {
        return -1;
      }
      result = (result << 8) | octet;
      parts++;
      if (parts > 4) {
        return -1;
      }
      i++; // past the dot (or past the end)
    }
    return parts == 4 && text.charAt(n - 1) != '.' ? result : -1;
  }

  private static BigInteger parseV6(String text) {
    if (text.indexOf('%') >= 0) {
      return null;
    }
    int gap = text.indexOf("::");
    if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    int[] head;
    int[] tail;
    if (gap >= 0) {
      head = groups(text.substring(0, gap), false);
      tail = groups(text.substring(gap + 2), true);
      if (head == null || tail == null || head.length + tail.length > 7) {
        return null;
      }
    } else {
      head = groups(text, true);
      if (head == null || head.length != 8) {
        return null;
      }
      tail = new int[0];
    }
    int[] all = new int[8];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(tail, 0, all, 8 - tail.length, tail.length);
    BigInteger v = BigInteger.ZERO;
    for (int g : all) {
      v = v.shiftLeft(16).or(BigInteger.valueOf(g));
    }
    return v;
  }

  /** Colon-separated hex groups; the last may be a dotted quad (two groups) when allowed. */
  private static int[] groups(String part, boolean allowV4Tail) {
    if (part.isEmpty()) {
      return new int[0];
    }
    String[] pieces = part.split(":", -1);
    int extra = 0;
    String last = pieces[pieces.length - 1];
    long v4 = -1;
    if (last.indexOf('.') >= 0) {
      if (!allowV4Tail) {
        return null;
      }
      v4 = parseV4(last);
      if (v4 < 0) {
        return null;
      }
      extra = 1;
    }
    int hexCount = v4 >= 0 ? pieces.length - 1 : pieces.length;
    int[] out = new int[hexCount + 2 * extra];
    for (int i = 0; i < hexCount; i++) {
      String p = pieces[i];
      if (p.isEmpty() || p.length() > 4) {
        return null;
      }
      int g = 0;
      for (int k = 0; k < p.length(); k++) {
        char c = p.charAt(k);
        int d =
            c >= '0' && c <= '9'
                ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) {
          return null;
        }
        g = g * 16 + d;
      }
      out[i] = g;
    }
    if (v4 >= 0) {
      out[hexCount] = (int) (v4 >>> 16);
      out[hexCount + 1] = (int) (v4 & 0xffff);
    }
    return out;
  }
}
