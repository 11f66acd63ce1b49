package dev.pier.cloud.local;

import dev.pier.cloud.AddressPoolUsage;
import dev.pier.cloud.ProviderException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The load balancer addresses of the {@code local} provider: one address per Service (a dual-stack
 * Service holds its second family's address under {@link #secondFamilyKey}), taken from pools
 * written as CIDRs ({@code 127.240.0.0/16}, {@code fd00:1::/120}) or inclusive ranges ({@code
 * 10.0.0.10-10.0.0.20}).
 *
 * <p>A pool ({@link PoolSpec}) may be restricted to namespaces: a Service gets an address only from
 * pools its namespace may use, may request ({@code spec.loadBalancerIP}) only such an address, and
 * keeps one from its status only from such a pool. Calls without a namespace use only the pools
 * open to every namespace. A named pool may be chosen per Service ({@link Request#pool()}).
 *
 * <p>Services of one namespace with the same sharing key ({@link Request#share()}) may hold one
 * address together: a new sharer joins an address its group holds, and the address is free again
 * when its last holder releases it. Whether the sharers are compatible (ports, traffic policy) is
 * the caller's check.
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

  /** Suffix of the key of a dual-stack Service's second address; no Service key contains it. */
  private static final String SECOND_FAMILY = "#second-family";

  private final List<Range> ranges;
  private final String description;
  private final Map<String, Allocation> byKey = new HashMap<>();

  /** The keys of the Services of each sharing group (namespace and sharing key). */
  private final Map<String, Set<String>> groups = new HashMap<>();

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
        ? Optional.ofNullable(serviceOf(holderKey(r, offset)))
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

  /** How many Services hold an address; Services sharing one address count once each. */
  public int allocatedCount() {
    return keys().size();
  }

  /**
   * What a Service asks of the pools besides an address its namespace may use.
   *
   * @param pool the pool chosen with {@code pier.dev/address-pool}, or null for any
   * @param ip the requested address, or null
   * @param ipField the field that requested it, for errors: {@code spec.loadBalancerIP} or an
   *     annotation's {@code metadata.annotations[...]}
   * @param ipValue that field's whole value, for errors
   * @param share the {@code pier.dev/allow-shared-ip} key, or null: Services of one namespace with
   *     the same key may hold the same address (the caller checks that they are compatible)
   * @param v6 the IP family the address must have (true: IPv6, false: IPv4), or null for any
   */
  public record Request(
      String pool, String ip, String ipField, String ipValue, String share, Boolean v6) {

    static final String SPEC_FIELD = "spec.loadBalancerIP";

    /** A request for an address of any IP family. */
    public Request(String pool, String ip, String ipField, String ipValue, String share) {
      this(pool, ip, ipField, ipValue, share, null);
    }

    /** The same request, for an address of one IP family ({@code v6}: IPv6, else IPv4). */
    public Request ofFamily(boolean v6) {
      return new Request(pool, ip, ipField, ipValue, share, v6);
    }

    /** A request through {@code spec.loadBalancerIP} (null: none), from any pool. */
    public static Request loadBalancerIp(String ip) {
      return new Request(null, ip, SPEC_FIELD, ip, null);
    }

    /** The requested address as messages name it. */
    String subject(String address) {
      return SPEC_FIELD.equals(ipField)
          ? SPEC_FIELD + " " + address
          : ipField + "=" + ipValue + ": address " + address;
    }

    ProviderException.InvalidInput invalid(String address, String why) {
      return new ProviderException.InvalidInput(ipField, ipValue, subject(address) + why);
    }
  }

  /**
   * Same as {@link #allocateFor(String, String, String, Request, String)} without a preferred
   * address or a namespace (only pools open to every namespace).
   */
  public String allocate(String key, String uid, String requestedIp) {
    return allocateFor(key, null, uid, Request.loadBalancerIp(requestedIp), null);
  }

  /** Same as {@link #allocateFor(String, String, String, Request, String)} without a namespace. */
  public String allocate(String key, String uid, String requestedIp, String preferredIp) {
    return allocateFor(key, null, uid, Request.loadBalancerIp(requestedIp), preferredIp);
  }

  /** Same as {@link #allocateFor(String, String, String, Request, String)} from any pool. */
  public String allocate(
      String key, String namespace, String uid, String requestedIp, String preferredIp) {
    return allocateFor(key, namespace, uid, Request.loadBalancerIp(requestedIp), preferredIp);
  }

  /**
   * Allocates (or keeps) the address of a Service and returns it, from the pools its namespace may
   * use (and only from the pool the request names, if any).
   *
   * <ol>
   *   <li>A requested address wins: the Service moves to it when it held another.
   *   <li>Otherwise the Service keeps the address it holds.
   *   <li>Otherwise it gets {@code preferredIp} (the address in its status, say) when that is in
   *       the pools and free.
   *   <li>Otherwise the lowest free address.
   * </ol>
   *
   * @param namespace the Service's namespace; null: only pools open to every namespace
   * @throws ProviderException.InvalidInput when the requested pool does not exist or the namespace
   *     may not use it, the requested address is no address, lies outside every pool, in a pool the
   *     namespace may not use or outside the requested pool, or no pool admits the namespace
   * @throws ProviderException.Retry when the requested address is held by another Service, or the
   *     pools the namespace may use are exhausted
   */
  public String allocateFor(
      String key, String namespace, String uid, Request request, String preferredIp) {
    String poolName = request.pool();
    if (poolName != null) {
      requirePool(poolName, namespace);
    }
    String group = group(namespace, request.share());
    Allocation current = byKey.get(key);
    if (current != null
        && (!fits(ranges.get(current.range), namespace, request)
            || (!Objects.equals(current.group, group) && sharedWithOthers(key, current)))) {
      // Outside what the Service may use now, or shared under a key the Service no longer has.
      release(key);
      current = null;
    }
    if (current != null) {
      regroup(key, current, group);
    }
    String requestedIp = request.ip();
    if (requestedIp != null && !requestedIp.isEmpty()) {
      Ip ip = Ip.parse(requestedIp.trim());
      if (ip == null) {
        throw request.invalid(requestedIp, " is not an IP address");
      }
      int r = usableRange(ip, namespace, request);
      long offset = ranges.get(r).offsetOf(ip);
      if (current != null && current.range == r && current.offset == offset) {
        current.uid = uid;
        return ip.toString();
      }
      if (ranges.get(r).slots.taken(offset)) {
        String holder = holderKey(r, offset);
        if (group != null && group.equals(byKey.get(holder).group)) {
          release(key);
          take(key, uid, r, offset, group);
          return ip.toString();
        }
        throw new ProviderException.Retry(
            request.subject(requestedIp)
                + " is allocated to Service "
                + serviceOf(holder)
                + "; waiting for it to be released");
      }
      release(key);
      take(key, uid, r, offset, group);
      return ip.toString();
    }
    if (current != null) {
      current.uid = uid;
      return ranges.get(current.range).format(current.offset);
    }
    if (group != null) {
      for (String member : groups.getOrDefault(group, Set.of())) {
        Allocation shared = byKey.get(member);
        if (fits(ranges.get(shared.range), namespace, request)) {
          take(key, uid, shared.range, shared.offset, group);
          return ranges.get(shared.range).format(shared.offset);
        }
      }
    }
    Ip preferred = preferredIp == null ? null : Ip.parse(preferredIp);
    if (preferred != null) {
      int r = rangeOf(preferred);
      if (r >= 0 && fits(ranges.get(r), namespace, request)) {
        long offset = ranges.get(r).offsetOf(preferred);
        if (!ranges.get(r).slots.taken(offset)) {
          take(key, uid, r, offset, group);
          return preferred.toString();
        }
      }
    }
    List<PoolSpec> allowed = new ArrayList<>();
    for (int r = 0; r < ranges.size(); r++) {
      Range range = ranges.get(r);
      if (!fits(range, namespace, request)) {
        continue;
      }
      if (!allowed.contains(range.pool)) {
        allowed.add(range.pool);
      }
      long offset = range.slots.lowestFree();
      if (offset != -1) {
        take(key, uid, r, offset, group);
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

  /**
   * Checks that {@code address} could be requested: an address in a pool the namespace may use, and
   * in the requested pool if any.
   *
   * @throws ProviderException.InvalidInput naming the request's field and value otherwise
   */
  public void checkRequestable(String address, String namespace, Request request) {
    if (request.pool() != null) {
      requirePool(request.pool(), namespace);
    }
    Ip ip = Ip.parse(address);
    if (ip == null) {
      throw request.invalid(address, " is not an IP address");
    }
    usableRange(ip, namespace, request);
  }

  /** The range of a requested address, or an invalid-input error saying why it cannot be had. */
  private int usableRange(Ip ip, String namespace, Request request) {
    String text = ip.toString();
    int r = rangeOf(ip);
    if (r < 0) {
      throw request.invalid(text, " is outside the address pools " + description);
    }
    PoolSpec owner = ranges.get(r).pool;
    if (!owner.admits(namespace)) {
      throw request.invalid(
          text,
          " is in address pool "
              + owner.label()
              + ", which namespace "
              + namespace
              + " may not use"
              + usable(namespace));
    }
    if (request.pool() != null && !request.pool().equals(owner.name())) {
      throw request.invalid(
          text,
          " is in address pool "
              + owner.label()
              + ", not in pool "
              + request.pool()
              + " chosen with "
              + LocalAnnotations.ADDRESS_POOL);
    }
    return r;
  }

  /** Throws unless a pool is named {@code name} and the namespace may use it. */
  private void requirePool(String name, String namespace) {
    String field = LocalAnnotations.field(LocalAnnotations.ADDRESS_POOL);
    List<String> names = new ArrayList<>();
    for (PoolSpec p : pools()) {
      if (p.name() != null) {
        names.add(p.name());
      }
      if (name.equals(p.name())) {
        if (!p.admits(namespace)) {
          throw new ProviderException.InvalidInput(
              field,
              name,
              field
                  + "="
                  + name
                  + ": namespace "
                  + namespace
                  + " may not use address pool "
                  + name
                  + usable(namespace));
        }
        return;
      }
    }
    throw new ProviderException.InvalidInput(
        field,
        name,
        field
            + "="
            + name
            + ": no address pool is named "
            + name
            + (names.isEmpty() ? "; no pool has a name" : "; the named pools are " + names));
  }

  private static boolean fits(Range range, String namespace, String poolName) {
    return range.pool.admits(namespace) && (poolName == null || poolName.equals(range.pool.name()));
  }

  private static boolean fits(Range range, String namespace, Request request) {
    return fits(range, namespace, request.pool())
        && (request.v6() == null || request.v6() == range.v6);
  }

  /**
   * Whether a pool the namespace may use (the named one, if {@code poolName} is not null) holds
   * addresses of the family ({@code v6}: IPv6, else IPv4).
   */
  public boolean hasFamily(String namespace, String poolName, boolean v6) {
    for (Range range : ranges) {
      if (range.v6 == v6 && fits(range, namespace, poolName)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The key under which a dual-stack Service holds the address of its second IP family. {@link
   * #keys()} and {@link #allocatedCount()} leave such keys out: they count Services.
   */
  public static String secondFamilyKey(String key) {
    return key + SECOND_FAMILY;
  }

  private static boolean isSecondFamilyKey(String key) {
    return key.endsWith(SECOND_FAMILY);
  }

  private static String serviceOf(String key) {
    return key != null && isSecondFamilyKey(key)
        ? key.substring(0, key.length() - SECOND_FAMILY.length())
        : key;
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

  /** Same as {@link #reserve(String, String, String, String, String)} without a namespace. */
  public void reserve(String key, String uid, String ip) {
    reserve(key, null, uid, ip, null);
  }

  /** Same as {@link #reserve(String, String, String, String, String)} without a sharing key. */
  public void reserve(String key, String namespace, String uid, String ip) {
    reserve(key, namespace, uid, ip, null);
  }

  /**
   * Records that the Service {@code key} holds {@code ip}, as found in its status after a restart.
   * A Service that held another address moves to this one.
   *
   * @param namespace the Service's namespace; null: only pools open to every namespace
   * @param share the Service's {@code pier.dev/allow-shared-ip} key, or null
   * @throws IllegalArgumentException when {@code ip} is no address, lies outside the pools or in a
   *     pool the namespace may not use
   * @throws IllegalStateException when another Service holds {@code ip} and does not share it
   */
  public void reserve(String key, String namespace, String uid, String ip, String share) {
    String group = group(namespace, share);
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
      regroup(key, current, group);
      return;
    }
    if (ranges.get(r).slots.taken(offset)) {
      String holder = holderKey(r, offset);
      if (group == null || !group.equals(byKey.get(holder).group)) {
        throw new IllegalStateException(ip + " is allocated to Service " + serviceOf(holder));
      }
    }
    release(key);
    take(key, uid, r, offset, group);
  }

  /**
   * Frees the address of the Service {@code key}, returning it; a shared address stays taken until
   * its last holder releases it.
   */
  public Optional<String> release(String key) {
    Allocation a = byKey.get(key);
    if (a == null) {
      return Optional.empty();
    }
    boolean shared = sharedWithOthers(key, a);
    byKey.remove(key);
    leaveGroup(key, a.group);
    Range range = ranges.get(a.range);
    if (!shared) {
      range.slots.clear(a.offset);
      range.inUse--;
    }
    return Optional.of(range.format(a.offset));
  }

  /** The keys of the Services holding an address, in no particular order. */
  public List<String> keys() {
    List<String> keys = new ArrayList<>(byKey.size());
    for (String key : byKey.keySet()) {
      if (!isSecondFamilyKey(key)) {
        keys.add(key);
      }
    }
    return keys;
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

  private void take(String key, String uid, int range, long offset, String group) {
    Range r = ranges.get(range);
    if (!r.slots.taken(offset)) {
      // A shared address is taken once, by its first holder.
      r.slots.set(offset);
      r.inUse++;
    }
    byKey.put(key, new Allocation(range, offset, uid, group));
    if (group != null) {
      groups.computeIfAbsent(group, g -> new LinkedHashSet<>()).add(key);
    }
  }

  private static String group(String namespace, String share) {
    return share == null ? null : namespace + "/" + share;
  }

  /** Whether another Service (only one of the same sharing group can) holds the same address. */
  private boolean sharedWithOthers(String key, Allocation a) {
    if (a.group == null) {
      return false;
    }
    for (String member : groups.getOrDefault(a.group, Set.of())) {
      Allocation other = byKey.get(member);
      if (!member.equals(key) && other.range == a.range && other.offset == a.offset) {
        return true;
      }
    }
    return false;
  }

  /** Moves a Service that holds its address alone, or keeps it, into {@code group}. */
  private void regroup(String key, Allocation a, String group) {
    if (!Objects.equals(a.group, group)) {
      leaveGroup(key, a.group);
      a.group = group;
      if (group != null) {
        groups.computeIfAbsent(group, g -> new LinkedHashSet<>()).add(key);
      }
    }
  }

  private void leaveGroup(String key, String group) {
    Set<String> members = group == null ? null : groups.get(group);
    if (members != null) {
      members.remove(key);
      if (members.isEmpty()) {
        groups.remove(group);
      }
    }
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

    /** The sharing group (namespace and {@code pier.dev/allow-shared-ip} key), or null. */
    String group;

    Allocation(int range, long offset, String uid, String group) {
      this.range = range;
      this.offset = offset;
      this.uid = uid;
      this.group = group;
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
