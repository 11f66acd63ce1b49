package dev.pier.dns.publish;

import dev.pier.model.FederationKeys;
import dev.pier.policy.ServiceFilter;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Map;

/**
 * Which Services get DNS names, and through which path: a cluster's own Services through the
 * reconcile queue, federated ones through the federation's (keyed by the host Service).
 */
final class DnsEligibility {
  /** {@code "false"} keeps a Service out of DNS; {@code "true"} lets it in when opt-in is on. */
  static final String ANNOTATION = "pier.dev/dns";

  private final DnsOptions options;
  private final ServiceFilter filter;

  DnsEligibility(DnsOptions options, ServiceFilter filter) {
    this.options = options;
    this.filter = filter;
  }

  /**
   * True when a Service of {@code cluster} gets names of its own: the cluster publishes names, the
   * Service wants a load balancer there (a federated host Service is the federation's), it is not a
   * member's copy of a federated Service, and the annotation lets it.
   */
  boolean wantsDns(String cluster, Service svc) {
    if (svc == null
        || !publishes(cluster)
        || svc.getMetadata().getDeletionTimestamp() != null
        || isCopy(svc)
        || !filter.forCluster(cluster).wantsLoadBalancer(svc)) {
      return false;
    }
    return annotationAllows(svc);
  }

  /** Whether Services of this cluster that are not federated get names. */
  boolean publishes(String cluster) {
    return options.getPublishFrom().isEmpty() || options.getPublishFrom().equals(cluster);
  }

  /**
   * True when the cluster's own path has nothing to do for the Service: another cluster publishes
   * names, or the Service is a member's copy or the federation's.
   *
   * @param svc the cached Service, or null when it is gone
   */
  boolean notThisPath(String cluster, Service svc) {
    return !publishes(cluster)
        || (svc != null && (isCopy(svc) || servedByFederation(cluster, svc)));
  }

  /**
   * True when a federated host Service gets names: it is federated, not being deleted, a load
   * balancer, and the annotation lets it.
   *
   * @param svc the host Service, or null when it is gone
   */
  boolean wantsFederatedDns(Service svc, boolean federated) {
    return svc != null
        && federated
        && svc.getMetadata().getDeletionTimestamp() == null
        && ServiceFilter.isLoadBalancer(svc)
        && annotationAllows(svc);
  }

  private boolean annotationAllows(Service svc) {
    Map<String, String> a = svc.getMetadata().getAnnotations();
    String v = a == null ? null : a.get(ANNOTATION);
    return options.isOptIn() ? "true".equalsIgnoreCase(v) : !"false".equalsIgnoreCase(v);
  }

  /** A member's copy of a federated Service: it gets no names of its own. */
  private static boolean isCopy(Service svc) {
    Map<String, String> labels = svc.getMetadata().getLabels();
    return labels != null && labels.containsKey(FederationKeys.FEDERATION_LABEL);
  }

  /** A federated host Service, or one still carrying the federation's finalizer. */
  private boolean servedByFederation(String cluster, Service svc) {
    return !filter.forCluster(cluster).wantsLoadBalancer(svc)
            && ServiceFilter.isLoadBalancer(svc)
            && filter.ownsClass(svc)
        || (svc.getMetadata().getFinalizers() != null
            && svc.getMetadata().getFinalizers().contains(FederationKeys.FINALIZER));
  }
}
