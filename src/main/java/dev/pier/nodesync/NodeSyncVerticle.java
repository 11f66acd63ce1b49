package dev.pier.nodesync;

import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.Addresses;
import dev.pier.model.ServiceKey;
import dev.pier.nodes.NodeSet;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.policy.NodeEligibility;
import dev.pier.queue.WorkKind;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps load balancers pointed at the eligible nodes. On every node event it recomputes the
 * cluster's eligible node set; when the set changed, it submits a host update to the reconcile
 * queue for exactly the Services whose last pushed set differs. A periodic full sync diffs every
 * Service against its last pushed set as a safety net. Node events that change nothing relevant
 * (heartbeats, unrelated labels) cost one set comparison and no cloud call.
 */
public final class NodeSyncVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(NodeSyncVerticle.class);
  private static final DeliveryOptions UPDATE_HOSTS =
      new DeliveryOptions()
          .addHeader(Addresses.KIND, WorkKind.UPDATE_HOSTS.name())
          .setSendTimeout(Duration.ofMinutes(30).toMillis());

  private final Clusters clusters;
  private final NodeEligibility eligibility;
  private final PushedNodeSets pushed;
  private final Duration period;
  private final Map<String, NodeSet> lastEligible = new HashMap<>();
  private final PierMetrics metrics;
  private long timerId = -1;

  public NodeSyncVerticle(
      Clusters clusters,
      NodeEligibility eligibility,
      PushedNodeSets pushed,
      Duration period,
      PierMetrics metrics) {
    this.metrics = metrics;
    this.clusters = clusters;
    this.eligibility = eligibility;
    this.pushed = pushed;
    this.period = period;
  }

  @Override
  public Future<?> start() {
    for (Cluster c : clusters.all()) {
      lastEligible.put(c.name(), eligibleSet(c));
    }
    vertx.eventBus().<JsonObject>consumer(Addresses.NODES_CHANGED, m -> onNodeEvent(m.body()));
    if (!period.isZero()) {
      timerId = vertx.setPeriodic(period.toMillis(), id -> fullSync());
    }
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
    }
    return Future.succeededFuture();
  }

  private void onNodeEvent(JsonObject event) {
    Cluster cluster = clusters.get(event.getString("cluster"));
    if (cluster == null) {
      return;
    }
    NodeSet now = eligibleSet(cluster);
    NodeSet before = lastEligible.put(cluster.name(), now);
    if (now.equals(before)) {
      return;
    }
    int submitted = submitDifferences(cluster, now);
    log.info(
        "Cluster {}: eligible nodes changed ({} -> {}) after node {}: {} load balancer(s) to update",
        cluster.name(),
        before == null ? 0 : before.size(),
        now.size(),
        event.getString("node"),
        submitted);
  }

  /** The periodic safety net: every Service whose pushed set differs gets a host update. */
  void fullSync() {
    for (Cluster cluster : clusters.all()) {
      NodeSet now = eligibleSet(cluster);
      lastEligible.put(cluster.name(), now);
      int submitted = submitDifferences(cluster, now);
      if (submitted > 0) {
        log.info(
            "Cluster {}: periodic node sync: {} load balancer(s) to update",
            cluster.name(),
            submitted);
      }
    }
  }

  private int submitDifferences(Cluster cluster, NodeSet eligible) {
    List<ServiceKey> stale = new ArrayList<>();
    pushed
        .snapshot()
        .forEach(
            (key, set) -> {
              if (key.cluster().equals(cluster.name()) && !set.equals(eligible)) {
                stale.add(key);
              }
            });
    long start = System.nanoTime();
    List<Future<Message<Object>>> replies = new ArrayList<>(stale.size());
    for (ServiceKey key : stale) {
      replies.add(vertx.eventBus().request(Addresses.RECONCILE, key.toString(), UPDATE_HOSTS));
    }
    if (!replies.isEmpty()) {
      Future.join(replies)
          .onComplete(
              ar -> {
                long nanos = System.nanoTime() - start;
                metrics.recordNodeSync(nanos);
                long failed = replies.stream().filter(f -> !"SUCCESS".equals(outcome(f))).count();
                log.info(
                    "Cluster {}: node sync round done in {} ms: {} load balancer(s), {} to retry",
                    cluster.name(),
                    nanos / 1_000_000,
                    replies.size(),
                    failed);
              });
    }
    return stale.size();
  }

  private static String outcome(Future<Message<Object>> reply) {
    return reply.succeeded() ? String.valueOf(reply.result().body()) : "FAILED";
  }

  private NodeSet eligibleSet(Cluster cluster) {
    return NodeSet.of(eligibility.select(cluster.nodes()));
  }
}
