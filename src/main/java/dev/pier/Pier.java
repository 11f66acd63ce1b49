package dev.pier;

import dev.pier.admin.AdminServer;
import dev.pier.boot.Components;
import dev.pier.boot.PierOptions;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.config.ConfigValues;
import dev.pier.config.Durations;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import dev.pier.leader.LeaderElection;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.Addresses;
import dev.pier.orphans.OrphanSweeper;
import io.vertx.core.Deployable;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pier's lifecycle: deploys the parts {@link Components} built, reconciles at once or after winning
 * the Lease, reports readiness, and stops.
 */
public final class Pier {
  private static final Logger log = LoggerFactory.getLogger(Pier.class);

  private final Components parts;
  private final Vertx vertx;
  private final Clusters clusters;
  private final PierMetrics metrics;
  private final LeaderElection election;
  private volatile boolean reconciling;
  private volatile boolean leading;
  private volatile boolean stopping;
  private final Set<String> waiting = Collections.synchronizedSet(new LinkedHashSet<>());
  private AdminServer admin;
  private OrphanSweeper orphanSweeper;

  private Pier(Components parts) {
    this.parts = parts;
    this.vertx = parts.vertx();
    this.clusters = parts.clusters();
    this.metrics = parts.metrics();
    this.election = parts.election();
    this.orphanSweeper = parts.orphanSweeper();
  }

  /** Starts Pier: informers synced, reconcile workers running. Fails on bad config or access. */
  public static Future<Pier> start(ConfigValues config) {
    return start(config, UnaryOperator.identity());
  }

  /**
   * Starts Pier with the configured provider wrapped by {@code wrap}: the seam for test doubles
   * that inject delays or faults into Pier's own provider.
   */
  public static Future<Pier> start(ConfigValues config, UnaryOperator<LoadBalancerProvider> wrap) {
    return start(config, wrap, () -> {});
  }

  /**
   * Starts Pier; {@code onLeaseLost} runs after a leader lost its Lease and stopped reconciling (in
   * production: nothing more; the election campaigns again and the load balancers keep serving).
   */
  public static Future<Pier> start(
      ConfigValues config, UnaryOperator<LoadBalancerProvider> wrap, Runnable onLeaseLost) {
    return Components.start(config, wrap).compose(parts -> start(parts, config, onLeaseLost));
  }

  private static Future<Pier> start(Components parts, ConfigValues config, Runnable onLeaseLost) {
    Pier pier = new Pier(parts);
    Duration timeout = config.get(PierOptions.STARTUP_TIMEOUT);
    Promise<Pier> started = Promise.promise();
    long deadline =
        pier.vertx.setTimer(
            timeout.toMillis(),
            id ->
                started.tryFail(
                    new IllegalStateException(
                        "Pier did not start within "
                            + Durations.format(timeout)
                            + " (startup.timeout); still waiting for: "
                            + String.join("; ", pier.waitingFor()))));
    pier.deploy(onLeaseLost)
        .onComplete(
            ar -> {
              pier.vertx.cancelTimer(deadline);
              if (ar.succeeded()) {
                started.tryComplete(pier);
              } else {
                started.tryFail(ar.cause());
              }
            });
    return started.future().recover(e -> pier.stop().transform(ar -> Future.failedFuture(e)));
  }

  /** Marks {@code what} as awaited until {@code step} completes, for the startup deadline's log. */
  private <T> Future<T> awaiting(String what, Future<T> step) {
    waiting.add(what);
    return step.onComplete(ar -> waiting.remove(what));
  }

  private <T> Future<T> awaiting(String what, Supplier<Future<T>> step) {
    return awaiting(what, step.get());
  }

  /** What startup still waits for: its pending steps, then each informer not yet synced. */
  private List<String> waitingFor() {
    List<String> what;
    synchronized (waiting) {
      what = new ArrayList<>(waiting);
    }
    for (Cluster c : clusters.configured()) {
      List<String> unsynced = new ArrayList<>();
      if (!c.serviceInformer().hasSynced()) {
        unsynced.add("Services");
      }
      if (!c.nodeInformer().hasSynced()) {
        unsynced.add("Nodes");
      }
      if (!unsynced.isEmpty()) {
        what.add(
            "cluster " + c.name() + ": informers not synced (" + String.join(", ", unsynced) + ")");
      }
    }
    Cluster host = parts.host();
    if (host != null && !clusters.all().contains(host) && !host.serviceInformer().hasSynced()) {
      what.add("cluster " + host.name() + ": informers not synced (Services)");
    }
    return what.isEmpty() ? List.of("nothing left (it completed as the deadline passed)") : what;
  }

  /**
   * Each cluster's identity, the admin server and the informers' first lists at once (a cold start
   * waits for the slowest, not their sum); the reconcile workers before the watchers that send them
   * keys; then the federation, which needs the host's identity; then campaign or reconcile.
   */
  private Future<?> deploy(Runnable onLeaseLost) {
    // Clusters with load balancers and the federation's host need their identity to mark what
    // Pier makes; a member is probed and worked on only when it is reachable. Nothing reads an
    // identity before the workers start.
    List<Cluster> identified = new ArrayList<>(clusters.configured());
    if (parts.host() != null && !identified.contains(parts.host())) {
      identified.add(parts.host());
    }
    List<Future<?>> steps = new ArrayList<>();
    for (Cluster c : identified) {
      steps.add(
          awaiting(
                  "cluster " + c.name() + ": its identity (reading namespace kube-system)",
                  c.loadIdentity(vertx.getOrCreateContext()))
              .onSuccess(id -> log.info("Cluster {}", id)));
    }
    if (parts.adminPort() >= 0) {
      admin =
          new AdminServer(
              parts.adminHost(),
              parts.adminPort(),
              parts.registry(),
              this::ready,
              parts.deletionGuard()::detail,
              parts.metricsAuth(),
              parts.adminTls());
      steps.add(awaiting("the admin server", () -> vertx.deployVerticle(admin)));
    }
    Future<?> watching =
        awaiting("the reconcile workers", () -> vertx.deployVerticle(parts.reconciler()));
    for (Deployable watcher : parts.watchers()) {
      String name = "the " + watcher.getClass().getSimpleName() + " (its informers' first sync)";
      watching = watching.compose(v -> awaiting(name, () -> vertx.deployVerticle(watcher)));
    }
    steps.add(watching);
    Future<?> started = Future.all(steps);
    if (parts.federation() != null) {
      started =
          started.compose(
              v ->
                  awaiting(
                      "the federation controller", () -> vertx.deployVerticle(parts.federation())));
    }
    if (parts.scaleOut() != null) {
      return started.compose(
          v ->
              awaiting(
                  "scale-out to start campaigning for shards",
                  () ->
                      parts
                          .scaleOut()
                          .start(
                              new ShardHandover(
                                  vertx,
                                  () -> startReconciling(false),
                                  parts.federation() != null,
                                  parts.scaleOut().gates()::holds,
                                  () -> stopping))));
    }
    return started.compose(
        v ->
            election == null
                ? awaiting("the reconcile workers to start", () -> startReconciling(true))
                : awaiting(
                    "leader election to start (Lease "
                        + election.namespace()
                        + "/"
                        + election.leaseName()
                        + ")",
                    () -> election.start(leaderListener(onLeaseLost))));
  }

  private Future<Void> startReconciling(boolean withFederation) {
    return vertx
        .eventBus()
        .request(Addresses.RECONCILE_CONTROL, "start", Addresses.local())
        .compose(
            reply -> {
              // Only the process that reconciles sweeps orphans, and it deploys the sweeper once.
              OrphanSweeper sweeper = orphanSweeper;
              orphanSweeper = null;
              return sweeper == null
                  ? Future.succeededFuture(reply)
                  : vertx.deployVerticle(sweeper).map(reply);
            })
        .compose(
            reply ->
                parts.federation() == null || !withFederation
                    ? Future.succeededFuture(reply)
                    : vertx
                        .eventBus()
                        .request(Addresses.FEDERATION_CONTROL, "start", Addresses.local())
                        .map(reply))
        .map(
            reply -> {
              // The Lease may have been lost while the workers started.
              reconciling = election == null || leading || parts.scaleOut() != null;
              metrics.setLeader(reconciling);
              return null;
            });
  }

  private LeaderElection.Listener leaderListener(Runnable onLeaseLost) {
    return new LeaderElection.Listener() {
      @Override
      public void onStartLeading() {
        if (stopping) {
          return;
        }
        leading = true;
        log.info("Became the leader ({}): starting to reconcile", election.identity());
        startReconciling(true)
            .onFailure(
                e -> {
                  log.error(
                      "Could not start reconciling as the leader: {}; giving up the Lease and"
                          + " campaigning again",
                      e.getMessage());
                  election.resign();
                });
      }

      @Override
      public void onStopLeading() {
        if (stopping) {
          return;
        }
        log.warn(
            "Lost the Lease {}/{} as {}: stopped reconciling; load balancers keep serving;"
                + " campaigning again",
            election.namespace(),
            election.leaseName(),
            election.identity());
        loseLease(onLeaseLost);
      }

      @Override
      public void onCannotCampaign(Throwable cause) {
        if (stopping) {
          return;
        }
        log.error(
            "Leader election for Lease {}/{} cannot go on: {}; exiting so that the pod restarts",
            election.namespace(),
            election.leaseName(),
            cause.toString());
        loseLease(() -> {});
        exitCannotCampaign();
      }

      @Override
      public void onNewLeader(String identity) {
        if (identity != null && !identity.isEmpty() && !identity.equals(election.identity())) {
          log.info("The leader is {}; standing by", identity);
        }
      }
    };
  }

  private void loseLease(Runnable onLeaseLost) {
    reconciling = false;
    leading = false;
    metrics.setLeader(false);
    vertx.eventBus().request(Addresses.RECONCILE_CONTROL, "stop", Addresses.local());
    if (parts.federation() != null) {
      vertx.eventBus().request(Addresses.FEDERATION_CONTROL, "stop", Addresses.local());
    }
    onLeaseLost.run();
  }

  // Exits from a thread of its own: the shutdown hook needs the event loop this may be called on.
  private static void exitCannotCampaign() {
    Thread exit = new Thread(() -> System.exit(1), "pier-exit");
    exit.start();
  }

  /** Informers synced and, unless this process is a standby, workers running. */
  public boolean ready() {
    boolean standby =
        (election != null && !leading) || (parts.scaleOut() != null && parts.scaleOut().joined());
    return (standby || reconciling)
        // A member that joins through a Secret is not needed to be ready: it may be unreachable.
        && clusters.configured().stream().allMatch(Cluster::synced)
        && (parts.host() == null || parts.host().serviceInformer().hasSynced());
  }

  /** True while this process reconciles (always, without leader election). */
  public boolean reconciling() {
    return reconciling;
  }

  public Vertx vertx() {
    return vertx;
  }

  public Clusters clusters() {
    return clusters;
  }

  public PierMetrics metrics() {
    return metrics;
  }

  /** The admin server's port, or -1 when it is off. */
  public int adminPort() {
    return admin == null ? -1 : admin.actualPort();
  }

  /** Stops reconciling, closes listeners and clients. Load balancers stay as they are. */
  public Future<Void> stop() {
    log.info("Stopping");
    stopping = true;
    reconciling = false;
    Future<Void> released =
        parts.scaleOut() != null
            ? parts.scaleOut().stop()
            : election == null ? Future.succeededFuture() : election.stop();
    return released
        .otherwiseEmpty()
        .compose(
            v ->
                parts.dns() == null
                    ? Future.<Void>succeededFuture()
                    : parts.dns().close().otherwiseEmpty())
        .compose(v -> parts.provider().close())
        .otherwiseEmpty()
        .compose(
            v ->
                // Verticles stop (their timers and informers) before the clients they use close.
                Future.join(vertx.deploymentIDs().stream().map(vertx::undeploy).toList())
                    .otherwiseEmpty())
        .compose(
            v -> {
              parts.members().close();
              parts.connected().forEach(Cluster::close);
              return vertx.close();
            });
  }
}
