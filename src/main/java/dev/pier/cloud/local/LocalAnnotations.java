package dev.pier.cloud.local;

import dev.pier.model.LbService;

/** The Service annotations the {@code local} provider reads. */
final class LocalAnnotations {

  /** The named pool (of {@code local.pools}) the Service's address comes from. */
  static final String ADDRESS_POOL = "pier.dev/address-pool";

  /** Requested addresses, one per IP family (MetalLB's {@code metallb.io/loadBalancerIPs}). */
  static final String LOAD_BALANCER_IPS = "pier.dev/load-balancer-ips";

  /** A key: Services of one namespace with the same key share one address. */
  static final String ALLOW_SHARED_IP = "pier.dev/allow-shared-ip";

  private LocalAnnotations() {}

  /** The field an invalid-input error names: {@code metadata.annotations[pier.dev/...]}. */
  static String field(String annotation) {
    return "metadata.annotations[" + annotation + "]";
  }

  /** The Service's trimmed annotation value, null when absent or blank. */
  static String value(LbService svc, String annotation) {
    String value = svc.annotations().get(annotation);
    return value == null || value.isBlank() ? null : value.trim();
  }
}
