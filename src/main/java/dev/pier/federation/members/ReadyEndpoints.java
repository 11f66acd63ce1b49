package dev.pier.federation.members;

import dev.pier.kube.Cluster;
import dev.pier.kube.KubeApiException;
import dev.pier.kube.RbacFiles;
import dev.pier.kube.ScopedInformer;
import dev.pier.policy.EndpointReadiness;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Which Services of a member have ready endpoints, from {@code discovery.k8s.io/v1} EndpointSlices,
 * else {@code v1beta1} (what 1.20 serves), else core Endpoints. Nothing is known (every answer is
 * false) until the informer of the API the member serves has started.
 */
final class ReadyEndpoints {
  static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
  private static final String BY_SERVICE = "service";

  /** The API the member's endpoints are read from. */
  enum Api {
    SLICES_V1,
    SLICES_V1BETA1,
    ENDPOINTS
  }

  private volatile ScopedInformer<HasMetadata> informer;
  private volatile Predicate<List<HasMetadata>> anyReady;

  boolean ready(String namespace, String name) {
    ScopedInformer<HasMetadata> i = informer;
    if (i == null) {
      return false;
    }
    return anyReady.test(i.byIndex(namespace, BY_SERVICE, namespace + "/" + name));
  }

  /**
   * Finds the API the member serves and starts its informer (once); {@code changed} is told the
   * namespace and name of every Service whose endpoints changed. Completes when the first list
   * arrived.
   */
  synchronized Future<Void> start(
      Cluster cluster, Context ctx, BiConsumer<String, String> changed) {
    if (informer != null) {
      return Future.succeededFuture();
    }
    return discover(cluster, ctx)
        .compose(
            found -> {
              synchronized (this) {
                if (informer != null) {
                  return Future.succeededFuture();
                }
                ScopedInformer<HasMetadata> i =
                    ScopedInformer.of(cluster.scope(), ns -> informer(cluster, found, ns));
                Function<HasMetadata, List<String>> keys = serviceKeys(found);
                i.addIndexers(Map.of(BY_SERVICE, keys::apply));
                i.addEventHandler(new Handler(keys, changed));
                this.anyReady = readiness(found);
                this.informer = i;
                return Future.fromCompletionStage(
                    i.start(
                        cluster.name(),
                        "endpoints (" + found + ")",
                        cluster.scope().isEmpty()
                            ? RbacFiles.FEDERATION_MEMBER
                            : RbacFiles.FEDERATION_MEMBER_NAMESPACED,
                        cluster.forbiddenIsFatal()),
                    ctx);
              }
            });
  }

  synchronized void stop() {
    if (informer != null) {
      informer.stop();
    }
  }

  private static Future<Api> discover(Cluster cluster, Context ctx) {
    return served(cluster, ctx, "/apis/discovery.k8s.io/v1")
        .compose(
            v1 ->
                v1
                    ? Future.succeededFuture(Api.SLICES_V1)
                    : served(cluster, ctx, "/apis/discovery.k8s.io/v1beta1")
                        .map(beta -> beta ? Api.SLICES_V1BETA1 : Api.ENDPOINTS));
  }

  private static Future<Boolean> served(Cluster cluster, Context ctx, String path) {
    return cluster
        .api()
        .get(ctx, path)
        .map(true)
        .recover(
            e ->
                e instanceof KubeApiException k && k.isNotFound()
                    ? Future.succeededFuture(false)
                    : Future.failedFuture(e));
  }

  /** The informer of {@code api} in namespace {@code ns}, or in every namespace for null. */
  @SuppressWarnings("unchecked")
  private static SharedIndexInformer<HasMetadata> informer(Cluster cluster, Api api, String ns) {
    var client = cluster.client();
    SharedIndexInformer<?> informer =
        switch (api) {
          case SLICES_V1 -> {
            var slices = client.discovery().v1().endpointSlices();
            yield (ns == null ? slices.inAnyNamespace() : slices.inNamespace(ns))
                .runnableInformer(0);
          }
          case SLICES_V1BETA1 -> {
            var slices = client.discovery().v1beta1().endpointSlices();
            yield (ns == null ? slices.inAnyNamespace() : slices.inNamespace(ns))
                .runnableInformer(0);
          }
          case ENDPOINTS ->
              (ns == null
                      ? client.endpoints().inAnyNamespace()
                      : client.endpoints().inNamespace(ns))
                  .runnableInformer(0);
        };
    return (SharedIndexInformer<HasMetadata>) informer;
  }

  /** The namespace/name of the Service an object belongs to (none for an unlabelled slice). */
  private static Function<HasMetadata, List<String>> serviceKeys(Api api) {
    return o -> {
      String ns = o.getMetadata().getNamespace();
      if (api == Api.ENDPOINTS) {
        return List.of(ns + "/" + o.getMetadata().getName());
      }
      Map<String, String> labels = o.getMetadata().getLabels();
      String svc = labels == null ? null : labels.get(SERVICE_NAME_LABEL);
      return svc == null ? List.of() : List.of(ns + "/" + svc);
    };
  }

  private static Predicate<List<HasMetadata>> readiness(Api api) {
    return switch (api) {
      case SLICES_V1 ->
          objects ->
              anyReady(
                  objects,
                  io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice::getEndpoints,
                  e -> e.getAddresses(),
                  e -> e.getConditions() == null ? null : e.getConditions().getReady());
      case SLICES_V1BETA1 ->
          objects ->
              anyReady(
                  objects,
                  io.fabric8.kubernetes.api.model.discovery.v1beta1.EndpointSlice::getEndpoints,
                  e -> e.getAddresses(),
                  e -> e.getConditions() == null ? null : e.getConditions().getReady());
      case ENDPOINTS ->
          objects -> objects.stream().anyMatch(o -> EndpointReadiness.ready((Endpoints) o));
    };
  }

  /**
   * Some endpoint of some slice has an address and is ready; an unset ready condition counts as
   * ready, as the API defines it.
   */
  @SuppressWarnings("unchecked")
  private static <S, E> boolean anyReady(
      List<HasMetadata> slices,
      Function<S, List<E>> endpoints,
      Function<E, List<String>> addresses,
      Function<E, Boolean> ready) {
    return slices.stream()
        .map(o -> endpoints.apply((S) o))
        .flatMap(l -> l == null ? Stream.empty() : l.stream())
        .anyMatch(
            e -> {
              List<String> a = addresses.apply(e);
              return a != null && !a.isEmpty() && !Boolean.FALSE.equals(ready.apply(e));
            });
  }

  private static final class Handler implements ResourceEventHandler<HasMetadata> {
    private final Function<HasMetadata, List<String>> keys;
    private final BiConsumer<String, String> changed;

    Handler(Function<HasMetadata, List<String>> keys, BiConsumer<String, String> changed) {
      this.keys = keys;
      this.changed = changed;
    }

    private void tell(HasMetadata o) {
      for (String k : keys.apply(o)) {
        int slash = k.indexOf('/');
        changed.accept(k.substring(0, slash), k.substring(slash + 1));
      }
    }

    @Override
    public void onAdd(HasMetadata o) {
      tell(o);
    }

    @Override
    public void onUpdate(HasMetadata oldObj, HasMetadata newObj) {
      tell(newObj);
    }

    @Override
    public void onDelete(HasMetadata o, boolean finalStateUnknown) {
      tell(o);
    }
  }
}
