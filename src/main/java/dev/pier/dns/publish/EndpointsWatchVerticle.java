package dev.pier.dns.publish;

import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.kube.RbacFiles;
import dev.pier.model.Addresses;
import dev.pier.model.ServiceKey;
import dev.pier.policy.EndpointReadiness;
import dev.pier.queue.WorkKind;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * Runs the Endpoints informer of every cluster and sends DNS work for a Service whose endpoints
 * gained their first ready address or lost their last one, when the Service has DNS names. Deployed
 * only when DNS publishing is on.
 */
public final class EndpointsWatchVerticle extends VerticleBase {
  private static final DeliveryOptions DNS =
      Addresses.local().addHeader(Addresses.KIND, WorkKind.DNS.name());

  private final Clusters clusters;
  private final BiPredicate<String, Service> hasNames;

  public EndpointsWatchVerticle(Clusters clusters, BiPredicate<String, Service> hasNames) {
    this.clusters = clusters;
    this.hasNames = hasNames;
  }

  @Override
  public Future<?> start() {
    List<Future<Void>> started = new ArrayList<>();
    for (Cluster cluster : clusters.all()) {
      var informer = cluster.endpointsInformer();
      informer.addEventHandler(new Handler(cluster, context));
      started.add(
          Future.fromCompletionStage(
              informer.start(cluster.name(), "Endpoints", RbacFiles.DNS, true), context));
    }
    return Future.all(started);
  }

  @Override
  public Future<?> stop() {
    clusters.all().forEach(c -> c.endpointsInformer().stop());
    return Future.succeededFuture();
  }

  private final class Handler implements ResourceEventHandler<Endpoints> {
    private final Cluster cluster;
    private final Context ctx;

    Handler(Cluster cluster, Context ctx) {
      this.cluster = cluster;
      this.ctx = ctx;
    }

    private void send(Endpoints e) {
      String ns = e.getMetadata().getNamespace();
      String name = e.getMetadata().getName();
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
    public void onAdd(Endpoints e) {
      send(e);
    }

    @Override
    public void onUpdate(Endpoints oldE, Endpoints newE) {
      if (EndpointReadiness.ready(oldE) != EndpointReadiness.ready(newE)) {
        send(newE);
      }
    }

    @Override
    public void onDelete(Endpoints e, boolean finalStateUnknown) {
      send(e);
    }
  }
}
