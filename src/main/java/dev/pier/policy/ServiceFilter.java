package dev.pier.policy;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which Service changes need a reconcile, as upstream's {@code wantsLoadBalancer}, {@code
 * needsCleanup} and {@code needsUpdate} decide. Pure functions of the API objects.
 */
public final class ServiceFilter {
  /** Upstream's finalizer that guards a load balancer's cleanup. */
  public static final String LB_CLEANUP_FINALIZER = "service.kubernetes.io/load-balancer-cleanup";

  private final Set<String> ownedClasses;
  private final boolean servesServicesWithoutClass;
  // Services the federation serves in this cluster (its host's federated Services): never a load
  // balancer of their own. Null in the shared filter and in clusters that host no federation.
  private final Predicate<Service> federated;
  private final Map<String, ServiceFilter> byCluster;

  public ServiceFilter(Set<String> ownedClasses) {
    this(ownedClasses, true);
  }

  /**
   * @param servesServicesWithoutClass false where another controller is the cluster's default and
   *     serves Services without {@code spec.loadBalancerClass}
   */
  public ServiceFilter(Set<String> ownedClasses, boolean servesServicesWithoutClass) {
    this(ownedClasses, servesServicesWithoutClass, null, Map.of());
  }

  private ServiceFilter(
      Set<String> ownedClasses,
      boolean servesServicesWithoutClass,
      Predicate<Service> federated,
      Map<String, ServiceFilter> byCluster) {
    this.ownedClasses = Set.copyOf(ownedClasses);
    this.servesServicesWithoutClass = servesServicesWithoutClass;
    this.federated = federated;
    this.byCluster = Map.copyOf(byCluster);
  }

  /**
   * This filter, where in cluster {@code hostCluster} the Services {@code federated} accepts are
   * the federation's: their status is the members' aggregate, so they get no load balancer there.
   */
  public ServiceFilter withFederationHost(String hostCluster, Predicate<Service> federated) {
    Map<String, ServiceFilter> clusters = new HashMap<>(byCluster);
    clusters.put(
        hostCluster,
        new ServiceFilter(ownedClasses, servesServicesWithoutClass, federated, Map.of()));
    return new ServiceFilter(ownedClasses, servesServicesWithoutClass, null, clusters);
  }

  /** The filter for Services of {@code cluster}. */
  public ServiceFilter forCluster(String cluster) {
    return byCluster.getOrDefault(cluster, this);
  }

  /**
   * Type LoadBalancer, a class Pier owns (or none, when Pier serves those), and not a federated
   * Service of the federation's host.
   */
  public boolean wantsLoadBalancer(Service svc) {
    return isLoadBalancer(svc) && ownsClass(svc) && !federated(svc);
  }

  private boolean federated(Service svc) {
    return federated != null && federated.test(svc);
  }

  public static boolean isLoadBalancer(Service svc) {
    ServiceSpec spec = svc.getSpec();
    return spec != null && "LoadBalancer".equals(spec.getType());
  }

  /** The Service's {@code spec.loadBalancerClass} is one Pier owns. */
  public boolean ownsClass(Service svc) {
    String cls = svc.getSpec() == null ? null : svc.getSpec().getLoadBalancerClass();
    return cls == null ? servesServicesWithoutClass : ownedClasses.contains(cls);
  }

  /**
   * Type LoadBalancer with the cleanup finalizer, but of a class Pier does not own (any more): a
   * class dropped from the configuration, or another controller's Service that uses the standard
   * finalizer. Pier never deletes, rewrites or releases such a Service's load balancer.
   */
  public boolean classNotOwned(Service svc) {
    return isLoadBalancer(svc) && hasFinalizer(svc) && !ownsClass(svc);
  }

  public static boolean hasFinalizer(Service svc) {
    List<String> f = svc.getMetadata().getFinalizers();
    return f != null && f.contains(LB_CLEANUP_FINALIZER);
  }

  /**
   * Has the finalizer, and stopped being type LoadBalancer, or is being deleted and of a class Pier
   * owns, or was federated by its user (the members' load balancers serve it now). A class alone
   * never makes Pier delete: only a deletion, a type change or federating does.
   */
  public boolean needsCleanup(Service svc) {
    if (!hasFinalizer(svc)) {
      return false;
    }
    if (!isLoadBalancer(svc)) {
      return true;
    }
    return (svc.getMetadata().getDeletionTimestamp() != null || federated(svc)) && ownsClass(svc);
  }

  /** A new Service is worth a reconcile when Pier serves it, cleans it up or must report it. */
  public boolean shouldEnqueueAdd(Service svc) {
    return wantsLoadBalancer(svc) || needsCleanup(svc) || classNotOwned(svc);
  }

  public boolean shouldEnqueueUpdate(Service oldSvc, Service newSvc) {
    return needsUpdate(oldSvc, newSvc)
        || needsCleanup(newSvc)
        || (classNotOwned(newSvc) && !classNotOwned(oldSvc));
  }

  /**
   * The update is worth a reconcile only because the annotations changed: nothing of the spec a
   * load balancer depends on did, and nothing that starts or stops serving it. Such runs are
   * rate-limited; a tool that stamps an annotation every second must not drive the provider.
   */
  public boolean onlyAnnotationsChanged(Service oldSvc, Service newSvc) {
    return shouldEnqueueUpdate(oldSvc, newSvc)
        && !specNeedsUpdate(oldSvc, newSvc)
        && !needsCleanup(newSvc)
        && !(classNotOwned(newSvc) && !classNotOwned(oldSvc));
  }

  /** Upstream's needsUpdate: true on any change that a load balancer depends on. */
  public boolean needsUpdate(Service oldSvc, Service newSvc) {
    return specNeedsUpdate(oldSvc, newSvc)
        || (wantsLoadBalancer(oldSvc)
            && wantsLoadBalancer(newSvc)
            && !Objects.equals(
                nullIfEmpty(oldSvc.getMetadata().getAnnotations()),
                nullIfEmpty(newSvc.getMetadata().getAnnotations())));
  }

  /** {@link #needsUpdate} but for the annotations: a change of what the Service asks for. */
  private boolean specNeedsUpdate(Service oldSvc, Service newSvc) {
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
    if (v instanceof Collection<?> c && c.isEmpty()) {
      return null;
    }
    if (v instanceof Map<?, ?> m && m.isEmpty()) {
      return null;
    }
    return v;
  }
}
