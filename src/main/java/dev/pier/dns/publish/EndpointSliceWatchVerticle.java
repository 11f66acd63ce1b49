package dev.pier.dns.publish;

import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.kube.RbacFiles;
import dev.pier.model.Addresses;
import dev.pier.model.ServiceKey;
import dev.pier.policy.EndpointReadiness;
import dev.pier.queue.WorkKind;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * Runs the EndpointSlice informer of every cluster and sends DNS work for a Service one of whose
 * slices appeared, went, or gained its first ready endpoint or lost its last one, when the Service
 * has DNS names (the DNS work reads the readiness of all its slices). Deployed only when DNS
 * publishing is on.
 */
public final class EndpointSliceWatchVerticle extends VerticleBase {
  private static final DeliveryOptions DNS =
      Addresses.local().addHeader(Addresses.KIND, WorkKind.DNS.name());

  private final Clusters clusters;
  private final BiPredicate<String, Service> hasNames;

  public EndpointSliceWatchVerticle(Clusters clusters, BiPredicate<String, Service> hasNames) {
    this.clusters = clusters;
    this.hasNames = hasNames;
  }

  @Override
  public Future<?> start() {
    List<Future<Void>> started = new ArrayList<>();
    for (Cluster cluster : clusters.all()) {
      var informer = cluster.endpointSliceInformer();
      informer.addEventHandler(new Handler(cluster, context));
      started.add(
          Future.fromCompletionStage(
              informer.start(cluster.name(), "EndpointSlices", RbacFiles.DNS, true), context));
    }
    return Future.all(started);
  }

  @Override
  public Future<?> stop() {
    clusters.all().forEach(c -> c.endpointSliceInformer().stop());
    return Future.succeededFuture();
  }

  private final class Handler implements ResourceEventHandler<EndpointSlice> {
    private final Cluster cluster;
    private final Context ctx;

    Handler(Cluster cluster, Context ctx) {
      this.cluster = cluster;
      this.ctx = ctx;
    }

    private void send(EndpointSlice slice) {
      Optional<String> service = EndpointReadiness.serviceName(slice);
      if (service.isEmpty()) {
        return;
      }
      String ns = slice.getMetadata().getNamespace();
      String name = service.get();
      ctx.runOnContext(
          v -> {
            Service svc = cluster.service(ns, name);
            if (svc != null && hasNames.test(cluster.name(), svc)) {
              vertx
                  .eventBus()
                  .send(
                      Addresses.RECONCILE,
                      new ServiceKey(cluster.name(), ns, name).toString(),
                      DNS);
            }
          });
    }

    @Override
    public void onAdd(EndpointSlice e) {
      send(e);
    }

    @Override
    public void onUpdate(EndpointSlice oldE, EndpointSlice newE) {
      if (EndpointReadiness.ready(oldE) != EndpointReadiness.ready(newE)) {
        send(newE);
      }
    }

    @Override
    public void onDelete(EndpointSlice e, boolean finalStateUnknown) {
      send(e);
    }
  }
}
