package dev.pier.watch;

import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.model.Addresses;
import dev.pier.model.ServiceKey;
import dev.pier.model.Views;
import dev.pier.policy.NodeChanges;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkKind;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the Service and Node informers of every cluster and turns their events into keys on the
 * event bus: Services that want a load balancer or need cleanup, on changes that matter; node
 * changes for node sync. Starts once every informer has synced.
 */
public final class WatchVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(WatchVerticle.class);
  private static final DeliveryOptions RECONCILE =
      Addresses.local().addHeader(Addresses.KIND, WorkKind.RECONCILE.name());
  private static final DeliveryOptions RECONCILE_FOR_ANNOTATIONS =
      Addresses.local()
          .addHeader(Addresses.KIND, WorkKind.RECONCILE.name())
          .addHeader(Addresses.CAUSE, Addresses.CAUSE_METADATA);

  private final Clusters clusters;
  private final ServiceFilter filter;
  private final BiConsumer<ServiceKey, Service> deletedWithoutFinalizer;

  /**
   * @param deletedWithoutFinalizer told the last state of a Service that wanted a load balancer and
   *     was deleted without Pier's finalizer, before its key is sent
   */
  public WatchVerticle(
      Clusters clusters,
      ServiceFilter filter,
      BiConsumer<ServiceKey, Service> deletedWithoutFinalizer) {
    this.clusters = clusters;
    this.filter = filter;
    this.deletedWithoutFinalizer = deletedWithoutFinalizer;
  }

  @Override
  public Future<?> start() {
    List<Future<Void>> started = new ArrayList<>();
    for (Cluster cluster : clusters.all()) {
      started.add(watch(cluster));
    }
    // A member that joins at runtime with a provider of its own is watched from then on; the
    // informers of one that leaves stop with its client.
    clusters.onAdded(c -> watch(c).onSuccess(v -> logWatching(c)));
    long waiting =
        vertx.setPeriodic(
            10_000,
            id ->
                clusters.all().stream()
                    .filter(c -> !c.synced())
                    .forEach(
                        c ->
                            log.warn(
                                "Cluster {}: still waiting for the first list of Services and Nodes"
                                    + " from {}",
                                c.name(),
                                c.client().getConfiguration().getMasterUrl())));
    return Future.all(started)
        .onComplete(ar -> vertx.cancelTimer(waiting))
        .onSuccess(v -> clusters.all().forEach(WatchVerticle::logWatching));
  }

  private static void logWatching(Cluster c) {
    log.info(
        "Cluster {}: watching {} Services and {} Nodes",
        c.name(),
        c.services().size(),
        c.nodes().size());
  }

  private Future<Void> watch(Cluster cluster) {
    cluster.addServiceHandler(new ServiceHandler(cluster.name(), context));
    cluster.nodeInformer().addEventHandler(new NodeHandler(cluster.name(), context));
    return Future.all(cluster.startServices(context), cluster.startNodes(context)).mapEmpty();
  }

  @Override
  public Future<?> stop() {
    clusters
        .all()
        .forEach(
            c -> {
              c.serviceInformer().stop();
              c.nodeInformer().stop();
            });
    return Future.succeededFuture();
  }

  private void send(String cluster, Service svc) {
    send(cluster, svc, RECONCILE);
  }

  private void send(String cluster, Service svc, DeliveryOptions options) {
    ServiceKey key = Views.key(cluster, svc);
    vertx.eventBus().send(Addresses.RECONCILE, key.toString(), options);
  }

  private final class ServiceHandler implements ResourceEventHandler<Service> {
    private final String cluster;
    private final Context ctx;

    ServiceHandler(String cluster, Context ctx) {
      this.cluster = cluster;
      this.ctx = ctx;
    }

    @Override
    public void onAdd(Service svc) {
      ctx.runOnContext(
          v -> {
            if (filter.forCluster(cluster).shouldEnqueueAdd(svc)) {
              send(cluster, svc);
            }
          });
    }

    @Override
    public void onUpdate(Service oldSvc, Service newSvc) {
      ctx.runOnContext(
          v -> {
            ServiceFilter f = filter.forCluster(cluster);
            if (f.shouldEnqueueUpdate(oldSvc, newSvc)) {
              send(
                  cluster,
                  newSvc,
                  f.onlyAnnotationsChanged(oldSvc, newSvc) ? RECONCILE_FOR_ANNOTATIONS : RECONCILE);
            }
          });
    }

    @Override
    public void onDelete(Service svc, boolean finalStateUnknown) {
      ctx.runOnContext(
          v -> {
            // With the finalizer, deletion went through the cleanup path before the object
            // vanished. Without it (created before Pier ran), clean up from the last state seen.
            if (!ServiceFilter.hasFinalizer(svc)
                && filter.forCluster(cluster).wantsLoadBalancer(svc)) {
              deletedWithoutFinalizer.accept(Views.key(cluster, svc), svc);
              send(cluster, svc);
            }
          });
    }
  }

  private final class NodeHandler implements ResourceEventHandler<Node> {
    private final String cluster;
    private final Context ctx;

    NodeHandler(String cluster, Context ctx) {
      this.cluster = cluster;
      this.ctx = ctx;
    }

    private void publish(Node node) {
      String name = node.getMetadata().getName();
      ctx.runOnContext(
          v ->
              vertx
                  .eventBus()
                  .publish(
                      Addresses.NODES_CHANGED,
                      new JsonObject().put("cluster", cluster).put("node", name),
                      Addresses.local()));
    }

    @Override
    public void onAdd(Node node) {
      publish(node);
    }

    @Override
    public void onUpdate(Node oldNode, Node newNode) {
      if (NodeChanges.relevant(oldNode, newNode)) {
        publish(newNode);
      }
    }

    @Override
    public void onDelete(Node node, boolean finalStateUnknown) {
      publish(node);
    }
  }
}
