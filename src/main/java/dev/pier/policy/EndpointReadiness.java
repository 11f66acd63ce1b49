package dev.pier.policy;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a Service has endpoints that can take traffic, from its {@code discovery.k8s.io/v1}
 * EndpointSlices (the only endpoints API Pier reads: core Endpoints are deprecated since 1.33).
 */
public final class EndpointReadiness {
  /** The label that ties an EndpointSlice to its Service. */
  public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

  private EndpointReadiness() {}

  /**
   * True when some endpoint of some slice has an address and is ready; an unset ready condition
   * counts as ready, as the API defines it.
   */
  public static boolean ready(Collection<EndpointSlice> slices) {
    return slices.stream().anyMatch(EndpointReadiness::ready);
  }

  /** True when some endpoint of this slice has an address and is ready. */
  public static boolean ready(EndpointSlice slice) {
    if (slice == null || slice.getEndpoints() == null) {
      return false;
    }
    return slice.getEndpoints().stream().anyMatch(EndpointReadiness::ready);
  }

  private static boolean ready(Endpoint e) {
    boolean addressed = e.getAddresses() != null && !e.getAddresses().isEmpty();
    return addressed
        && (e.getConditions() == null || !Boolean.FALSE.equals(e.getConditions().getReady()));
  }

  /**
   * The {@code namespace/name} key of the Service a slice belongs to, as a one-element list for an
   * informer index; none for a slice without the service-name label.
   */
  public static List<String> serviceKey(EndpointSlice slice) {
    return serviceName(slice)
        .map(svc -> List.of(slice.getMetadata().getNamespace() + "/" + svc))
        .orElse(List.of());
  }

  /** The name of the Service a slice belongs to (in the slice's namespace), from its label. */
  public static Optional<String> serviceName(EndpointSlice slice) {
    Map<String, String> labels = slice.getMetadata().getLabels();
    return Optional.ofNullable(labels == null ? null : labels.get(SERVICE_NAME_LABEL));
  }
}
