package dev.pier.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A handler moved to an informer that listed again after its predecessor missed events. The new
 * informer announces every object it lists as an add; this turns those into what was missed: an
 * update from the object as the old cache held it (nothing when the version is the same), an add
 * for an object the old cache did not have. {@link #deletedWhileMissed} reports objects the old
 * cache held and the new list no longer has. Without it a relist would look like a cold start to
 * the handler, every Service new.
 */
final class RelistedHandler<T extends HasMetadata> implements ResourceEventHandler<T> {
  private final ResourceEventHandler<T> handler;
  // Drained as the new informer announces each object: only the first add of a key is a replay.
  private final Map<String, T> before;

  RelistedHandler(ResourceEventHandler<T> handler, Map<String, T> before) {
    this.handler = handler;
    this.before = new ConcurrentHashMap<>(before);
  }

  @Override
  public void onAdd(T obj) {
    T old = before.remove(Cache.metaNamespaceKeyFunc(obj));
    if (old == null) {
      handler.onAdd(obj);
    } else if (!Objects.equals(version(old), version(obj))) {
      handler.onUpdate(old, obj);
    }
  }

  @Override
  public void onUpdate(T oldObj, T newObj) {
    handler.onUpdate(oldObj, newObj);
  }

  @Override
  public void onDelete(T obj, boolean deletedFinalStateUnknown) {
    before.remove(Cache.metaNamespaceKeyFunc(obj));
    handler.onDelete(obj, deletedFinalStateUnknown);
  }

  /** Objects of the old cache that the new list does not have: deleted while events were missed. */
  void deletedWhileMissed(Map<String, T> listed) {
    before.forEach(
        (key, old) -> {
          if (!listed.containsKey(key) && before.remove(key) != null) {
            handler.onDelete(old, true);
          }
        });
  }

  private static String version(HasMetadata obj) {
    return obj.getMetadata() == null ? null : obj.getMetadata().getResourceVersion();
  }
}
