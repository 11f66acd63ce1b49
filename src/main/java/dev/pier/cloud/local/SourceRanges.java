package dev.pier.cloud.local;

import dev.pier.cloud.ProviderException;
import dev.pier.util.Cidr;
import dev.pier.util.Ip;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * The clients a load balancer admits: a Service's {@code spec.loadBalancerSourceRanges}, IPv4 and
 * IPv6 CIDRs. An empty list admits everyone. Host bits in a CIDR are ignored ({@code 10.1.2.3/8} is
 * {@code 10.0.0.0/8}), as Kubernetes reads the field. An IPv4 client seen as an IPv4-mapped IPv6
 * address ({@code ::ffff:10.0.0.1}) matches IPv4 ranges.
 *
 * <p>Immutable.
 */
final class SourceRanges {

  static final String FIELD = "spec.loadBalancerSourceRanges";

  /** Admits every client. */
  static final SourceRanges ALL = new SourceRanges(List.of(), new Cidr[0]);

  private static final BigInteger V4_MAPPED_PREFIX = BigInteger.valueOf(0xffff);

  private final List<String> texts;
  private final Cidr[] ranges;

  private SourceRanges(List<String> texts, Cidr[] ranges) {
    this.texts = texts;
    this.ranges = ranges;
  }

  /**
   * Parses a Service's ranges.
   *
   * @throws ProviderException.InvalidInput naming {@code spec.loadBalancerSourceRanges} and the
   *     first value that is no CIDR
   */
  static SourceRanges parse(List<String> values) {
    if (values == null || values.isEmpty()) {
      return ALL;
    }
    List<String> texts = new ArrayList<>(values.size());
    Cidr[] ranges = new Cidr[values.size()];
    for (int i = 0; i < values.size(); i++) {
      String raw = values.get(i);
      Cidr cidr = Cidr.parse(raw);
      String problem = null;
      if (cidr == null) {
        problem = "is not a CIDR such as 10.0.0.0/8 or fd00::/8";
      } else if (cidr.prefix() > cidr.address().bits()) {
        problem =
            "is not a CIDR: prefix length "
                + cidr.prefix()
                + " is longer than "
                + cidr.address().bits();
      }
      if (problem != null) {
        throw new ProviderException.InvalidInput(
            FIELD, raw, FIELD + "[" + i + "] '" + raw + "' " + problem);
      }
      ranges[i] = new Cidr(new Ip(cidr.address().v6(), cidr.network()), cidr.prefix());
      texts.add(ranges[i].address() + "/" + cidr.prefix());
    }
    return new SourceRanges(List.copyOf(texts), ranges);
  }

  boolean isEmpty() {
    return ranges.length == 0;
  }

  /**
   * Whether a client address is admitted. With ranges set, what is no literal address is not.
   *
   * @param host a literal address, IPv6 possibly with a zone ({@code fe80::1%eth0})
   */
  boolean admits(String host) {
    if (ranges.length == 0) {
      return true;
    }
    if (host == null) {
      return false;
    }
    int zone = host.indexOf('%');
    Ip ip = Ip.parse(zone >= 0 ? host.substring(0, zone) : host);
    if (ip == null) {
      return false;
    }
    Ip v4 = null;
    if (ip.v6() && ip.value().shiftRight(32).equals(V4_MAPPED_PREFIX)) {
      v4 = new Ip(false, ip.value().and(Ip.V4_MAX));
    }
    for (Cidr range : ranges) {
      if (within(ip, range) || (v4 != null && within(v4, range))) {
        return true;
      }
    }
    return false;
  }

  private static boolean within(Ip ip, Cidr range) {
    return ip.v6() == range.address().v6()
        && ip.value().andNot(range.hostMask()).equals(range.address().value());
  }

  /** The ranges in canonical form, for logs: {@code [10.0.0.0/8]}, or {@code [] (everyone)}. */
  @Override
  public String toString() {
    return ranges.length == 0 ? "[] (everyone)" : texts.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SourceRanges other && texts.equals(other.texts);
  }

  @Override
  public int hashCode() {
    return texts.hashCode();
  }
}
