package dev.pier.reconcile;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.dns.publish.DnsSync;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.Views;
import dev.pier.nodes.NodeSet;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.policy.NodeEligibility;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reconcile of one Service key, as upstream's service controller does it: add the cleanup
 * finalizer before creating anything, ensure the load balancer on the eligible nodes, write the
 * status only when it changed; on deletion or when the Service stops wanting a load balancer,
 * delete it, clear the status and remove the finalizer. Runs on the reconcile verticle's context;
 * the work queue guarantees that a key is never reconciled twice at once.
 */
public final class ServiceReconciler {
  private static final Logger log = LoggerFactory.getLogger(ServiceReconciler.class);
  static final int MAX_NODE_NAMES_TO_LOG = 20;

  private record StatusWrite(LbStatus desired, LbStatus stored) {}

  private final Context ctx;
  private final Clusters clusters;
  private final LoadBalancerProvider provider;
  private final ServiceFilter filter;
  private final NodeEligibility eligibility;
  private final PushedNodeSets pushed;
  private final Map<ServiceKey, StatusWrite> statusWrites = new HashMap<>();
  private final DnsSync dns;
  // The status of each load balancer ensured by this process: what DNS-only runs publish.
  private final Map<ServiceKey, LbStatus> ensured = new HashMap<>();

  /**
   * @param dns publishes DNS names after the load balancer work of a run, or null for none
   */
  public ServiceReconciler(
      Context ctx,
      Clusters clusters,
      LoadBalancerProvider provider,
      ServiceFilter filter,
      NodeEligibility eligibility,
      PushedNodeSets pushed,
      DnsSync dns) {
    this.dns = dns;
    this.ctx = ctx;
    this.clusters = clusters;
    this.provider = provider;
    this.filter = filter;
    this.eligibility = eligibility;
    this.pushed = pushed;
  }

  public Future<WorkResult> reconcile(WorkItem<ServiceKey> item) {
    ServiceKey key = item.key();
    Cluster cluster = clusters.get(key.cluster());
    if (cluster == null) {
      log.warn("{}: unknown cluster {}, dropped", prefix(key), key.cluster());
      return Future.succeededFuture(WorkResult.success());
    }
    Service svc = cluster.service(key.namespace(), key.name());
    Future<WorkResult> result;
    if (svc == null) {
      result = deleteWithoutFinalizer(cluster, key);
    } else {
      result =
          removeStaleDeleted(cluster, key, svc)
              .compose(
                  v -> {
                    if (filter.needsCleanup(svc)) {
                      return cleanup(cluster, key, svc, item.kinds());
                    }
                    if (!filter.wantsLoadBalancer(svc)) {
                      ensured.remove(key);
                      return Future.succeededFuture(WorkResult.success());
                    }
                    if (onlyDns(item.kinds()) && ensured.containsKey(key)) {
                      return Future.succeededFuture(WorkResult.success());
                    }
                    if (!item.kinds().contains(WorkKind.RECONCILE)
                        && item.kinds().contains(WorkKind.UPDATE_HOSTS)
                        && pushed.get(key) != null) {
                      return updateHosts(cluster, key, svc);
                    }
                    return ensure(cluster, key, svc, item.kinds());
                  });
    }
    return dns == null ? result : result.compose(r -> syncDns(item, cluster, key, r));
  }

  private static boolean onlyDns(Set<WorkKind> kinds) {
    return kinds.contains(WorkKind.DNS)
        && !kinds.contains(WorkKind.RECONCILE)
        && !kinds.contains(WorkKind.UPDATE_HOSTS);
  }

  /**
   * DNS after the load balancer work of the same run, so both share the key's serialization. A DNS
   * failure retries only the DNS work: load balancers never wait for the DNS server.
   */
  private Future<WorkResult> syncDns(
      WorkItem<ServiceKey> item, Cluster cluster, ServiceKey key, WorkResult lb) {
    boolean asked =
        item.kinds().contains(WorkKind.RECONCILE) || item.kinds().contains(WorkKind.DNS);
    if (!asked || lb.outcome() != WorkResult.Outcome.SUCCESS) {
      return Future.succeededFuture(lb);
    }
    Service svc = cluster.service(key.namespace(), key.name());
    LbStatus status = svc == null ? null : ensured.get(key);
    return dns.sync(cluster, key, svc, status == null ? LbStatus.EMPTY : status);
  }

  private List<LbNode> eligibleNodes(Cluster cluster) {
    return eligibility.select(cluster.nodes());
  }

  private Future<WorkResult> ensure(
      Cluster cluster, ServiceKey key, Service svc, Set<WorkKind> kinds) {
    long start = System.nanoTime();
    ObjectRef ref = ref(svc);
    EventSink events = cluster.events();
    LbService view = Views.service(cluster.name(), svc);
    events.normal(ref, "EnsuringLoadBalancer", "Ensuring load balancer");
    Future<Void> finalizer =
        ServiceFilter.hasFinalizer(svc)
            ? Future.succeededFuture()
            : cluster.writer().addFinalizer(ctx, key);
    List<LbNode> nodes = eligibleNodes(cluster);
    return finalizer
        .compose(
            v -> {
              if (nodes.isEmpty()) {
                events.warning(
                    ref,
                    "UnAvailableLoadBalancer",
                    "There are no available nodes for LoadBalancer");
              }
              pushed.record(key, NodeSet.of(nodes));
              return provider.ensureLoadBalancer(cluster.name(), view, nodes);
            })
        .compose(
            (EnsureResult result) -> {
              result.warnings().forEach(w -> events.warning(ref, w.reason(), w.message()));
              if (result.status() == null) {
                return Future.failedFuture(
                    new ProviderException.Retry("provider returned no load balancer status"));
              }
              return writeStatus(key, view.status(), result.status()).map(result);
            })
        .map(
            result -> {
              ensured.put(key, result.status());
              events.normal(ref, "EnsuredLoadBalancer", "Ensured load balancer");
              log.info(
                  "{}: ensured load balancer {} on {} node(s) in {} ms",
                  prefix(key),
                  addresses(result.status()),
                  nodes.size(),
                  (System.nanoTime() - start) / 1_000_000);
              return WorkResult.success();
            })
        .recover(
            e -> {
              if (e instanceof ProviderException.ImplementedElsewhere) {
                ensured.remove(key);
                log.info(
                    "{}: load balancer implemented elsewhere: {}", prefix(key), e.getMessage());
                return Future.succeededFuture(WorkResult.success());
              }
              return failed(cluster, key, ref, e, kinds);
            });
  }

  private Future<WorkResult> updateHosts(Cluster cluster, ServiceKey key, Service svc) {
    List<LbNode> nodes = eligibleNodes(cluster);
    NodeSet next = NodeSet.of(nodes);
    if (next.equals(pushed.get(key))) {
      return Future.succeededFuture(WorkResult.success());
    }
    ObjectRef ref = ref(svc);
    EventSink events = cluster.events();
    if (nodes.isEmpty()) {
      events.warning(
          ref, "UnAvailableLoadBalancer", "There are no available nodes for LoadBalancer");
    }
    pushed.record(key, next);
    LbService view = Views.service(cluster.name(), svc);
    return provider
        .updateLoadBalancerHosts(cluster.name(), view, nodes)
        .map(
            v -> {
              events.normal(ref, "UpdatedLoadBalancer", "Updated load balancer with new hosts");
              log.info("{}: updated load balancer hosts ({} node(s))", prefix(key), nodes.size());
              return WorkResult.success();
            })
        .recover(
            e -> {
              if (e instanceof ProviderException.ImplementedElsewhere) {
                return Future.succeededFuture(WorkResult.success());
              }
              return provider
                  .getLoadBalancer(cluster.name(), view)
                  .otherwise(java.util.Optional.of(LbStatus.EMPTY))
                  .map(
                      existing -> {
                        if (existing.isEmpty()) {
                          return WorkResult.success();
                        }
                        events.warning(
                            ref,
                            "UpdateLoadBalancerFailed",
                            "Error updating load balancer with new hosts "
                                + nodeNames(nodes)
                                + ": "
                                + Outcomes.describe(e));
                        log.warn(
                            "{}: updating load balancer hosts failed, retrying with a full sync: {}",
                            prefix(key),
                            Outcomes.describe(e));
                        pushed.forget(key);
                        return WorkResult.retry(Set.of(WorkKind.RECONCILE));
                      });
            });
  }

  private Future<WorkResult> cleanup(
      Cluster cluster, ServiceKey key, Service svc, Set<WorkKind> kinds) {
    ObjectRef ref = ref(svc);
    EventSink events = cluster.events();
    LbService view = Views.service(cluster.name(), svc);
    boolean deleting = svc.getMetadata().getDeletionTimestamp() != null;
    events.normal(ref, "DeletingLoadBalancer", "Deleting load balancer");
    return provider
        .ensureLoadBalancerDeleted(cluster.name(), view)
        .compose(
            v ->
                deleting || view.status().isEmpty()
                    ? Future.<Void>succeededFuture()
                    : cluster.writer().clearStatus(ctx, key))
        .compose(v -> cluster.writer().removeFinalizer(ctx, key))
        .map(
            v -> {
              pushed.forget(key);
              statusWrites.remove(key);
              ensured.remove(key);
              events.normal(ref, "DeletedLoadBalancer", "Deleted load balancer");
              log.info(
                  "{}: deleted load balancer ({})",
                  prefix(key),
                  deleting ? "Service deleted" : "no longer type LoadBalancer");
              return WorkResult.success();
            })
        .recover(e -> failed(cluster, key, ref, e, kinds));
  }

  private Future<WorkResult> deleteWithoutFinalizer(Cluster cluster, ServiceKey key) {
    Service last = cluster.deletedServices().get(key.objectKey());
    pushed.forget(key);
    statusWrites.remove(key);
    ensured.remove(key);
    if (last == null) {
      return Future.succeededFuture(WorkResult.success());
    }
    return deleteLastSeen(cluster, key, last)
        .map(
            r -> {
              if (r.outcome() == WorkResult.Outcome.SUCCESS) {
                cluster.deletedServices().remove(key.objectKey(), last);
              }
              return r;
            });
  }

  /** A Service re-created under the same name: first remove the old one's load balancer. */
  private Future<Void> removeStaleDeleted(Cluster cluster, ServiceKey key, Service current) {
    Service last = cluster.deletedServices().get(key.objectKey());
    if (last == null) {
      return Future.succeededFuture();
    }
    if (last.getMetadata().getUid().equals(current.getMetadata().getUid())) {
      cluster.deletedServices().remove(key.objectKey(), last);
      return Future.succeededFuture();
    }
    return deleteLastSeen(cluster, key, last)
        .compose(
            r -> {
              if (r.outcome() != WorkResult.Outcome.SUCCESS) {
                return Future.failedFuture(
                    new ProviderException.Retry("load balancer of the deleted Service remains"));
              }
              cluster.deletedServices().remove(key.objectKey(), last);
              return Future.succeededFuture();
            });
  }

  private Future<WorkResult> deleteLastSeen(Cluster cluster, ServiceKey key, Service last) {
    ObjectRef ref = ref(last);
    EventSink events = cluster.events();
    events.normal(ref, "DeletingLoadBalancer", "Deleting load balancer");
    return provider
        .ensureLoadBalancerDeleted(cluster.name(), Views.service(cluster.name(), last))
        .map(
            v -> {
              events.normal(ref, "DeletedLoadBalancer", "Deleted load balancer");
              log.info(
                  "{}: deleted load balancer (Service deleted without finalizer)", prefix(key));
              return WorkResult.success();
            })
        .recover(
            e -> {
              events.warning(
                  ref,
                  "DeleteLoadBalancerFailed",
                  "Error deleting load balancer: " + Outcomes.describe(e));
              log.warn("{}: deleting load balancer failed: {}", prefix(key), Outcomes.describe(e));
              return Future.succeededFuture(Outcomes.forFailure(e, Set.of(WorkKind.RECONCILE)));
            });
  }

  /** Writes the status unless the Service already shows it (as the server stores it). */
  private Future<Void> writeStatus(ServiceKey key, LbStatus current, LbStatus desired) {
    StatusWrite last = statusWrites.get(key);
    if (current.equals(desired)
        || (last != null && last.desired().equals(desired) && last.stored().equals(current))) {
      return Future.succeededFuture();
    }
    Cluster cluster = clusters.get(key.cluster());
    return cluster
        .writer()
        .patchStatus(ctx, key, desired)
        .map(
            stored -> {
              statusWrites.put(key, new StatusWrite(desired, stored));
              return null;
            });
  }

  private Future<WorkResult> failed(
      Cluster cluster, ServiceKey key, ObjectRef ref, Throwable e, Set<WorkKind> kinds) {
    WorkResult r = Outcomes.forFailure(e, kinds);
    String why = Outcomes.describe(e);
    cluster.events().warning(ref, "SyncLoadBalancerFailed", "Error syncing load balancer: " + why);
    switch (r.outcome()) {
      case PERMANENT ->
          log.warn("{}: invalid: {} (waiting for the Service to change)", prefix(key), why);
      case RETRY_AFTER ->
          log.warn("{}: sync failed, retrying in {}: {}", prefix(key), r.delay(), why);
      default -> log.warn("{}: sync failed, retrying with backoff: {}", prefix(key), why);
    }
    return Future.succeededFuture(r);
  }

  static String nodeNames(List<LbNode> nodes) {
    String names =
        nodes.stream()
            .limit(MAX_NODE_NAMES_TO_LOG)
            .map(LbNode::name)
            .collect(Collectors.joining(", ", "[", "]"));
    return names + " (total number of nodes: " + nodes.size() + ")";
  }

  private static String addresses(LbStatus status) {
    return status.ingress().stream()
        .map(i -> i.ip() != null ? i.ip() : i.hostname())
        .collect(Collectors.joining(",", "[", "]"));
  }

  private static ObjectRef ref(Service svc) {
    return ObjectRef.service(
        svc.getMetadata().getNamespace(), svc.getMetadata().getName(), svc.getMetadata().getUid());
  }

  /** {@code Service ns/name}, with the cluster when it is not the only one. */
  public String prefix(ServiceKey key) {
    return clusters.all().size() > 1
        ? "Service " + key.cluster() + "/" + key.objectKey()
        : "Service " + key.objectKey();
  }
}
