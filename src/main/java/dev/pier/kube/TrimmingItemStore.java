package dev.pier.kube;

import dev.pier.model.FederationKeys;
import dev.pier.policy.ServiceFilter;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An informer cache that drops the fields Pier never reads before it stores an object: {@code
 * metadata.managedFields} (often the largest part of a small object), the {@code
 * last-applied-configuration} annotation, and a Node's image list. At 10,000 Services this is a
 * good part of Pier's heap. Handlers see the trimmed objects too, so comparisons stay consistent.
 *
 * <p>A federation copy (labelled {@link FederationKeys#FEDERATION_LABEL}) keeps the entries of
 * Pier's own field managers: they say which fields Pier owns there, what its server-side apply
 * decides on.
 *
 * <p>A Service Pier neither serves nor federates is kept as a stub: its name, namespace, uid,
 * resourceVersion, creation and deletion timestamps, {@code spec.type} and {@code
 * spec.loadBalancerClass}, and of its labels only Pier's ({@code pier.dev/}); nothing else. Anyone
 * who may create Services can give each one 256 KiB of annotations, and labels, finalizers,
 * selectors and ports without a size limit of their own: whole, 700 such Services exhausted the
 * shipped heap. A Service stays whole when it is of type LoadBalancer, federated (the {@code
 * pier.dev/federated} annotation, or a namespace federated as a whole), a federation copy ({@code
 * pier.dev/federation} label), or carries Pier's load-balancer cleanup or federation finalizer or a
 * load balancer's status (still to be cleaned up). A Service that changes into one of these arrives
 * whole in the watch event that changes it, so handlers see the change with the whole new object.
 * The stub is made in place: the store and the handlers see the same object.
 */
public final class TrimmingItemStore<V extends HasMetadata> extends BasicItemStore<V> {
  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
  private static final Set<String> PIERS_MANAGERS =
      Set.of(FederationKeys.COPY_FIELD_MANAGER, FederationKeys.LEGACY_FIELD_MANAGER);

  /** The prefix of the labels a stub keeps: Pier's own. */
  static final String PIER_PREFIX = "pier.dev/";

  private final Set<String> wholeNamespaces;

  public TrimmingItemStore() {
    this(Set.of());
  }

  /**
   * @param wholeNamespaces namespaces whose every Service is federated ({@code
   *     federation.namespaces}): their Services stay whole
   */
  public TrimmingItemStore(Set<String> wholeNamespaces) {
    super(Cache::metaNamespaceKeyFunc);
    this.wholeNamespaces = Set.copyOf(wholeNamespaces);
  }

  @Override
  public V put(String key, V obj) {
    return super.put(key, trim(obj, wholeNamespaces));
  }

  static <V extends HasMetadata> V trim(V obj) {
    return trim(obj, Set.of());
  }

  static <V extends HasMetadata> V trim(V obj, Set<String> wholeNamespaces) {
    if (obj instanceof Service svc && !keptWhole(svc, wholeNamespaces)) {
      stub(svc);
      return obj;
    }
    ObjectMeta meta = obj.getMetadata();
    if (meta != null) {
      List<ManagedFieldsEntry> piers = null;
      if (meta.getManagedFields() != null
          && meta.getLabels() != null
          && meta.getLabels().containsKey(FederationKeys.FEDERATION_LABEL)) {
        piers =
            meta.getManagedFields().stream()
                .filter(e -> PIERS_MANAGERS.contains(e.getManager()))
                .toList();
      }
      meta.setManagedFields(piers == null || piers.isEmpty() ? null : piers);
      Map<String, String> annotations = meta.getAnnotations();
      if (annotations != null && annotations.containsKey(LAST_APPLIED)) {
        annotations.remove(LAST_APPLIED);
      }
    }
    if (obj instanceof Node node && node.getStatus() != null) {
      node.getStatus().setImages(null);
    }
    return obj;
  }

  /** Whether Pier reads more of this Service than a stub holds. */
  static boolean keptWhole(Service svc, Set<String> wholeNamespaces) {
    ObjectMeta m = svc.getMetadata();
    if (m == null || ServiceFilter.isLoadBalancer(svc)) {
      return true;
    }
    if (m.getAnnotations() != null
        && m.getAnnotations().containsKey(FederationKeys.FEDERATED_ANNOTATION)) {
      return true;
    }
    if (m.getLabels() != null && m.getLabels().containsKey(FederationKeys.FEDERATION_LABEL)) {
      return true;
    }
    List<String> f = m.getFinalizers();
    if (f != null
        && (f.contains(ServiceFilter.LB_CLEANUP_FINALIZER)
            || f.contains(FederationKeys.FINALIZER))) {
      return true;
    }
    if (svc.getStatus() != null
        && svc.getStatus().getLoadBalancer() != null
        && svc.getStatus().getLoadBalancer().getIngress() != null
        && !svc.getStatus().getLoadBalancer().getIngress().isEmpty()) {
      // A load balancer's status: one that stopped being LoadBalancer without its finalizer
      // (stripped) still has a load balancer to delete and a status to clear.
      return true;
    }
    return m.getNamespace() != null && wholeNamespaces.contains(m.getNamespace());
  }

  /** Cuts the Service down, in place, to what decides that it is not Pier's. */
  private static void stub(Service svc) {
    ObjectMeta m = svc.getMetadata();
    ObjectMeta kept = new ObjectMeta();
    kept.setName(m.getName());
    kept.setNamespace(m.getNamespace());
    kept.setUid(m.getUid());
    kept.setResourceVersion(m.getResourceVersion());
    kept.setCreationTimestamp(m.getCreationTimestamp());
    kept.setDeletionTimestamp(m.getDeletionTimestamp());
    if (m.getLabels() != null) {
      Map<String, String> piers = new LinkedHashMap<>();
      m.getLabels()
          .forEach(
              (k, v) -> {
                if (k.startsWith(PIER_PREFIX)) {
                  piers.put(k, v);
                }
              });
      kept.setLabels(piers.isEmpty() ? null : piers);
    }
    ServiceSpec spec = new ServiceSpec();
    if (svc.getSpec() != null) {
      spec.setType(svc.getSpec().getType());
      spec.setLoadBalancerClass(svc.getSpec().getLoadBalancerClass());
    }
    svc.setMetadata(kept);
    svc.setSpec(spec);
    svc.setStatus(null);
    svc.getAdditionalProperties().clear();
  }
}
