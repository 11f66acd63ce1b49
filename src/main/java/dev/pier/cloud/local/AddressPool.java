package dev.pier.cloud.local;

import dev.pier.cloud.AddressPoolUsage;
import dev.pier.cloud.ProviderException;
import dev.pier.cloud.local.AddressSlots.Holding;
import dev.pier.util.Ip;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
 * The pools are parsed by {@link PoolRanges}; who holds which address is kept by {@link
 * AddressSlots}.
 *
 * <p>Not thread-safe: the provider confines it to one context.
 */
public final class AddressPool {

  /** Suffix of the key of a dual-stack Service's second address; no Service key contains it. */
  private static final String SECOND_FAMILY = "#second-family";

  private final PoolRanges ranges;
  private final AddressSlots slots;

  /**
   * Builds a pool from CIDR and range strings, each open to every namespace.
   *
   * @throws IllegalArgumentException naming the bad value, when a pool is malformed, empty, or
   *     overlaps another
   */
  public AddressPool(List<String> pools) {
    this(PoolRanges.parse(specs(pools)));
  }

  private AddressPool(PoolRanges ranges) {
    this.ranges = ranges;
    this.slots = new AddressSlots(ranges.all());
  }

  /**
   * Builds a pool from configured pools, each with its addresses and the namespaces that may use
   * it.
   *
   * @throws IllegalArgumentException naming the bad value, when a pool is malformed, empty, or
   *     overlaps another, or two pools have the same name
   */
  public static AddressPool of(List<PoolSpec> pools) {
    return new AddressPool(PoolRanges.parse(pools));
  }

  /**
   * Checks pool strings as configuration is read.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public static void validate(List<String> pools) {
    PoolRanges.parse(specs(pools));
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

  /** The pools as configured, for messages: {@code [127.240.0.0/16]}. */
  public String describe() {
    return ranges.description();
  }

  /** Whether {@code ip} is a literal address inside one of the pools. */
  public boolean contains(String ip) {
    Ip parsed = Ip.parse(ip);
    return parsed != null && ranges.indexOf(parsed) >= 0;
  }

  /** The address allocated to the Service {@code key}. */
  public Optional<String> lookup(String key) {
    Holding h = slots.get(key);
    return h == null ? Optional.empty() : Optional.of(format(h));
  }

  /** The key of the Service holding {@code ip}. */
  public Optional<String> holder(String ip) {
    Ip parsed = Ip.parse(ip);
    if (parsed == null) {
      return Optional.empty();
    }
    int r = ranges.indexOf(parsed);
    if (r < 0) {
      return Optional.empty();
    }
    long offset = ranges.get(r).offsetOf(parsed);
    return slots.taken(r, offset)
        ? Optional.ofNullable(serviceOf(slots.holderKey(r, offset)))
        : Optional.empty();
  }

  /**
   * Every pool's size and the addresses taken from it, in the order configured; safe to call from
   * any thread.
   */
  public List<AddressPoolUsage> usage() {
    Map<String, double[]> byPool = new LinkedHashMap<>();
    List<PoolRange> all = ranges.all();
    for (int i = 0; i < all.size(); i++) {
      double[] u = byPool.computeIfAbsent(all.get(i).pool().label(), k -> new double[2]);
      u[0] += all.get(i).count().doubleValue();
      u[1] += slots.inUse(i);
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
    if (request.pool() != null) {
      requirePool(request.pool(), namespace);
    }
    String group = group(namespace, request.share());
    Holding current = keepIfUsable(key, namespace, request, group);
    String requestedIp = request.ip();
    if (requestedIp != null && !requestedIp.isEmpty()) {
      return takeRequested(key, namespace, uid, request, group, current);
    }
    if (current != null) {
      slots.setUid(key, uid);
      return format(current);
    }
    Optional<String> joined = joinGroup(key, namespace, uid, request, group);
    if (joined.isPresent()) {
      return joined.get();
    }
    Optional<String> preferred = takePreferred(key, namespace, uid, request, group, preferredIp);
    return preferred.orElseGet(() -> takeLowestFree(key, namespace, uid, request, group));
  }

  /**
   * The Service's holding, moved into {@code group}; null, its address released, when the address
   * lies outside what the Service may use now or is shared under a key the Service no longer has.
   */
  private Holding keepIfUsable(String key, String namespace, Request request, String group) {
    Holding current = slots.get(key);
    if (current == null) {
      return null;
    }
    if (!fits(ranges.get(current.range()), namespace, request)
        || (!Objects.equals(current.group(), group) && slots.sharedWithOthers(key))) {
      release(key);
      return null;
    }
    slots.regroup(key, group);
    return current;
  }

  /** Moves the Service to its requested address, or says why it cannot have it. */
  private String takeRequested(
      String key, String namespace, String uid, Request request, String group, Holding current) {
    String requestedIp = request.ip();
    Ip ip = Ip.parse(requestedIp.trim());
    if (ip == null) {
      throw request.invalid(requestedIp, " is not an IP address");
    }
    int r = usableRange(ip, namespace, request);
    long offset = ranges.get(r).offsetOf(ip);
    if (current != null && current.at(r, offset)) {
      slots.setUid(key, uid);
      return ip.toString();
    }
    if (slots.taken(r, offset)) {
      String holder = slots.holderKey(r, offset);
      if (group == null || !group.equals(slots.get(holder).group())) {
        throw new ProviderException.Retry(
            request.subject(requestedIp)
                + " is allocated to Service "
                + serviceOf(holder)
                + "; waiting for it to be released");
      }
    }
    release(key);
    slots.take(key, uid, r, offset, group);
    return ip.toString();
  }

  /** Joins the address a member of the Service's sharing group holds, if one fits the request. */
  private Optional<String> joinGroup(
      String key, String namespace, String uid, Request request, String group) {
    if (group == null) {
      return Optional.empty();
    }
    for (String member : slots.members(group)) {
      Holding shared = slots.get(member);
      if (fits(ranges.get(shared.range()), namespace, request)) {
        slots.take(key, uid, shared.range(), shared.offset(), group);
        return Optional.of(format(shared));
      }
    }
    return Optional.empty();
  }

  /** Takes {@code preferredIp} when it is a free address the request may have. */
  private Optional<String> takePreferred(
      String key, String namespace, String uid, Request request, String group, String preferredIp) {
    Ip preferred = preferredIp == null ? null : Ip.parse(preferredIp);
    if (preferred == null) {
      return Optional.empty();
    }
    int r = ranges.indexOf(preferred);
    if (r < 0 || !fits(ranges.get(r), namespace, request)) {
      return Optional.empty();
    }
    long offset = ranges.get(r).offsetOf(preferred);
    if (slots.taken(r, offset)) {
      return Optional.empty();
    }
    slots.take(key, uid, r, offset, group);
    return Optional.of(preferred.toString());
  }

  /** Takes the lowest free address of the first range that fits the request and has one. */
  private String takeLowestFree(
      String key, String namespace, String uid, Request request, String group) {
    List<PoolSpec> allowed = new ArrayList<>();
    List<PoolRange> all = ranges.all();
    for (int r = 0; r < all.size(); r++) {
      PoolRange range = all.get(r);
      if (!fits(range, namespace, request)) {
        continue;
      }
      if (!allowed.contains(range.pool())) {
        allowed.add(range.pool());
      }
      long offset = slots.lowestFree(r);
      if (offset != -1) {
        slots.take(key, uid, r, offset, group);
        return range.format(offset);
      }
    }
    throw exhausted(namespace, allowed);
  }

  private RuntimeException exhausted(String namespace, List<PoolSpec> allowed) {
    if (allowed.isEmpty()) {
      return new ProviderException.InvalidInput(
          "metadata.namespace",
          namespace,
          "no address pool may be used by namespace "
              + namespace
              + "; the address pools are "
              + ranges.description());
    }
    boolean restricted = allowed.size() < ranges.pools().size();
    return new ProviderException.Retry(
        "address pools "
            + PoolRanges.describe(allowed)
            + (restricted ? " that namespace " + namespace + " may use" : "")
            + " are exhausted ("
            + slots.size()
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
    int r = ranges.indexOf(ip);
    if (r < 0) {
      throw request.invalid(text, " is outside the address pools " + ranges.description());
    }
    PoolSpec owner = ranges.get(r).pool();
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
    for (PoolSpec p : ranges.pools()) {
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

  private static boolean fits(PoolRange range, String namespace, Request request) {
    return range.admits(namespace, request.pool())
        && (request.v6() == null || request.v6() == range.v6());
  }

  /**
   * Whether a pool the namespace may use (the named one, if {@code poolName} is not null) holds
   * addresses of the family ({@code v6}: IPv6, else IPv4).
   */
  public boolean hasFamily(String namespace, String poolName, boolean v6) {
    return ranges.hasFamily(namespace, poolName, v6);
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

  /** The pools a namespace may use, for messages: {@code ; its pools are [...]}. */
  private String usable(String namespace) {
    List<PoolSpec> allowed = new ArrayList<>();
    for (PoolSpec p : ranges.pools()) {
      if (p.admits(namespace)) {
        allowed.add(p);
      }
    }
    return allowed.isEmpty()
        ? "; no address pool admits it"
        : "; the pools it may use are " + PoolRanges.describe(allowed);
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
    int r = parsed == null ? -1 : ranges.indexOf(parsed);
    if (r < 0) {
      throw new IllegalArgumentException(
          ip + " is outside the address pools " + ranges.description());
    }
    PoolSpec owner = ranges.get(r).pool();
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
    Holding current = slots.get(key);
    if (current != null && current.at(r, offset)) {
      slots.setUid(key, uid);
      slots.regroup(key, group);
      return;
    }
    if (slots.taken(r, offset)) {
      String holder = slots.holderKey(r, offset);
      if (group == null || !group.equals(slots.get(holder).group())) {
        throw new IllegalStateException(ip + " is allocated to Service " + serviceOf(holder));
      }
    }
    release(key);
    slots.take(key, uid, r, offset, group);
  }

  /**
   * Frees the address of the Service {@code key}, returning it; a shared address stays taken until
   * its last holder releases it.
   */
  public Optional<String> release(String key) {
    return slots.release(key).map(this::format);
  }

  /** The keys of the Services holding an address, in no particular order. */
  public List<String> keys() {
    List<String> keys = new ArrayList<>(slots.size());
    for (String key : slots.keys()) {
      if (!isSecondFamilyKey(key)) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** The uid recorded with the Service's allocation. */
  public Optional<String> uid(String key) {
    Holding h = slots.get(key);
    return h == null ? Optional.empty() : Optional.ofNullable(h.uid());
  }

  @Override
  public String toString() {
    return "AddressPool" + ranges.description() + " with " + slots.size() + " allocated";
  }

  private String format(Holding h) {
    return ranges.get(h.range()).format(h.offset());
  }

  private static String group(String namespace, String share) {
    return share == null ? null : namespace + "/" + share;
  }
}
