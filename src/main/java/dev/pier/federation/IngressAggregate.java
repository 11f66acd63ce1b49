package dev.pier.federation;

import dev.pier.federation.IngressAnnotation.ClusterIngresses;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The host Service's load-balancer status and ingress annotation, from its members' copies.
 *
 * <p>A ready member whose Service has load-balancer ingresses adds them to the status, and an
 * annotation entry that lists them when the Service has ready endpoints, or lists nothing when it
 * has none (DNS then points that member's zone and region up a level). A ready member without
 * ingresses adds nothing.
 *
 * <p>An unready member, under {@link FederationOptions.UnreadyClusters#KEEP} (the seed's
 * behaviour), keeps its previous annotation entry unchanged and its last known ingresses in the
 * status; under {@link FederationOptions.UnreadyClusters#DROP} it adds nothing to the status, and a
 * previous entry of it stays with no ingresses.
 */
public final class IngressAggregate {
  private IngressAggregate() {}

  /**
   * A member as its informer cache sees it.
   *
   * @param ready per the health thresholds
   * @param copy the {@code status.loadBalancer} of its copy of the host Service; null when it has
   *     no copy
   * @param hasReadyEndpoints whether that copy has at least one ready endpoint address
   */
  public record MemberStatus(
      String cluster, boolean ready, LoadBalancerStatus copy, boolean hasReadyEndpoints) {}

  /**
   * @param ingress the host Service's {@code status.loadBalancer.ingress}: sorted, no duplicates
   * @param annotation the {@code federation.kubernetes.io/service-ingresses} value
   */
  public record Result(List<LoadBalancerIngress> ingress, String annotation) {
    public Result {
      ingress = List.copyOf(ingress);
    }
  }

  public static Result compute(
      List<MemberStatus> members,
      String previousAnnotation,
      FederationOptions.UnreadyClusters unready) {
    Map<String, ClusterIngresses> previous = new LinkedHashMap<>();
    for (ClusterIngresses c : IngressAnnotation.parse(previousAnnotation)) {
      previous.putIfAbsent(c.cluster(), c);
    }
    List<LoadBalancerIngress> status = new ArrayList<>();
    Map<String, ClusterIngresses> entries = new LinkedHashMap<>();
    for (MemberStatus m : members) {
      List<LoadBalancerIngress> ingresses = ingresses(m.copy());
      if (m.ready()) {
        if (!ingresses.isEmpty()) {
          status.addAll(ingresses);
          entries.put(
              m.cluster(),
              new ClusterIngresses(m.cluster(), m.hasReadyEndpoints() ? ingresses : List.of()));
        }
      } else if (unready == FederationOptions.UnreadyClusters.KEEP) {
        status.addAll(ingresses);
        ClusterIngresses before = previous.get(m.cluster());
        if (before != null) {
          entries.put(m.cluster(), before);
        }
      } else if (previous.containsKey(m.cluster())) {
        entries.put(m.cluster(), new ClusterIngresses(m.cluster(), List.of()));
      }
    }
    Set<LoadBalancerIngress> union = new LinkedHashSet<>(sorted(status));
    return new Result(List.copyOf(union), IngressAnnotation.json(List.copyOf(entries.values())));
  }

  private static List<LoadBalancerIngress> ingresses(LoadBalancerStatus lb) {
    if (lb == null || lb.getIngress() == null) {
      return List.of();
    }
    return sorted(
        lb.getIngress().stream().map(i -> new LoadBalancerIngressBuilder(i).build()).toList());
  }

  private static List<LoadBalancerIngress> sorted(List<LoadBalancerIngress> in) {
    return in.stream().sorted(IngressAnnotation.BY_IP_THEN_HOSTNAME).toList();
  }
}
