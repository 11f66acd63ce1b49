package dev.pier.dns.publish;

import dev.pier.dns.ClusterLocation;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.model.Addresses;
import dev.pier.model.ServiceKey;
import dev.pier.model.Views;
import dev.pier.nodes.Topology;
import dev.pier.queue.WorkKind;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows node changes and, when a cluster's region or set of zones changes (a node joins a new
 * zone, the last node of a zone goes), sends DNS work for every Service with names in it, so that
 * new zone names appear and names of zones left behind are removed.
 */
public final class TopologyWatchVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(TopologyWatchVerticle.class);
  private static final DeliveryOptions DNS =
      Addresses.local().addHeader(Addresses.KIND, WorkKind.DNS.name());

  private final Clusters clusters;
  private final DnsPublisher publisher;
  private final Map<String, ClusterLocation> last = new HashMap<>();

  public TopologyWatchVerticle(Clusters clusters, DnsPublisher publisher) {
    this.clusters = clusters;
    this.publisher = publisher;
  }

  @Override
  public Future<?> start() {
    for (Cluster c : clusters.all()) {
      last.put(c.name(), publisher.locate(c));
      // Its own handler: node events for load balancers leave out label-only changes.
      c.nodeInformer().addEventHandler(new NodeHandler(c.name(), context));
    }
    return Future.succeededFuture();
  }

  private static boolean sameTopology(Node a, Node b) {
    Map<String, String> la = Topology.labels(a);
    Map<String, String> lb = Topology.labels(b);
    for (String k : Topology.LABELS) {
      if (!Objects.equals(la.get(k), lb.get(k))) {
        return false;
      }
    }
    return true;
  }

  private final class NodeHandler implements ResourceEventHandler<Node> {
    private final String cluster;
    private final Context ctx;

    NodeHandler(String cluster, Context ctx) {
      this.cluster = cluster;
      this.ctx = ctx;
    }

    @Override
    public void onAdd(Node node) {
      ctx.runOnContext(v -> onNodeChanged(cluster));
    }

    @Override
    public void onUpdate(Node oldNode, Node newNode) {
      if (!sameTopology(oldNode, newNode)) {
        ctx.runOnContext(v -> onNodeChanged(cluster));
      }
    }

    @Override
    public void onDelete(Node node, boolean finalStateUnknown) {
      ctx.runOnContext(v -> onNodeChanged(cluster));
    }
  }

  private void onNodeChanged(String name) {
    Cluster cluster = clusters.get(name);
    if (cluster == null) {
      return;
    }
    ClusterLocation now = publisher.locate(cluster);
    ClusterLocation before = last.put(name, now);
    if (now.equals(before)) {
      return;
    }
    log.info(
        "Cluster {}: region {} zones {} (was {} {}); updating DNS names",
        name,
        now.region(),
        now.zones(),
        before == null ? null : before.region(),
        before == null ? null : before.zones());
    for (Service svc : cluster.services()) {
      if (publisher.wantsDns(name, svc)) {
        ServiceKey key = Views.key(name, svc);
        vertx.eventBus().send(Addresses.RECONCILE, key.toString(), DNS);
      }
    }
  }
}
