package dev.pier.util;

import java.math.BigInteger;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Which addresses a member cluster's provider may connect to: none that is loopback, link-local,
 * unspecified, multicast, broadcast or private (an IPv4 address embedded in NAT64's {@code
 * 64:ff9b::/96} or mapped into IPv6 counts as that address), none in {@code deny}, every other one;
 * an address in {@code allow} is allowed whatever else it is.
 */
public record EgressPolicy(List<Cidr> allow, List<Cidr> deny) {

  public static final EgressPolicy DEFAULT = new EgressPolicy(List.of(), List.of());

  private record Range(Cidr cidr, String kind) {}

  private static final List<Range> REFUSED =
      List.of(
          range("0.0.0.0/8", "an unspecified address"),
          range("127.0.0.0/8", "a loopback address"),
          range("169.254.0.0/16", "a link-local address"),
          range("224.0.0.0/4", "a multicast address"),
          range("255.255.255.255/32", "a broadcast address"),
          range("240.0.0.0/4", "a reserved address"),
          range("10.0.0.0/8", "a private address"),
          range("172.16.0.0/12", "a private address"),
          range("192.168.0.0/16", "a private address"),
          range("100.64.0.0/10", "a private (shared) address"),
          range("::/128", "an unspecified address"),
          range("::1/128", "a loopback address"),
          range("fe80::/10", "a link-local address"),
          range("ff00::/8", "a multicast address"),
          range("fc00::/7", "a private address"));

  // IPv6 prefixes whose last 32 bits are an IPv4 address: NAT64's well-known prefix and mapped.
  private static final List<Cidr> EMBEDDING =
      List.of(Cidr.parse("64:ff9b::/96"), Cidr.parse("::ffff:0.0.0.0/96"));

  public EgressPolicy {
    allow = List.copyOf(allow);
    deny = List.copyOf(deny);
  }

  /**
   * @throws IllegalArgumentException naming the first value that is not a CIDR
   */
  public static EgressPolicy of(List<String> allow, List<String> deny) {
    return new EgressPolicy(cidrs(allow), cidrs(deny));
  }

  /** Whether every item is a CIDR this policy accepts ({@code 10.0.0.0/8}, {@code fd00::/8}). */
  public static boolean valid(List<String> cidrs) {
    return cidrs.stream().allMatch(c -> cidr(c) != null);
  }

  /** Whether {@code ip} is inside an allowed CIDR. */
  public boolean allowed(Ip ip) {
    return covered(allow, ip) != null;
  }

  /**
   * Null when {@code address} may be connected to, else why not: "127.0.0.1 is a loopback address".
   */
  public String refusal(InetAddress address) {
    return refusal(
        new Ip(address instanceof Inet6Address, new BigInteger(1, address.getAddress())));
  }

  /** As {@link #refusal(InetAddress)}. */
  public String refusal(Ip ip) {
    Ip embedded = embedded(ip);
    if (covered(allow, ip) != null || (embedded != null && covered(allow, embedded) != null)) {
      return null;
    }
    for (Ip candidate : embedded == null ? List.of(ip) : List.of(ip, embedded)) {
      Cidr denied = covered(deny, candidate);
      String why = null;
      if (denied != null) {
        why = "in a denied range (" + denied.address() + "/" + denied.prefix() + ")";
      } else {
        for (Range r : REFUSED) {
          if (contains(r.cidr(), candidate)) {
            why = r.kind();
            break;
          }
        }
      }
      if (why != null) {
        return candidate == ip ? ip + " is " + why : ip + " embeds " + candidate + ", " + why;
      }
    }
    return null;
  }

  private static Ip embedded(Ip ip) {
    if (!ip.v6()) {
      return null;
    }
    for (Cidr c : EMBEDDING) {
      if (contains(c, ip)) {
        return new Ip(false, ip.value().and(Ip.V4_MAX));
      }
    }
    return null;
  }

  private static Cidr covered(List<Cidr> cidrs, Ip ip) {
    for (Cidr c : cidrs) {
      if (contains(c, ip)) {
        return c;
      }
    }
    return null;
  }

  private static boolean contains(Cidr cidr, Ip ip) {
    return cidr.address().v6() == ip.v6()
        && ip.value().andNot(cidr.hostMask()).equals(cidr.network());
  }

  private static Cidr cidr(String text) {
    Cidr c = Cidr.parse(text);
    return c == null || c.prefix() > c.address().bits() ? null : c;
  }

  private static List<Cidr> cidrs(List<String> texts) {
    List<Cidr> out = new ArrayList<>();
    for (String t : texts) {
      Cidr c = cidr(t);
      if (c == null) {
        throw new IllegalArgumentException("'" + t + "' is not a CIDR (address/prefix)");
      }
      out.add(c);
    }
    return out;
  }

  private static Range range(String cidr, String kind) {
    return new Range(Cidr.parse(cidr), kind);
  }
}
