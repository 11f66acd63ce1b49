package dev.pier.model;

import java.util.List;
import java.util.Map;

/**
 * The part of a LoadBalancer Service that load balancers are built from. Providers receive this
 * immutable view instead of the API object, so they cannot mutate the informer cache.
 *
 * @param uid the Service's metadata.uid, stable for the object's life
 * @param loadBalancerIp {@code spec.loadBalancerIP}, or null
 * @param externalTrafficPolicy {@code Cluster} or {@code Local}
 * @param healthCheckNodePort {@code spec.healthCheckNodePort}, 0 when unset
 * @param ipFamilies {@code spec.ipFamilies}, in the Service's order
 * @param status the Service's current {@code status.loadBalancer}
 * @param ipFamilyPolicy {@code spec.ipFamilyPolicy} ({@code SingleStack}, {@code PreferDualStack},
 *     {@code RequireDualStack}), or null
 */
public record LbService(
    ServiceKey key,
    String uid,
    List<LbPort> ports,
    String loadBalancerIp,
    String externalTrafficPolicy,
    int healthCheckNodePort,
    String sessionAffinity,
    List<String> sourceRanges,
    Map<String, String> annotations,
    List<String> ipFamilies,
    LbStatus status,
    String ipFamilyPolicy) {

  /** A Service without {@code spec.ipFamilyPolicy}. */
  public LbService(
      ServiceKey key,
      String uid,
      List<LbPort> ports,
      String loadBalancerIp,
      String externalTrafficPolicy,
      int healthCheckNodePort,
      String sessionAffinity,
      List<String> sourceRanges,
      Map<String, String> annotations,
      List<String> ipFamilies,
      LbStatus status) {
    this(
        key,
        uid,
        ports,
        loadBalancerIp,
        externalTrafficPolicy,
        healthCheckNodePort,
        sessionAffinity,
        sourceRanges,
        annotations,
        ipFamilies,
        status,
        null);
  }

  public LbService {
    ports = ports == null ? List.of() : List.copyOf(ports);
    sourceRanges = sourceRanges == null ? List.of() : List.copyOf(sourceRanges);
    annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    ipFamilies = ipFamilies == null ? List.of() : List.copyOf(ipFamilies);
    status = status == null ? LbStatus.EMPTY : status;
    externalTrafficPolicy = externalTrafficPolicy == null ? "Cluster" : externalTrafficPolicy;
  }

  /** Whether {@code spec.ipFamilyPolicy} asks for both IP families. */
  public boolean wantsDualStack() {
    return "PreferDualStack".equals(ipFamilyPolicy) || "RequireDualStack".equals(ipFamilyPolicy);
  }

  /** The Service as log lines and Events name it. */
  public ServiceRef ref() {
    return ServiceRef.of(key, uid);
  }

  /**
   * Upstream's {@code cloudprovider.DefaultLoadBalancerName}: {@code "a"} plus the uid without
   * dashes, at most 32 characters. Cloud controllers (hcloud-cloud-controller-manager among them)
   * name load balancers this way, which is what lets Pier adopt theirs.
   */
  public String defaultLoadBalancerName() {
    String name = "a" + (uid == null ? "" : uid.replace("-", ""));
    return name.length() > 32 ? name.substring(0, 32) : name;
  }

  /**
   * True when the load balancer must health-check {@code /healthz} on the health check node port.
   */
  public boolean needsHealthCheck() {
    return "Local".equals(externalTrafficPolicy) && healthCheckNodePort > 0;
  }
}
