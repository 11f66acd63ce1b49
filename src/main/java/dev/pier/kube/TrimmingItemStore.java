package dev.pier.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.Map;

/**
 * An informer cache that drops the fields Pier never reads before it stores an object: {@code
 * metadata.managedFields} (often the largest part of a small object), the {@code
 * last-applied-configuration} annotation, and a Node's image list. At 10,000 Services this is a
 * good part of Pier's heap. Handlers see the trimmed objects too, so comparisons stay consistent.
 */
public final class TrimmingItemStore<V extends HasMetadata> extends BasicItemStore<V> {
  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

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
      meta.setManagedFields(null);
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
