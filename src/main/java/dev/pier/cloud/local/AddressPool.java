package dev.pier.cloud.local;

import dev.pier.cloud.AddressPoolUsage;
import dev.pier.cloud.ProviderException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The load balancer addresses of the {@code local} provider: one address per Service, taken from
 * pools written as CIDRs ({@code 127.240.0.0/16}, {@code fd00:1::/120}) or inclusive ranges ({@code
 * 10.0.0.10-10.0.0.20}).
 *
 * <p>A pool ({@link PoolSpec}) may be restricted to namespaces: a Service gets an address only from
 * pools its namespace may use, may request ({@code spec.loadBalancerIP}) only such an address, and
 * keeps one from its status only from such a pool. Calls without a namespace use only the pools
 * open to every namespace.
 *
 * <p>CIDRs wider than /31 (IPv4) leave out their network and broadcast addresses; IPv6 CIDRs wider
 * than /127 leave out their first (subnet-router anycast) address. Allocation picks the lowest free
 * address, pools in the order given. A pool may hold at most 2^64 - 1 addresses (an IPv6 /64).
 *
 * <p>Memory stays proportional to the number of allocations: one small record per Service and, per
 * pool, a bit set (pools up to 2^24 addresses) or a sorted set of the taken offsets (larger ones).
 *
 * <p>Not thread-safe: the provider confines it to one context.
 */
public final class AddressPool {

  /** Pools up to this many addresses track free addresses in a bit set. */
  private static final long BITSET_LIMIT = 1L << 24;

  /** 2^64 - 1: offsets into a pool are unsigned 64-bit numbers. */
  private static final BigInteger MAX_RANGE_SIZE =
      BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private final List<Range> ranges;
  private final String description;
  private final Map<String, Allocation> byKey = new HashMap<>();

  /**
   * Builds a pool from CIDR and range strings, each open to every namespace.
   *
   * @throws IllegalArgumentException naming the bad value, when a pool is malformed, empty, or
   *     overlaps another
   */
  public AddressPool(List<String> pools) {
    this(specs(pools), 0);
  }

  private AddressPool(List<PoolSpec> pools, int unused) {
    this.ranges = parse(pools);
    this.description = describe(pools);
  }

  /**
   * Builds a pool from configured pools, each with its addresses and the namespaces that may use
   * it.
   *
   * @throws IllegalArgumentException naming the bad value, when a pool is malformed, empty, or
   *     overlaps another, or two pools have the same name
   */
  public static AddressPool of(List<PoolSpec> pools) {
    return new AddressPool(pools, 0);
  }

  /**
   * Checks pool strings as configuration is read.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public static void validate(List<String> pools) {
    parse(specs(pools));
  }

  private static List<PoolSpec> specs(List<String> pools) {
    if (pools == null || pools.isEmpty()) {
      throw new IllegalArgumentException("at least one address pool is required");
    }
    List<PoolSpec> specs = new ArrayList<>(pools.size());
    for (String p : pools) {
      specs.add(PoolSpec.of(p == null ? null : p.trim()));
    }
    return specs;
  }

  private static String describe(List<PoolSpec> pools) {
    return "[" + String.join(", ", pools.stream().map(PoolSpec::toString).toList()) + "]";
  }

  /** The pools as configured, for messages: {@code [127.240.0.0/16]}. */
  public String describe() {
    return description;
  }

  /** Whether {@code ip} is a literal address inside one of the pools. */
  public boolean contains(String ip) {
    Ip parsed = Ip.parse(ip);
    return parsed != null && rangeOf(parsed) >= 0;
  }

  /** The address allocated to the Service {@code key}. */
  public Optional<String> lookup(String key) {
    Allocation a = byKey.get(key);
    return a == null ? Optional.empty() : Optional.of(ranges.get(a.range).format(a.offset));
  }

  /** The key of the Service holding {@code ip}. */
  public Optional<String> holder(String ip) {
    Ip parsed = Ip.parse(ip);
    if (parsed == null) {
      return Optional.empty();
    }
    int r = rangeOf(parsed);
    if (r < 0) {
      return Optional.empty();
    }
    long offset = ranges.get(r).offsetOf(parsed);
    return ranges.get(r).slots.taken(offset)
        ? Optional.ofNullable(holderKey(r, offset))
        : Optional.empty();
  }

  /**
   * Every pool's size and the addresses taken from it, in the order configured; safe to call from
   * any thread.
   */
  public List<AddressPoolUsage> usage() {
    Map<String, double[]> byPool = new java.util.LinkedHashMap<>();
    for (Range r : ranges) {
      double[] u = byPool.computeIfAbsent(r.pool.label(), k -> new double[2]);
      u[0] += r.count.doubleValue();
      u[1] += r.inUse;
    }
    List<AddressPoolUsage> out = new ArrayList<>(byPool.size());
    byPool.forEach((pool, u) -> out.add(new AddressPoolUsage(pool, u[0], (long) u[1])));
    return out;
  }

  /** How many addresses are allocated. */
  public int allocatedCount() {
    return byKey.size();
  }

  /**
   * Same as {@link #allocate(String, String, String, String, String)} without a preferred address
   * or a namespace (only pools open to every namespace).
   */
  public String allocate(String key, String uid, String requestedIp) {
    return allocate(key, null, uid, requestedIp, null);
  }

  /** Same as {@link #allocate(String, String, String, String, String)} without a namespace. */
  public String allocate(String key, String uid, String requestedIp, String preferredIp) {
    return allocate(key, null, uid, requestedIp, preferredIp);
  }

  /**
   * Allocates (or keeps) the address of a Service and returns it, from the pools its namespace may
   * use.
   *
   * <ol>
   *   <li>A requested address ({@code spec.loadBalancerIP}) wins: the Service moves to it when it
   *       held another.
   *   <li>Otherwise the Service keeps the address it holds.
   *   <li>Otherwise it gets {@code preferredIp} (the address in its status, say) when that is in
   *       the pools and free.
   *   <li>Otherwise the lowest free address.
   * </ol>
   *
   * @param namespace the Service's namespace; null: only pools open to every namespace
   * @throws ProviderException.InvalidInput when the requested address is no address, lies outside
   *     every pool or in a pool the namespace may not use, or no pool admits the namespace
   * @throws ProviderException.Retry when the requested address is held by another Service, or the
   *     pools the namespace may use are exhausted
   */
  public String allocate(
      String key, String namespace, String uid, String requestedIp, String preferredIp) {
    Allocation current = byKey.get(key);
    if (current != null && !ranges.get(current.range).pool.admits(namespace)) {
      // Not reachable through the checks below; kept so that no path hands out such an address.
      release(key);
      current = null;
    }
    if (requestedIp != null && !requestedIp.isEmpty()) {
      Ip ip = Ip.parse(requestedIp.trim());
      if (ip == null) {
        throw new ProviderException.InvalidInput(
            "spec.loadBalancerIP",
            requestedIp,
            "spec.loadBalancerIP " + requestedIp + " is not an IP address");
      }
      int r = rangeOf(ip);
      if (r < 0) {
        throw new ProviderException.InvalidInput(
            "spec.loadBalancerIP",
            requestedIp,
            "spec.loadBalancerIP " + requestedIp + " is outside the address pools " + description);
      }
      PoolSpec owner = ranges.get(r).pool;
      if (!owner.admits(namespace)) {
        throw new ProviderException.InvalidInput(
            "spec.loadBalancerIP",
            requestedIp,
            "spec.loadBalancerIP "
                + requestedIp
                + " is in address pool "
                + owner.label()
                + ", which namespace "
                + namespace
                + " may not use"
                + usable(namespace));
      }
      long offset = ranges.get(r).offsetOf(ip);
      if (current != null && current.range == r && current.offset == offset) {
        current.uid = uid;
        return ip.toString();
      }
      if (ranges.get(r).slots.taken(offset)) {
        throw new ProviderException.Retry(
            "spec.loadBalancerIP "
                + requestedIp
                + " is allocated to Service "
                + holderKey(r, offset)
                + "; waiting for it to be released");
      }
      release(key);
      take(key, uid, r, offset);
      return ip.toString();
    }
    if (current != null) {
      current.uid = uid;
      return ranges.get(current.range).format(current.offset);
    }
    Ip preferred = preferredIp == null ? null : Ip.parse(preferredIp);
    if (preferred != null) {
      int r = rangeOf(preferred);
      if (r >= 0 && ranges.get(r).pool.admits(namespace)) {
        long offset = ranges.get(r).offsetOf(preferred);
        if (!ranges.get(r).slots.taken(offset)) {
          take(key, uid, r, offset);
          return preferred.toString();
        }
      }
    }
    List<PoolSpec> allowed = new ArrayList<>();
    for (int r = 0; r < ranges.size(); r++) {
      Range range = ranges.get(r);
      if (!range.pool.admits(namespace)) {
        continue;
      }
      if (!allowed.contains(range.pool)) {
        allowed.add(range.pool);
      }
      long offset = range.slots.lowestFree();
      if (offset != -1) {
        take(key, uid, r, offset);
        return range.format(offset);
      }
    }
    if (allowed.isEmpty()) {
      throw new ProviderException.InvalidInput(
          "metadata.namespace",
          namespace,
          "no address pool may be used by namespace "
              + namespace
              + "; the address pools are "
              + description);
    }
    boolean restricted = allowed.size() < pools().size();
    throw new ProviderException.Retry(
        "address pools "
            + describe(allowed)
            + (restricted ? " that namespace " + namespace + " may use" : "")
            + " are exhausted ("
            + byKey.size()
            + " addresses allocated); waiting for an address to be released");
  }

  /** The distinct configured pools, in order. */
  private List<PoolSpec> pools() {
    List<PoolSpec> pools = new ArrayList<>();
    for (Range range : ranges) {
      if (!pools.contains(range.pool)) {
        pools.add(range.pool);
      }
    }
    return pools;
  }

  /** The pools a namespace may use, for messages: {@code ; its pools are [...]}. */
  private String usable(String namespace) {
    List<PoolSpec> allowed = new ArrayList<>();
    for (PoolSpec p : pools()) {
      if (p.admits(namespace)) {
        allowed.add(p);
      }
    }
    return allowed.isEmpty()
        ? "; no address pool admits it"
        : "; the pools it may use are " + describe(allowed);
  }

  /** Same as {@link #reserve(String, String, String, String)} without a namespace. */
  public void reserve(String key, String uid, String ip) {
    reserve(key, null, uid, ip);
  }

  /**
   * Records that the Service {@code key} holds {@code ip}, as found in its status after a restart.
   * A Service that held another address moves to this one.
   *
   * @param namespace the Service's namespace; null: only pools open to every namespace
   * @throws IllegalArgumentException when {@code ip} is no address, lies outside the pools or in a
   *     pool the namespace may not use
   * @throws IllegalStateException when another Service holds {@code ip}
   */
  public void reserve(String key, String namespace, String uid, String ip) {
    Ip parsed = Ip.parse(ip);
    int r = parsed == null ? -1 : rangeOf(parsed);
    if (r < 0) {
      throw new IllegalArgumentException(ip + " is outside the address pools " + description);
    }
    PoolSpec owner = ranges.get(r).pool;
    if (!owner.admits(namespace)) {
      throw new IllegalArgumentException(
          ip
              + " is in address pool "
              + owner.label()
              + ", which namespace "
              + namespace
              + " may not use");
    }
    long offset = ranges.get(r).offsetOf(parsed);
    Allocation current = byKey.get(key);
    if (current != null && current.range == r && current.offset == offset) {
      current.uid = uid;
      return;
    }
    if (ranges.get(r).slots.taken(offset)) {
      throw new IllegalStateException(ip + " is allocated to Service " + holderKey(r, offset));
    }
    release(key);
    take(key, uid, r, offset);
  }

  /** Frees the address of the Service {@code key}, returning it. */
  public Optional<String> release(String key) {
    Allocation a = byKey.remove(key);
    if (a == null) {
      return Optional.empty();
    }
    Range range = ranges.get(a.range);
    range.slots.clear(a.offset);
    range.inUse--;
    return Optional.of(range.format(a.offset));
  }

  /** The keys of the Services holding an address, in no particular order. */
  public List<String> keys() {
    return new ArrayList<>(byKey.keySet());
  }

  /** The uid recorded with the Service's allocation. */
  public Optional<String> uid(String key) {
    Allocation a = byKey.get(key);
    return a == null ? Optional.empty() : Optional.ofNullable(a.uid);
  }

  @Override
  public String toString() {
    return "AddressPool" + description + " with " + byKey.size() + " allocated";
  }

  private void take(String key, String uid, int range, long offset) {
    ranges.get(range).slots.set(offset);
    ranges.get(range).inUse++;
    byKey.put(key, new Allocation(range, offset, uid));
  }

  /** Finds the holder of a taken address; linear, used only for messages. */
  private String holderKey(int range, long offset) {
    for (Map.Entry<String, Allocation> e : byKey.entrySet()) {
      if (e.getValue().range == range && e.getValue().offset == offset) {
        return e.getKey();
      }
    }
    return null;
  }

  private int rangeOf(Ip ip) {
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.get(i).contains(ip)) {
        return i;
      }
    }
    return -1;
  }

  private static List<Range> parse(List<PoolSpec> pools) {
    if (pools == null || pools.isEmpty()) {
      throw new IllegalArgumentException("at least one address pool is required");
    }
    List<Range> out = new ArrayList<>(pools.size());
    Set<String> names = new HashSet<>();
    for (PoolSpec pool : pools) {
      if (pool.name() != null && !names.add(pool.name())) {
        throw new IllegalArgumentException("two address pools are named " + pool.name());
      }
      if (pool.addresses().isEmpty()) {
        throw new IllegalArgumentException("address pool " + pool.label() + " has no addresses");
      }
      for (String raw : pool.addresses()) {
        if (raw == null || raw.isBlank()) {
          throw new IllegalArgumentException("address pool must not be empty");
        }
        Range range = parseOne(raw.trim(), pool);
        for (Range other : out) {
          if (other.v6 == range.v6
              && other.first.compareTo(range.lastInclusive()) <= 0
              && range.first.compareTo(other.lastInclusive()) <= 0) {
            throw new IllegalArgumentException(
                "address pool " + range.text + " overlaps address pool " + other.text);
          }
        }
        out.add(range);
      }
    }
    return List.copyOf(out);
  }

  private static Range parseOne(String text, PoolSpec pool) {
    int slash = text.indexOf('/');
    int dash = text.indexOf('-');
    if (slash >= 0) {
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
        BigInteger base = cidr.network();
        throw new IllegalArgumentException(
            "address pool "
                + text
                + " has host bits set; did you mean "
                + Ip.format(net.v6(), base)
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
      return new Range(net.v6(), first, last, text, pool);
    }
    if (dash >= 0) {
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
      if (to.value().subtract(from.value()).compareTo(MAX_RANGE_SIZE) >= 0) {
        throw new IllegalArgumentException(
            "address pool " + text + " is too large; at most 2^64 - 1 addresses are supported");
      }
      return new Range(from.v6(), from.value(), to.value(), text, pool);
    }
    throw bad(text);
  }

  private static IllegalArgumentException bad(String text) {
    return new IllegalArgumentException(
        "address pool "
            + text
            + " is neither a CIDR (127.240.0.0/16) nor a range (10.0.0.10-10.0.0.20)");
  }

  /** One Service's address: a pool index and an offset into it. */
  private static final class Allocation {
    final int range;
    final long offset;
    String uid;

    Allocation(int range, long offset, String uid) {
      this.range = range;
      this.offset = offset;
      this.uid = uid;
    }
  }

  /**
   * One pool: a contiguous run of addresses and which of them are taken. Offsets and the size are
   * unsigned 64-bit numbers.
   */
  private static final class Range {
    final boolean v6;
    final BigInteger first;
    final BigInteger count;
    final String text;
    final PoolSpec pool;
    final Slots slots;
    // Written only on the provider's context, read by metrics from any thread.
    volatile long inUse;

    Range(boolean v6, BigInteger first, BigInteger last, String text, PoolSpec pool) {
      this.v6 = v6;
      this.pool = pool;
      this.first = first;
      this.count = last.subtract(first).add(BigInteger.ONE);
      this.text = text;
      this.slots =
          count.compareTo(BigInteger.valueOf(BITSET_LIMIT)) <= 0
              ? new BitSlots(count.intValueExact())
              : new SparseSlots(count.longValue());
    }

    BigInteger lastInclusive() {
      return first.add(count).subtract(BigInteger.ONE);
    }

    boolean contains(Ip ip) {
      if (ip.v6() != v6) {
        return false;
      }
      BigInteger d = ip.value().subtract(first);
      return d.signum() >= 0 && d.compareTo(count) < 0;
    }

    /** The unsigned offset of an address this range contains. */
    long offsetOf(Ip ip) {
      return ip.value().subtract(first).longValue();
    }

    String format(long offset) {
      return Ip.format(v6, first.add(new BigInteger(Long.toUnsignedString(offset))));
    }
  }

  /** The taken offsets of one pool. */
  private interface Slots {
    boolean taken(long offset);

    void set(long offset);

    void clear(long offset);

    /** The lowest free offset, or -1 (never a valid offset) when every address is taken. */
    long lowestFree();
  }

  /** A bit per address, grown only as far as the highest taken one. */
  private static final class BitSlots implements Slots {
    private final int size;
    private final BitSet bits = new BitSet();

    BitSlots(int size) {
      this.size = size;
    }

    @Override
    public boolean taken(long offset) {
      return bits.get((int) offset);
    }

    @Override
    public void set(long offset) {
      bits.set((int) offset);
    }

    @Override
    public void clear(long offset) {
      bits.clear((int) offset);
    }

    @Override
    public long lowestFree() {
      int free = bits.nextClearBit(0);
      return free < size ? free : -1;
    }
  }

  /** Taken offsets of a very large (IPv6) pool, kept sorted as unsigned numbers. */
  private static final class SparseSlots implements Slots {
    /** Unsigned. */
    private final long size;

    private final TreeSet<Long> taken = new TreeSet<>(Long::compareUnsigned);

    SparseSlots(long size) {
      this.size = size;
    }

    @Override
    public boolean taken(long offset) {
      return taken.contains(offset);
    }

    @Override
    public void set(long offset) {
      taken.add(offset);
    }

    @Override
    public void clear(long offset) {
      taken.remove(offset);
    }

    @Override
    public long lowestFree() {
      long candidate = 0;
      for (long t : taken) {
        if (t != candidate) {
          break;
        }
        candidate++;
      }
      return Long.compareUnsigned(candidate, size) < 0 ? candidate : -1;
    }
  }
}
