package dev.pier.federation.members;

import dev.pier.kube.Cluster;
import dev.pier.kube.RbacFiles;
import dev.pier.kube.ScopedInformer;
import dev.pier.policy.EndpointReadiness;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.function.BiConsumer;

/**
 * Which Services of a member have ready endpoints, from its {@code discovery.k8s.io/v1}
 * EndpointSlices under the member's own scope and RBAC. Nothing is known (every answer is false)
 * until the informer has started.
 */
final class ReadyEndpoints {
  private volatile ScopedInformer<EndpointSlice> informer;

  boolean ready(String namespace, String name) {
    ScopedInformer<EndpointSlice> i = informer;
    return i != null && EndpointReadiness.ready(Cluster.slicesOf(i, namespace, name));
  }

  /**
   * Starts the informer (once); {@code changed} is told the namespace and name of every Service
   * whose slices changed. Completes when the first list arrived.
   */
  synchronized Future<Void> start(
      Cluster cluster, Context ctx, BiConsumer<String, String> changed) {
    if (informer != null) {
      return Future.succeededFuture();
    }
    ScopedInformer<EndpointSlice> i =
        Cluster.endpointSliceInformer(cluster.client(), cluster.scope());
    i.addEventHandler(new Handler(changed));
    informer = i;
    return Future.fromCompletionStage(
        i.start(
            cluster.name(),
            "EndpointSlices",
            cluster.scope().isEmpty()
                ? RbacFiles.FEDERATION_MEMBER
                : RbacFiles.FEDERATION_MEMBER_NAMESPACED,
            cluster.forbiddenIsFatal()),
        ctx);
  }

  synchronized void stop() {
    if (informer != null) {
      informer.stop();
    }
  }

  private static final class Handler implements ResourceEventHandler<EndpointSlice> {
    private final BiConsumer<String, String> changed;

    Handler(BiConsumer<String, String> changed) {
      this.changed = changed;
    }

    private void tell(EndpointSlice slice) {
      EndpointReadiness.serviceName(slice)
          .ifPresent(name -> changed.accept(slice.getMetadata().getNamespace(), name));
    }

    @Override
    public void onAdd(EndpointSlice o) {
      tell(o);
    }

    @Override
    public void onUpdate(EndpointSlice oldObj, EndpointSlice newObj) {
      tell(newObj);
    }

    @Override
    public void onDelete(EndpointSlice o, boolean finalStateUnknown) {
      tell(o);
    }
  }
}
