package dev.pier.kube;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
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
 */
public final class TrimmingItemStore<V extends HasMetadata> extends BasicItemStore<V> {
  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
  private static final Set<String> PIERS_MANAGERS =
      Set.of(FederationKeys.COPY_FIELD_MANAGER, FederationKeys.LEGACY_FIELD_MANAGER);

  public TrimmingItemStore() {
    super(Cache::metaNamespaceKeyFunc);
  }

  @Override
  public V put(String key, V obj) {
    return super.put(key, trim(obj));
  }

  static <V extends HasMetadata> V trim(V obj) {
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
}
