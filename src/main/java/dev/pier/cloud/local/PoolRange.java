package dev.pier.cloud.local;

import dev.pier.util.Cidr;
import dev.pier.util.Ip;
import java.math.BigInteger;

/**
 * One contiguous run of pool addresses, parsed from a CIDR or an inclusive range of a {@link
 * PoolSpec}. Offsets into it and its size are unsigned 64-bit numbers.
 *
 * @param first the first address that may be handed out
 * @param count how many addresses the range holds, at most 2^64 - 1
 * @param text the CIDR or range as written, for messages
 * @param pool the configured pool the range belongs to
 */
record PoolRange(boolean v6, BigInteger first, BigInteger count, String text, PoolSpec pool) {

  /** 2^64 - 1: offsets into a range are unsigned 64-bit numbers. */
  private static final BigInteger MAX_SIZE = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  /**
   * Parses a CIDR ({@code 127.240.0.0/16}, {@code fd00:1::/120}) or an inclusive range ({@code
   * 10.0.0.10-10.0.0.20}). CIDRs wider than /31 (IPv4) leave out their network and broadcast
   * addresses; IPv6 CIDRs wider than /127 leave out their first (subnet-router anycast) address.
   *
   * @throws IllegalArgumentException naming {@code text} and what is wrong with it
   */
  static PoolRange parse(String text, PoolSpec pool) {
    if (text.indexOf('/') >= 0) {
      return parseCidr(text, pool);
    }
    int dash = text.indexOf('-');
    if (dash >= 0) {
      return parseRange(text, dash, pool);
    }
    throw bad(text);
  }

  private static PoolRange parseCidr(String text, PoolSpec pool) {
    Cidr cidr = Cidr.parse(text);
    if (cidr == null) {
      throw bad(text);
    }
    Ip net = cidr.address();
    int prefix = cidr.prefix();
    int bits = net.bits();
    if (prefix > bits) {
      throw new IllegalArgumentException(
          "address pool " + text + ": prefix length " + prefix + " is longer than " + bits);
    }
    BigInteger hostMask = cidr.hostMask();
    if (net.value().and(hostMask).signum() != 0) {
      throw new IllegalArgumentException(
          "address pool "
              + text
              + " has host bits set; did you mean "
              + Ip.format(net.v6(), cidr.network())
              + "/"
              + prefix
              + "?");
    }
    if (bits - prefix > 64) {
      throw new IllegalArgumentException(
          "address pool " + text + " is too large; use a /64 or a smaller pool");
    }
    BigInteger first = net.value();
    BigInteger last = net.value().or(hostMask);
    if (!net.v6() && prefix < 31) {
      first = first.add(BigInteger.ONE);
      last = last.subtract(BigInteger.ONE);
    } else if (net.v6() && prefix < 127) {
      first = first.add(BigInteger.ONE);
    }
    return between(net.v6(), first, last, text, pool);
  }

  private static PoolRange parseRange(String text, int dash, PoolSpec pool) {
    Ip from = Ip.parse(text.substring(0, dash).trim());
    Ip to = Ip.parse(text.substring(dash + 1).trim());
    if (from == null || to == null) {
      throw bad(text);
    }
    if (from.v6() != to.v6()) {
      throw new IllegalArgumentException(
          "address pool " + text + " mixes an IPv4 and an IPv6 address");
    }
    if (from.value().compareTo(to.value()) > 0) {
      throw new IllegalArgumentException("address pool " + text + " ends before it starts");
    }
    if (to.value().subtract(from.value()).compareTo(MAX_SIZE) >= 0) {
      throw new IllegalArgumentException(
          "address pool " + text + " is too large; at most 2^64 - 1 addresses are supported");
    }
    return between(from.v6(), from.value(), to.value(), text, pool);
  }

  private static PoolRange between(
      boolean v6, BigInteger first, BigInteger last, String text, PoolSpec pool) {
    return new PoolRange(v6, first, last.subtract(first).add(BigInteger.ONE), text, pool);
  }

  private static IllegalArgumentException bad(String text) {
    return new IllegalArgumentException(
        "address pool "
            + text
            + " is neither a CIDR (127.240.0.0/16) nor a range (10.0.0.10-10.0.0.20)");
  }

  BigInteger lastInclusive() {
    return first.add(count).subtract(BigInteger.ONE);
  }

  boolean overlaps(PoolRange other) {
    return other.v6 == v6
        && other.first.compareTo(lastInclusive()) <= 0
        && first.compareTo(other.lastInclusive()) <= 0;
  }

  boolean contains(Ip ip) {
    if (ip.v6() != v6) {
      return false;
    }
    BigInteger d = ip.value().subtract(first);
    return d.signum() >= 0 && d.compareTo(count) < 0;
  }

  /** Whether Services of the namespace may use the range, from the named pool if not null. */
  boolean admits(String namespace, String poolName) {
    return pool.admits(namespace) && (poolName == null || poolName.equals(pool.name()));
  }

  /** The unsigned offset of an address this range contains. */
  long offsetOf(Ip ip) {
    return ip.value().subtract(first).longValue();
  }

  String format(long offset) {
    return Ip.format(v6, first.add(new BigInteger(Long.toUnsignedString(offset))));
  }
}
