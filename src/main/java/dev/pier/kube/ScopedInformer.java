package dev.pier.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One kind of object of a cluster, read by one informer over every namespace, or by one informer
 * per namespace where Pier may read only those (a Role per namespace: a list across namespaces is
 * forbidden there). Reads route by namespace; the whole is synced when every part is.
 *
 * <p>A namespace Pier cannot read (missing, or without a Role) does not hold up the others: with
 * {@code forbiddenIsFatal} false its start completes at its first failed list too, and {@link
 * #unreadable} tells why until a list succeeds.
 */
public final class ScopedInformer<T extends HasMetadata> {
  // Keyed by namespace; the one informer over every namespace under "".
  private final Map<String, SharedIndexInformer<T>> parts;
  private final Map<String, String> failures = new ConcurrentHashMap<>();

  private ScopedInformer(Map<String, SharedIndexInformer<T>> parts) {
    this.parts = parts;
  }

  /**
   * @param namespaces the namespaces to read, each by its own informer; empty: every namespace
   * @param create an informer of one namespace, or of every namespace for null
   */
  public static <T extends HasMetadata> ScopedInformer<T> of(
      Set<String> namespaces, Function<String, SharedIndexInformer<T>> create) {
    Map<String, SharedIndexInformer<T>> parts = new LinkedHashMap<>();
    if (namespaces.isEmpty()) {
      parts.put("", create.apply(null));
    } else {
      namespaces.stream().sorted().forEach(ns -> parts.put(ns, create.apply(ns)));
    }
    return new ScopedInformer<>(parts);
  }

  /** Whether it reads only some namespaces, each on its own. */
  private boolean namespaced() {
    return !parts.containsKey("");
  }

  private SharedIndexInformer<T> part(String namespace) {
    return namespaced() ? parts.get(namespace) : parts.get("");
  }

  public void addEventHandler(ResourceEventHandler<? super T> handler) {
    parts.values().forEach(i -> i.addEventHandler(handler));
  }

  public void addIndexers(Map<String, Function<T, List<String>>> indexers) {
    parts.values().forEach(i -> i.addIndexers(indexers));
  }

  /** The cached object, or null (also in a namespace it does not read). */
  public T get(String namespace, String name) {
    SharedIndexInformer<T> i = part(namespace);
    return i == null ? null : i.getStore().getByKey(namespace + "/" + name);
  }

  /** The objects under an index key, from the informer of {@code namespace}. */
  public List<T> byIndex(String namespace, String index, String key) {
    SharedIndexInformer<T> i = part(namespace);
    return i == null ? List.of() : i.getIndexer().byIndex(index, key);
  }

  public List<T> list() {
    if (parts.size() == 1) {
      return parts.values().iterator().next().getStore().list();
    }
    List<T> all = new ArrayList<>();
    parts.values().forEach(i -> all.addAll(i.getStore().list()));
    return all;
  }

  /** Every part has had its first list. */
  public boolean hasSynced() {
    return parts.values().stream().allMatch(SharedIndexInformer::hasSynced);
  }

  /**
   * The namespace's part has had its first list; a namespace it does not read has nothing to list.
   */
  public boolean hasSynced(String namespace) {
    SharedIndexInformer<T> i = part(namespace);
    return i == null || i.hasSynced();
  }

  /** Why the namespace could not be read so far (its last list's error), or null. */
  public String unreadable(String namespace) {
    SharedIndexInformer<T> i = part(namespace);
    return i == null || i.hasSynced() ? null : failures.get(namespaced() ? namespace : "");
  }

  public boolean isWatching() {
    return parts.values().stream().allMatch(SharedIndexInformer::isWatching);
  }

  /**
   * Runs every part without the start policy of {@link #start(String, String, String, boolean)}.
   */
  public CompletionStage<Void> start() {
    return CompletableFuture.allOf(
        parts.values().stream()
            .map(i -> i.start().toCompletableFuture())
            .toArray(CompletableFuture[]::new));
  }

  /**
   * Starts every part the way {@link Informers} does. Completes when each part has listed once, or,
   * when {@code forbiddenIsFatal} is false and it reads namespaces each on its own, failed its
   * first list: one namespace Pier cannot read does not hold up the others (its part goes on
   * retrying).
   */
  public CompletionStage<Void> start(
      String cluster, String what, String rbac, boolean forbiddenIsFatal) {
    List<CompletableFuture<Void>> started = new ArrayList<>();
    parts.forEach(
        (ns, i) -> {
          String label = ns.isEmpty() ? what : what + " in namespace " + ns;
          CompletableFuture<Void> first = new CompletableFuture<>();
          CompletionStage<Void> s =
              Informers.start(
                  i,
                  cluster,
                  label,
                  rbac,
                  forbiddenIsFatal,
                  t -> {
                    failures.put(ns, reason(t));
                    first.complete(null);
                  });
          s.whenComplete(
              (v, t) -> {
                if (t == null) {
                  failures.remove(ns);
                  first.complete(null);
                } else {
                  first.completeExceptionally(t);
                }
              });
          started.add(namespaced() && !forbiddenIsFatal ? first : s.toCompletableFuture());
        });
    return CompletableFuture.allOf(started.toArray(CompletableFuture[]::new));
  }

  /** The API server's own words where it gave some (e.g. what RBAC forbids), else the error. */
  private static String reason(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof KubernetesClientException k
          && k.getStatus() != null
          && k.getStatus().getMessage() != null) {
        return k.getStatus().getMessage();
      }
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  public void stop() {
    parts.values().forEach(SharedIndexInformer::stop);
  }
}
