package dev.pier.cloud.local;

import dev.pier.cloud.ProviderException;
import dev.pier.cloud.local.AddressPool.Request;
import dev.pier.log.ServiceLog;
import dev.pier.model.LbIngress;
import dev.pier.model.LbService;
import dev.pier.util.Ip;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which pool addresses a Service holds, in its {@code ipFamilies} order: one, or one per IP family
 * when it asks for both ({@code spec.ipFamilyPolicy} {@code PreferDualStack} or {@code
 * RequireDualStack} with two {@code ipFamilies}, or an IPv4 and an IPv6 address in {@code
 * pier.dev/load-balancer-ips}) and the pools it may use hold both families. The first address is
 * held under the Service's key, the second under {@link AddressPool#secondFamilyKey}.
 *
 * <p>Not thread-safe, as the {@link AddressPool} it works on.
 */
final class AddressChoice {

  private static final String IPV4 = "IPv4";
  private static final String IPV6 = "IPv6";
  private static final String REQUIRE_DUAL_STACK = "RequireDualStack";
  private static final String IPS_FIELD =
      LocalAnnotations.field(LocalAnnotations.LOAD_BALANCER_IPS);

  private static final ServiceLog serviceLog = ServiceLog.of(AddressChoice.class);

  private final AddressPool pool;

  AddressChoice(AddressPool pool) {
    this.pool = pool;
  }

  /**
   * Allocates the Service's addresses from the pools. {@code RequireDualStack} without a pool of
   * one of the families is invalid input; {@code PreferDualStack} then serves the family it can,
   * and also when the second family's pools are exhausted.
   *
   * <p>The named pool of {@code pier.dev/address-pool} applies to both addresses; the addresses of
   * {@code pier.dev/load-balancer-ips} (at most one per family), else the deprecated {@code
   * spec.loadBalancerIP}, are requested.
   *
   * @throws ProviderException.InvalidInput naming the field and value that cannot be served
   * @throws ProviderException.Retry when a requested address is taken or the pools are exhausted
   */
  List<String> choose(LbService svc) {
    String ips = LocalAnnotations.value(svc, LocalAnnotations.LOAD_BALANCER_IPS);
    Map<String, String> requested = ips == null ? Map.of() : requestedByFamily(svc, ips);
    boolean dual = requested.size() == 2 || (svc.wantsDualStack() && svc.ipFamilies().size() == 2);
    return dual ? chooseBoth(svc, ips, requested) : chooseOne(svc, ips, requested);
  }

  /**
   * Keeps the pool addresses of the Service's status (at most one per IP family) after a restart.
   *
   * @return how many addresses were kept; those that cannot be are logged
   */
  int restore(LbService svc) {
    String key = svc.key().toString();
    List<String> ips = statusAddresses(svc);
    int restored = 0;
    for (int i = 0; i < ips.size(); i++) {
      String ip = ips.get(i);
      try {
        pool.reserve(
            i == 0 ? key : AddressPool.secondFamilyKey(key),
            svc.key().namespace(),
            svc.uid(),
            ip,
            LocalAnnotations.value(svc, LocalAnnotations.ALLOW_SHARED_IP));
        restored++;
      } catch (IllegalStateException | IllegalArgumentException e) {
        serviceLog.warn(
            svc.ref(), "cannot keep address {} from its status: {}", ip, e.getMessage());
      }
    }
    return restored;
  }

  private List<String> chooseOne(LbService svc, String ips, Map<String, String> requested) {
    String poolName = LocalAnnotations.value(svc, LocalAnnotations.ADDRESS_POOL);
    String share = LocalAnnotations.value(svc, LocalAnnotations.ALLOW_SHARED_IP);
    Request request;
    if (ips == null) {
      String legacy = svc.loadBalancerIp();
      request = new Request(poolName, legacy, Request.SPEC_FIELD, legacy, share);
    } else {
      List<String> families = svc.ipFamilies().isEmpty() ? familyOrder(svc) : svc.ipFamilies();
      String ip =
          families.stream().map(requested::get).filter(a -> a != null).findFirst().orElse(null);
      if (ip == null) {
        throw new ProviderException.InvalidInput(
            IPS_FIELD,
            ips,
            IPS_FIELD
                + "="
                + ips
                + ": no address of the Service's IP families "
                + svc.ipFamilies()
                + "; the local provider serves the address of each family the Service has");
      }
      request = new Request(poolName, ip, IPS_FIELD, ips, share);
    }
    String only =
        pool.allocateFor(
            svc.key().toString(),
            svc.key().namespace(),
            svc.uid(),
            request,
            statusAddress(svc, null));
    releaseSecondFamily(svc);
    return List.of(only);
  }

  private List<String> chooseBoth(LbService svc, String ips, Map<String, String> requested) {
    String poolName = LocalAnnotations.value(svc, LocalAnnotations.ADDRESS_POOL);
    String share = LocalAnnotations.value(svc, LocalAnnotations.ALLOW_SHARED_IP);
    String ipField = ips == null ? Request.SPEC_FIELD : IPS_FIELD;
    String ipValue = ips == null ? svc.loadBalancerIp() : ips;
    List<String> served = servedFamilies(svc, requested, poolName);
    List<String> allocated = new ArrayList<>(2);
    for (int i = 0; i < served.size(); i++) {
      String family = served.get(i);
      boolean v6 = family.equals(IPV6);
      String ip = requested.get(family);
      if (ip == null && ips == null && svc.loadBalancerIp() != null) {
        Ip legacy = Ip.parse(svc.loadBalancerIp());
        ip = legacy != null && legacy.v6() == v6 ? svc.loadBalancerIp() : null;
      }
      Request request = new Request(poolName, ip, ipField, ipValue, share).ofFamily(v6);
      allocateFamily(svc, i, request, served.get(0)).ifPresent(allocated::add);
    }
    if (allocated.size() == 1) {
      releaseSecondFamily(svc);
    }
    return List.copyOf(allocated);
  }

  /**
   * The families the Service gets an address of, in its order: those requested or held by a pool it
   * may use; the first family of its order when there is neither.
   *
   * @throws ProviderException.InvalidInput for {@code RequireDualStack} when one family is missing
   */
  private List<String> servedFamilies(
      LbService svc, Map<String, String> requested, String poolName) {
    String namespace = svc.key().namespace();
    List<String> order = familyOrder(svc);
    List<String> served = new ArrayList<>(2);
    for (String family : order) {
      if (requested.containsKey(family)
          || pool.hasFamily(namespace, poolName, family.equals(IPV6))) {
        served.add(family);
      }
    }
    if (served.size() < 2 && REQUIRE_DUAL_STACK.equals(svc.ipFamilyPolicy())) {
      List<String> missing = new ArrayList<>(order);
      missing.removeAll(served);
      throw new ProviderException.InvalidInput(
          "spec.ipFamilyPolicy",
          REQUIRE_DUAL_STACK,
          "spec.ipFamilyPolicy="
              + REQUIRE_DUAL_STACK
              + ": no address pool of "
              + String.join(" or ", missing)
              + (poolName == null ? "" : " named " + poolName)
              + " that namespace "
              + namespace
              + " may use; the address pools are "
              + pool.describe());
    }
    if (served.isEmpty()) {
      served.add(order.get(0));
    }
    return served;
  }

  /**
   * Allocates the address of the {@code index}th served family. Exhausted pools of the second
   * family leave a {@code PreferDualStack} Service without a requested address of it on the first
   * family only.
   */
  private Optional<String> allocateFamily(
      LbService svc, int index, Request request, String firstFamily) {
    String key = svc.key().toString();
    String held = index == 0 ? key : AddressPool.secondFamilyKey(key);
    try {
      return Optional.of(
          pool.allocateFor(
              held, svc.key().namespace(), svc.uid(), request, statusAddress(svc, request.v6())));
    } catch (ProviderException.Retry e) {
      if (index == 0 || REQUIRE_DUAL_STACK.equals(svc.ipFamilyPolicy()) || request.ip() != null) {
        throw e;
      }
      serviceLog.warn(svc.ref(), "serving {} only: {}", firstFamily, e.getMessage());
      return Optional.empty();
    }
  }

  /** The Service's IP families in its order, then those it does not list, IPv4 before IPv6. */
  private static List<String> familyOrder(LbService svc) {
    List<String> order = new ArrayList<>();
    for (String family : svc.ipFamilies()) {
      if (family.equals(IPV4) || family.equals(IPV6)) {
        order.add(family);
      }
    }
    for (String family : List.of(IPV4, IPV6)) {
      if (!order.contains(family)) {
        order.add(family);
      }
    }
    return order;
  }

  private void releaseSecondFamily(LbService svc) {
    pool.release(AddressPool.secondFamilyKey(svc.key().toString()))
        .ifPresent(ip -> serviceLog.info(svc.ref(), "released address {}", ip));
  }

  /**
   * The addresses of {@code pier.dev/load-balancer-ips} by IP family: at most one per family, each
   * one the Service could be given.
   */
  private Map<String, String> requestedByFamily(LbService svc, String ips) {
    String poolName = LocalAnnotations.value(svc, LocalAnnotations.ADDRESS_POOL);
    Request checking = new Request(poolName, null, IPS_FIELD, ips, null);
    Map<String, String> byFamily = new HashMap<>();
    for (String part : ips.split(",", -1)) {
      String text = part.trim();
      Ip ip = Ip.parse(text);
      if (ip == null) {
        throw checking.invalid(text, " is not an IP address");
      }
      String family = ip.v6() ? IPV6 : IPV4;
      if (byFamily.put(family, ip.toString()) != null) {
        throw new ProviderException.InvalidInput(
            IPS_FIELD,
            ips,
            IPS_FIELD
                + "="
                + ips
                + ": two "
                + family
                + " addresses; give at most one per IP family");
      }
      pool.checkRequestable(text, svc.key().namespace(), checking);
    }
    return byFamily;
  }

  /** The first address in the Service's status that lies in the pools, of a family or any. */
  private String statusAddress(LbService svc, Boolean v6) {
    for (LbIngress ingress : svc.status().ingress()) {
      Ip ip = ingress.ip() == null ? null : Ip.parse(ingress.ip());
      if (ip != null && (v6 == null || ip.v6() == v6) && pool.contains(ingress.ip())) {
        return ingress.ip();
      }
    }
    return null;
  }

  /** The pool addresses of the Service's status: at most one per IP family, in status order. */
  private List<String> statusAddresses(LbService svc) {
    List<String> ips = new ArrayList<>(2);
    Set<Boolean> families = new HashSet<>();
    for (LbIngress ingress : svc.status().ingress()) {
      Ip ip = ingress.ip() == null ? null : Ip.parse(ingress.ip());
      if (ip != null && pool.contains(ingress.ip()) && families.add(ip.v6())) {
        ips.add(ingress.ip());
      }
    }
    return ips;
  }
}
