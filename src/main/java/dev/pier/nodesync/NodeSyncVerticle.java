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
import dev.pier.util.Debouncer;
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
 * Keeps load balancers pointed at the eligible nodes. Node events of a cluster are coalesced for
 * {@code debounce} after the first (a node flapping, or a rolling restart, makes one sync); then it
 * recomputes the cluster's eligible node set, and when the set changed, it submits a host update to
 * the reconcile queue for exactly the Services whose last pushed set differs. A periodic full sync
 * diffs every Service against its last pushed set as a safety net. Node events that change nothing
 * relevant (heartbeats, unrelated labels) cost one set comparison and no cloud call.
 */
public final class NodeSyncVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(NodeSyncVerticle.class);

  /** Long enough to gather a burst of node changes, short against a load balancer's update. */
  public static final Duration DEFAULT_DEBOUNCE = Duration.ofSeconds(1);

  private static final DeliveryOptions UPDATE_HOSTS =
      Addresses.local()
          .addHeader(Addresses.KIND, WorkKind.UPDATE_HOSTS.name())
          .setSendTimeout(Duration.ofMinutes(30).toMillis());

  private final Clusters clusters;
  private final NodeEligibility eligibility;
  private final PushedNodeSets pushed;
  private final Duration period;
  private final Duration debounce;
  private Debouncer<String> changes;
  // Per cluster: the node whose change opened the current window, and how many changes joined it.
  private final Map<String, String> firstChanged = new HashMap<>();
  private final Map<String, Integer> changeCount = new HashMap<>();
  private final Map<String, NodeSet> lastEligible = new HashMap<>();
  private final PierMetrics metrics;
  private long timerId = -1;

  public NodeSyncVerticle(
      Clusters clusters,
      NodeEligibility eligibility,
      PushedNodeSets pushed,
      Duration period,
      Duration debounce,
      PierMetrics metrics) {
    this.debounce = debounce;
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
    changes =
        new Debouncer<>(
            debounce,
            (delay, task) -> vertx.setTimer(delay.toMillis(), id -> task.run()),
            this::sync);
    vertx.eventBus().<JsonObject>localConsumer(Addresses.NODES_CHANGED, m -> onNodeEvent(m.body()));
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
    String name = event.getString("cluster");
    if (clusters.get(name) == null) {
      return;
    }
    firstChanged.putIfAbsent(name, event.getString("node"));
    changeCount.merge(name, 1, Integer::sum);
    changes.signal(name);
  }

  /** The node changes of a cluster's window, as one: load balancers follow the set they left. */
  private void sync(String clusterName) {
    Cluster cluster = clusters.get(clusterName);
    String node = firstChanged.remove(clusterName);
    int count = changeCount.getOrDefault(clusterName, 0);
    changeCount.remove(clusterName);
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
        "Cluster {}: eligible nodes changed ({} -> {}) after {} node change(s), the first of node"
            + " {}: {} load balancer(s) to update",
        cluster.name(),
        before == null ? 0 : before.size(),
        now.size(),
        count,
        node,
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
                // Superseded: a later request covers it; not owned: another replica's shard.
                long superseded =
                    replies.stream()
                        .filter(
                            f ->
                                Addresses.SUPERSEDED.equals(outcome(f))
                                    || Addresses.NOT_OWNED.equals(outcome(f)))
                        .count();
                long failed =
                    replies.stream().filter(f -> !"SUCCESS".equals(outcome(f))).count()
                        - superseded;
                log.info(
                    "Cluster {}: node sync round done in {} ms: {} load balancer(s), {} to retry,"
                        + " {} left to a later round",
                    cluster.name(),
                    nanos / 1_000_000,
                    replies.size(),
                    failed,
                    superseded);
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
