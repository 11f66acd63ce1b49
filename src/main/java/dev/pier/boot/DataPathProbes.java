package dev.pier.boot;

import dev.pier.cloud.local.PoolSpec;
import dev.pier.config.ConfigValues;
import dev.pier.dns.publish.DataPathOptions;
import dev.pier.util.Cidr;
import dev.pier.util.EgressPolicy;
import dev.pier.util.Ip;
import dev.pier.util.RequestFence;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * How Pier probes federated Services' load balancers itself ({@code dns.probe.*}): where a probe
 * may connect is the member providers' rule ({@code federation.memberEgress.*}), with the pools of
 * the embedded {@code local} provider of every cluster that runs it allowed, since those are the
 * load balancers' own addresses.
 */
final class DataPathProbes {
  private DataPathProbes() {}

  /**
   * @param fence the host side's leadership, asked right before each probe goes
   */
  static DataPathOptions options(
      ConfigValues config, List<ClusterSetup> setups, int panicThreshold, RequestFence fence) {
    return new DataPathOptions(
        config.get(PierOptions.DNS_PROBE_PERIOD),
        config.get(PierOptions.DNS_PROBE_TIMEOUT),
        config.get(PierOptions.DNS_PROBE_FAILURE_THRESHOLD),
        config.get(PierOptions.DNS_PROBE_SUCCESS_THRESHOLD),
        panicThreshold,
        egress(config, setups),
        fence);
  }

  /** federation.memberEgress, the local provider's pools allowed. */
  static EgressPolicy egress(ConfigValues config, List<ClusterSetup> setups) {
    EgressPolicy member = MemberEgress.policy(config);
    List<Cidr> allow = new ArrayList<>(member.allow());
    for (ClusterSetup s : setups) {
      if (s.spec().loadBalancers() && "local".equals(s.config().get(PierOptions.PROVIDER))) {
        for (PoolSpec pool : s.config().get(PierOptions.LOCAL_POOLS)) {
          pool.addresses().forEach(a -> allow.addAll(cidrs(a)));
        }
      }
    }
    return new EgressPolicy(allow, member.deny());
  }

  /**
   * A pool's addresses as CIDRs: a CIDR as it is, an inclusive range {@code a-b} as the fewest
   * CIDRs that cover exactly it; nothing for what is neither.
   */
  static List<Cidr> cidrs(String pool) {
    Cidr cidr = Cidr.parse(pool);
    if (cidr != null) {
      return cidr.prefix() <= cidr.address().bits() ? List.of(cidr) : List.of();
    }
    int dash = pool.indexOf('-');
    Ip from = dash < 0 ? null : Ip.parse(pool.substring(0, dash).trim());
    Ip to = dash < 0 ? null : Ip.parse(pool.substring(dash + 1).trim());
    if (from == null || to == null || from.v6() != to.v6()) {
      return List.of();
    }
    List<Cidr> out = new ArrayList<>();
    int bits = from.bits();
    BigInteger next = from.value();
    BigInteger last = to.value();
    while (next.compareTo(last) <= 0) {
      // The largest block that starts at next and ends inside the range.
      int size = next.signum() == 0 ? bits : Math.min(bits, next.getLowestSetBit());
      while (next.add(BigInteger.ONE.shiftLeft(size)).subtract(BigInteger.ONE).compareTo(last)
          > 0) {
        size--;
      }
      out.add(new Cidr(new Ip(from.v6(), next), bits - size));
      next = next.add(BigInteger.ONE.shiftLeft(size));
    }
    return out;
  }
}
