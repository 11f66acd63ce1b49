package dev.pier.orphans;

import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancers;
import dev.pier.events.EventReasons;
import dev.pier.events.ObjectRef;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.leader.WorkGate;
import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceRef;
import dev.pier.policy.DeletionGuard;
import io.fabric8.kubernetes.api.model.Service;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds load balancers the provider owns whose Service no longer exists, and with {@code
 * orphans.cleanup} deletes them: Services deleted while Pier was down leave them behind (upstream
 * leaves them for good, kubernetes#53451), and so does a Service whose load balancer an operator
 * abandoned after its deletion failed. What is left after each sweep is the gauge {@code
 * pier_orphans_remaining}. Deleting, it runs right after start and then every period; only
 * counting, a period after start and then every period. Only on synced clusters, and never on a
 * load balancer whose Service (by uid) is still in the cache, even while it is being deleted.
 * Sweeps, and deletes, only while this process leads (the {@link WorkGate}); it is deployed once
 * and idles on a standby.
 */
public final class OrphanSweeper extends AbstractVerticle {
  private static final Logger log = LoggerFactory.getLogger(OrphanSweeper.class);
  private static final ServiceLog serviceLog = ServiceLog.of(OrphanSweeper.class);
  // Names in a report's log line; the gauge has the full count.
  private static final int REPORTED_NAMES = 10;

  private final Clusters clusters;
  private final OwnedLoadBalancers owned;
  private final Duration period;
  private final Counter deleted;
  private final Counter failures;
  private final DeletionGuard guard;
  private final WorkGate gate;
  private final boolean deletes;
  private final MeterRegistry registry;
  private final Map<String, AtomicInteger> remaining = new ConcurrentHashMap<>();
  private boolean running;

  public OrphanSweeper(
      Clusters clusters,
      OwnedLoadBalancers owned,
      Duration period,
      DeletionGuard guard,
      MeterRegistry registry,
      WorkGate gate,
      boolean deletes) {
    this.clusters = clusters;
    this.gate = gate;
    this.deletes = deletes;
    this.registry = registry;
    this.owned = owned;
    this.period = period;
    this.guard = guard;
    this.deleted =
        Counter.builder("pier.orphans.deleted")
            .description("Load balancers deleted because their Service no longer exists")
            .register(registry);
    this.failures =
        Counter.builder("pier.orphans.delete.failures")
            .description("Orphaned load balancers whose deletion failed (retried next sweep)")
            .register(registry);
  }

  /**
   * A sweeper for the provider, or null when it cannot list what it owns.
   *
   * @param deletes {@code orphans.cleanup}: delete what it finds, else only count it
   */
  public static OrphanSweeper forProvider(
      Clusters clusters,
      LoadBalancerProvider provider,
      Duration period,
      DeletionGuard guard,
      MeterRegistry registry,
      WorkGate gate,
      boolean deletes) {
    return provider
        .ownedLoadBalancers()
        .map(o -> new OrphanSweeper(clusters, o, period, guard, registry, gate, deletes))
        .orElse(null);
  }

  @Override
  public void start() {
    // Counting is not urgent: it stays out of a cold start's way.
    if (deletes) {
      vertx.setTimer(1, t -> sweep());
    }
    vertx.setPeriodic(Math.max(1, period.toMillis()), t -> sweep());
  }

  /** One sweep over every synced cluster; completes when every deletion was tried. */
  public Future<Integer> sweep() {
    if (running || !gate.isOpen()) {
      return Future.succeededFuture(0);
    }
    running = true;
    List<Future<Integer>> all = new ArrayList<>();
    for (Cluster c : clusters.all()) {
      if (c.synced()) {
        all.add(sweep(c));
      }
    }
    return Future.join(all)
        .map(cf -> all.stream().mapToInt(f -> f.result() == null ? 0 : f.result()).sum())
        .eventually(
            () -> {
              running = false;
              return Future.succeededFuture();
            });
  }

  private Future<Integer> sweep(Cluster cluster) {
    return owned
        .list(cluster.name())
        .compose(
            lbs -> {
              Set<String> uids =
                  cluster.services().stream()
                      .map(Service::getMetadata)
                      .map(m -> m.getUid())
                      .collect(Collectors.toSet());
              List<OwnedLoadBalancer> orphans =
                  lbs.stream()
                      .filter(
                          lb ->
                              lb.serviceUid() != null
                                  && !lb.serviceUid().isEmpty()
                                  && !uids.contains(lb.serviceUid()))
                      .toList();
              if (!deletes) {
                report(cluster, orphans);
                return Future.succeededFuture(0);
              }
              List<Future<Integer>> deletions = new ArrayList<>();
              for (OwnedLoadBalancer lb : orphans) {
                if (!guard.allow(lb.name() + " (" + lb.id() + ")", lbs.size())) {
                  ServiceRef gone = lb.service(cluster.name());
                  String message =
                      "Not deleting orphaned load balancer "
                          + lb.name()
                          + " ("
                          + lb.id()
                          + "): held by the deletion guard until deletionGuard.confirm";
                  serviceLog.warn(gone, "{}", message);
                  // The Service is gone; the Event still lists under its namespace.
                  cluster.events().warning(ObjectRef.of(gone), EventReasons.DELETION_HELD, message);
                  continue;
                }
                deletions.add(
                    gate.guard(
                            "deleting orphaned load balancer " + lb.name(),
                            () -> owned.delete(cluster.name(), lb))
                        .map(
                            v -> {
                              deleted.increment();
                              serviceLog.warn(
                                  lb.service(cluster.name()),
                                  "deleted orphaned load balancer {} ({}): no Service"
                                      + " with uid {} exists any more",
                                  lb.name(),
                                  lb.id(),
                                  lb.serviceUid());
                              return 1;
                            })
                        .recover(
                            e -> {
                              failures.increment();
                              serviceLog.warn(
                                  lb.service(cluster.name()),
                                  "deleting orphaned load balancer {} ({}) failed: {}",
                                  lb.name(),
                                  lb.id(),
                                  e.getMessage());
                              return Future.succeededFuture(0);
                            }));
              }
              return Future.join(deletions)
                  .map(
                      cf -> {
                        int gone = deletions.stream().mapToInt(Future::result).sum();
                        remaining(cluster.name()).set(orphans.size() - gone);
                        return gone;
                      });
            })
        .recover(
            e -> {
              log.warn(
                  "Cluster {}: listing owned load balancers failed: {}",
                  cluster.name(),
                  e.getMessage());
              return Future.succeededFuture(0);
            });
  }

  /** With {@code orphans.cleanup} off: what a sweep would delete, counted and named, untouched. */
  private void report(Cluster cluster, List<OwnedLoadBalancer> orphans) {
    remaining(cluster.name()).set(orphans.size());
    if (orphans.isEmpty()) {
      return;
    }
    List<String> names =
        orphans.stream().limit(REPORTED_NAMES).map(lb -> lb.name() + " (" + lb.id() + ")").toList();
    log.warn(
        "Cluster {}: {} load balancer(s) without a Service, not deleted (orphans.cleanup is"
            + " off): {}{}",
        cluster.name(),
        orphans.size(),
        String.join(", ", names),
        orphans.size() > names.size() ? ", ..." : "");
  }

  private AtomicInteger remaining(String cluster) {
    return remaining.computeIfAbsent(
        cluster,
        c -> {
          AtomicInteger n = new AtomicInteger();
          Gauge.builder("pier.orphans.remaining", n, AtomicInteger::get)
              .description(
                  "Load balancers the provider owns whose Service no longer exists (abandoned ones"
                      + " included), left after the last sweep: orphans.cleanup is off, the"
                      + " deletion guard holds them, or their deletion failed")
              .tag("cluster", c)
              .register(registry);
          return n;
        });
  }
}
