package dev.pier.policy;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which Service changes need a reconcile, as upstream's {@code wantsLoadBalancer}, {@code
 * needsCleanup} and {@code needsUpdate} decide. Pure functions of the API objects.
 */
public final class ServiceFilter {
  /** Upstream's finalizer that guards a load balancer's cleanup. */
  public static final String LB_CLEANUP_FINALIZER = "service.kubernetes.io/load-balancer-cleanup";

  private final Set<String> ownedClasses;

  public ServiceFilter(Set<String> ownedClasses) {
    this.ownedClasses = Set.copyOf(ownedClasses);
  }

  /** Type LoadBalancer, and no class or a class Pier is configured to own. */
  public boolean wantsLoadBalancer(Service svc) {
    ServiceSpec spec = svc.getSpec();
    if (spec == null || !"LoadBalancer".equals(spec.getType())) {
      return false;
    }
    String cls = spec.getLoadBalancerClass();
    return cls == null || ownedClasses.contains(cls);
  }

  public static boolean hasFinalizer(Service svc) {
    List<String> f = svc.getMetadata().getFinalizers();
    return f != null && f.contains(LB_CLEANUP_FINALIZER);
  }

  /** Has Pier's finalizer and is being deleted or no longer wants a load balancer. */
  public boolean needsCleanup(Service svc) {
    return hasFinalizer(svc)
        && (svc.getMetadata().getDeletionTimestamp() != null || !wantsLoadBalancer(svc));
  }

  /** A new Service is worth a reconcile when it wants a load balancer or needs cleanup. */
  public boolean shouldEnqueueAdd(Service svc) {
    return wantsLoadBalancer(svc) || needsCleanup(svc);
  }

  public boolean shouldEnqueueUpdate(Service oldSvc, Service newSvc) {
    return needsUpdate(oldSvc, newSvc) || needsCleanup(newSvc);
  }

  /** Upstream's needsUpdate: true on any change that a load balancer depends on. */
  public boolean needsUpdate(Service oldSvc, Service newSvc) {
    boolean oldWants = wantsLoadBalancer(oldSvc);
    boolean newWants = wantsLoadBalancer(newSvc);
    if (!oldWants && !newWants) {
      return false;
    }
    if (oldWants != newWants) {
      return true;
    }
    ServiceSpec o = oldSvc.getSpec();
    ServiceSpec n = newSvc.getSpec();
    return !Objects.equals(o.getLoadBalancerSourceRanges(), n.getLoadBalancerSourceRanges())
        || portsDiffer(o.getPorts(), n.getPorts())
        || !Objects.equals(o.getSessionAffinity(), n.getSessionAffinity())
        || !Objects.equals(o.getSessionAffinityConfig(), n.getSessionAffinityConfig())
        || !Objects.equals(o.getLoadBalancerIP(), n.getLoadBalancerIP())
        || !Objects.equals(nullIfEmpty(o.getExternalIPs()), nullIfEmpty(n.getExternalIPs()))
        || !Objects.equals(
            nullIfEmpty(oldSvc.getMetadata().getAnnotations()),
            nullIfEmpty(newSvc.getMetadata().getAnnotations()))
        || !Objects.equals(oldSvc.getMetadata().getUid(), newSvc.getMetadata().getUid())
        || !Objects.equals(o.getExternalTrafficPolicy(), n.getExternalTrafficPolicy())
        || !Objects.equals(o.getHealthCheckNodePort(), n.getHealthCheckNodePort())
        || size(o.getIpFamilies()) != size(n.getIpFamilies())
        || !Objects.equals(o.getLoadBalancerClass(), n.getLoadBalancerClass());
  }

  private static boolean portsDiffer(List<ServicePort> a, List<ServicePort> b) {
    if (size(a) != size(b)) {
      return true;
    }
    for (int i = 0; i < size(a); i++) {
      ServicePort x = a.get(i);
      ServicePort y = b.get(i);
      if (!Objects.equals(x.getName(), y.getName())
          || !Objects.equals(x.getProtocol(), y.getProtocol())
          || !Objects.equals(x.getPort(), y.getPort())
          || !Objects.equals(x.getNodePort(), y.getNodePort())
          || !Objects.equals(x.getTargetPort(), y.getTargetPort())
          || !Objects.equals(x.getAppProtocol(), y.getAppProtocol())) {
        return true;
      }
    }
    return false;
  }

  private static int size(List<?> l) {
    return l == null ? 0 : l.size();
  }

  private static <T> T nullIfEmpty(T v) {
    if (v instanceof java.util.Collection<?> c && c.isEmpty()) {
      return null;
    }
    if (v instanceof java.util.Map<?, ?> m && m.isEmpty()) {
      return null;
    }
    return v;
  }
}
