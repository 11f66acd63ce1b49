package dev.pier.scaleout;

import dev.pier.config.Durations;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.leader.ReplicaLease;
import dev.pier.leader.ShardGates;
import dev.pier.leader.ShardLeases;
import dev.pier.shards.LeaseSightings;
import dev.pier.shards.ReplicaProofs;
import dev.pier.shards.ReplySeal;
import dev.pier.shards.ScaleOutOptions;
import dev.pier.shards.ShardHolders;
import dev.pier.shards.ShardMap;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.spi.cluster.ClusterManager;
import io.vertx.core.spi.cluster.NodeListener;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's part in scale-out: it proves it is one of Pier's replicas by renewing a Lease of
 * its own ({@link ReplicaLease}), follows the cluster's members (the cluster manager's member list
 * under the clustered event bus) and which of them proved the same ({@link ReplicaProofs}), wants
 * the shards rendezvous hashing gives it among the proven ones and any shard whose Lease was
 * abandoned, and holds their Leases ({@link ShardLeases}); Pier is told of each shard taken or
 * lost. docs/scale-out.md.
 */
public final class ScaleOut {
  private static final Logger log = LoggerFactory.getLogger(ScaleOut.class);
  // Lease durations after which a replica Lease nobody renewed is deleted.
  private static final int STALE_REPLICA_LEASES = 10;

  private final Vertx vertx;
  private final ClusterManager members;
  private final ShardGates gates;
  private final ScaleOutOptions options;
  private final AsyncKubeApi api;
  private final String leaseNamespace;
  private final String leasePrefix;
  private final String identity;
  private final ShardHolders holders;
  private final MeterRegistry registry;
  private final LongSupplier clock = System::nanoTime;
  // What this replica saw of the replica Leases (by name) and the shard Leases (by shard).
  private final LeaseSightings<String> replicaLeases = new LeaseSightings<>();
  private final LeaseSightings<Integer> shardLeases = new LeaseSightings<>();
  // Shards taken because their Lease was abandoned, kept until the proven replicas change.
  private final Set<Integer> rescued = new TreeSet<>();
  // Shards whose Lease (or its absence) the last successful read showed unchanged for a lease
  // duration.
  private Set<Integer> abandoned = Set.of();
  private Set<String> lastProven = Set.of();
  private Set<String> lastUnproven = Set.of();
  private Set<Integer> lastWanted;
  private Context context;
  private ShardLeases leases;
  private ReplicaLease own;
  private long timer = -1;
  private boolean ticking;
  private boolean stopped;
  private volatile boolean joined;
  private volatile int replicas;
  private volatile int unproven;

  public ScaleOut(
      Vertx vertx,
      ClusterManager members,
      ShardGates gates,
      ScaleOutOptions options,
      AsyncKubeApi api,
      String leaseNamespace,
      String leasePrefix,
      String identity,
      MeterRegistry registry) {
    this.vertx = vertx;
    this.members = members;
    this.gates = gates;
    this.options = options;
    this.api = api;
    this.leaseNamespace = leaseNamespace;
    this.leasePrefix = leasePrefix;
    this.identity = identity;
    this.holders = new ShardHolders(identity, ReplySeal.newKey());
    this.registry = registry;
  }

  /**
   * Who holds each shard as this replica last read the Leases, and this replica's reply key: what
   * answers between replicas are sealed and checked with.
   */
  public ShardHolders holders() {
    return holders;
  }

  public ShardGates gates() {
    return gates;
  }

  /** The identity this replica writes into the Leases it holds. */
  public String identity() {
    return identity;
  }

  /** Joined and campaigning: holding its shards, or waiting for them. */
  public boolean joined() {
    return joined;
  }

  /**
   * Writes this replica's own Lease, then starts following the member list and the Leases and
   * campaigning; {@code listener} hears of each shard. Fails, naming the Lease and the permissions,
   * when the replica cannot write its Lease.
   */
  public Future<Void> start(ShardLeases.Listener listener) {
    context = vertx.getOrCreateContext();
    Counter gained = moves("gained");
    Counter lost = moves("lost");
    Counter writes =
        Counter.builder("pier.shard.lease.writes")
            .description("Shard Lease writes (creations, renewals, takeovers, releases)")
            .register(registry);
    leases =
        new ShardLeases(
            vertx,
            context,
            api,
            gates,
            identity,
            new ShardLeases.Options(
                leaseNamespace,
                leasePrefix,
                options.leaseDuration(),
                options.renewDeadline(),
                options.retryPeriod()),
            new ShardLeases.Listener() {
              @Override
              public void onGained(int shard) {
                gained.increment();
                listener.onGained(shard);
              }

              @Override
              public void onLost(int shard) {
                lost.increment();
                listener.onLost(shard);
              }

              @Override
              public void onLeaseWrite() {
                writes.increment();
              }
            });
    own =
        new ReplicaLease(
            context,
            api,
            leaseNamespace,
            leasePrefix,
            members.getNodeId(),
            identity,
            holders.key(),
            options.leaseDuration().toSeconds());
    Gauge.builder("pier.shards.owned", () -> leases.held().size())
        .description("Shards whose Lease this replica holds")
        .tag("replica", identity)
        .register(registry);
    Gauge.builder("pier.scale.out.replicas", () -> replicas)
        .description(
            "Live replicas in this replica's member list that proved they are Pier's (a fresh"
                + " replica Lease)")
        .register(registry);
    Gauge.builder("pier.scale.out.unproven.members", () -> unproven)
        .description("Cluster members without a fresh replica Lease: they get no shards")
        .register(registry);
    members.nodeListener(
        new NodeListener() {
          @Override
          public void nodeAdded(String nodeId) {
            log.info("Cluster member {} joined", nodeId);
            context.runOnContext(v -> rebalance());
          }

          @Override
          public void nodeLeft(String nodeId) {
            log.info("Cluster member {} left", nodeId);
            context.runOnContext(v -> rebalance());
          }
        });
    return Future.<Void>future(p -> context.runOnContext(v -> p.complete()))
        .compose(
            v ->
                own.renew()
                    .recover(
                        e ->
                            Future.failedFuture(
                                new IllegalStateException(
                                    "could not write this replica's Lease "
                                        + leaseNamespace
                                        + "/"
                                        + own.name()
                                        + " (Pier's ServiceAccount needs create, update, list and"
                                        + " delete on leases there: k8s/scale-out.yaml): "
                                        + e.getMessage(),
                                    e))))
        .compose(v -> readAndRebalance())
        .onSuccess(
            v -> {
              if (stopped) {
                return;
              }
              leases.start();
              timer = vertx.setPeriodic(options.retryPeriod().toMillis(), t -> tick());
              joined = true;
              log.info(
                  "Scale-out: replica {} (node {}) joined; {} shards, Leases {}/{}-shard-N and its"
                      + " own {}; a dead replica's shards have a new owner within {}",
                  identity,
                  members.getNodeId(),
                  gates.shards().count(),
                  leaseNamespace,
                  leasePrefix,
                  own.name(),
                  Durations.format(options.ownerlessBound()));
            });
  }

  /**
   * Stops the work of every shard held and releases their Leases, so others take them at once, then
   * deletes this replica's own Lease.
   */
  public Future<Void> stop() {
    joined = false;
    if (leases == null) {
      return Future.succeededFuture();
    }
    return Future.<Void>future(
            p ->
                context.runOnContext(
                    v -> {
                      stopped = true;
                      if (timer >= 0) {
                        vertx.cancelTimer(timer);
                      }
                      p.complete();
                    }))
        .compose(v -> leases.stop())
        .compose(
            v ->
                own.delete()
                    .timeout(options.renewDeadline().toMillis(), TimeUnit.MILLISECONDS)
                    .onFailure(
                        e ->
                            log.warn("Could not delete the Lease {}: {}", own.name(), e.toString()))
                    .otherwiseEmpty());
  }

  /** Renews this replica's Lease, then reads every Pier Lease and rebalances; one at a time. */
  private void tick() {
    if (ticking || stopped) {
      return;
    }
    ticking = true;
    own.renew()
        .onFailure(e -> log.debug("Lease {}: {}", own.name(), e.toString()))
        .transform(ar -> readAndRebalance())
        .onComplete(ar -> ticking = false);
  }

  private Future<Void> readAndRebalance() {
    return own.read()
        .transform(
            ar -> {
              if (ar.succeeded()) {
                long now = clock.getAsLong();
                replicaLeases.update(ar.result().replicas(), now);
                deleteStaleReplicaLeases(now);
                Map<Integer, LeaseSightings.Read> shardReads = new HashMap<>();
                Map<Integer, String> versions = new HashMap<>();
                for (int shard = 0; shard < gates.shards().count(); shard++) {
                  LeaseSightings.Read read =
                      ar.result().shards().getOrDefault(shard, LeaseSightings.Read.MISSING);
                  shardReads.put(shard, read);
                  versions.put(shard, read.version());
                }
                shardLeases.update(shardReads, now);
                Map<Integer, String> holderOf = new HashMap<>();
                shardReads.forEach((shard, read) -> holderOf.put(shard, read.holder()));
                holders.update(holderOf, ar.result().replyKeys());
                leases.observed(versions);
                // Twice the lease duration: the replica the shard is assigned to takes an expired
                // Lease
                // after one, and it must win that race, or the rescuer keeps more than its share
                // until the proven members change.
                abandoned = shardLeases.unchangedFor(options.leaseDuration().multipliedBy(2), now);
              } else {
                // What was seen before this failed read is too old to call a Lease abandoned.
                abandoned = Set.of();
                log.debug("Reading the Leases of {}: {}", leaseNamespace, ar.cause().toString());
              }
              rebalance();
              return Future.<Void>succeededFuture();
            });
  }

  /**
   * Deletes the replica Leases seen unchanged for ten lease durations: their replicas died without
   * deleting them (a stopped replica does). Only shard 0's owner does, with its gate open right
   * before the request, and only the version it read: a replica that renews meanwhile keeps its
   * Lease, and a live replica whose Lease went anyway writes it again on its next renewal.
   */
  private void deleteStaleReplicaLeases(long now) {
    Duration stale = options.leaseDuration().multipliedBy(STALE_REPLICA_LEASES);
    for (String name : replicaLeases.unchangedFor(stale, now)) {
      LeaseSightings.Read read = replicaLeases.last(name);
      if (name.equals(own.name()) || read == null || read.version().isEmpty()) {
        continue;
      }
      if (!gates.isOpen(ShardMap.CLUSTER_WIDE)) {
        return;
      }
      own.deleteStale(name, read.version())
          .onSuccess(v -> log.info("Deleted the replica Lease {}, unrenewed for {}", name, stale))
          .onFailure(e -> log.debug("Deleting the stale Lease {}: {}", name, e.toString()));
    }
  }

  /**
   * Wants this replica's share of the shards among the proven live members, and any shard whose
   * Lease was free or unrenewed for a lease duration. On the Leases' context.
   */
  private void rebalance() {
    if (stopped || leases == null) {
      return;
    }
    long now = clock.getAsLong();
    String self = members.getNodeId();
    List<String> live = members.getNodes();
    Set<String> proven =
        ReplicaProofs.proven(
            self,
            own.writtenWithin(options.leaseDuration().toNanos()),
            live,
            replicaLeases,
            options.leaseDuration(),
            now);
    if (!proven.equals(lastProven)) {
      // The assignment changed: a rescued shard goes back to whoever it is assigned to now.
      rescued.clear();
      lastProven = proven;
    }
    Set<String> unprovenMembers = new TreeSet<>(live);
    unprovenMembers.removeAll(proven);
    if (!unprovenMembers.equals(lastUnproven) || proven.size() != replicas) {
      if (unprovenMembers.isEmpty()) {
        log.info("{} member(s), all proven replicas", live.size());
      } else {
        log.warn(
            "{} member(s), {} proven replica(s); without a fresh replica Lease, so given no"
                + " shards: {}",
            live.size(),
            proven.size(),
            unprovenMembers);
      }
      lastUnproven = unprovenMembers;
    }
    Set<Integer> assigned = ReplicaProofs.wanted(self, proven, gates.shards(), Set.of());
    Set<Integer> rescue = proven.contains(self) ? abandoned : Set.of();
    Set<Integer> keep = new TreeSet<>(leases.held());
    keep.addAll(rescue);
    rescued.retainAll(keep);
    for (int shard : rescue) {
      if (!assigned.contains(shard) && rescued.add(shard)) {
        log.info(
            "Shard {}'s Lease was free or unrenewed for twice scaleOut.leaseDuration ({}):"
                + " taking it, whatever the assignment says",
            shard,
            Durations.format(options.leaseDuration().multipliedBy(2)));
      }
    }
    Set<Integer> wanted = ReplicaProofs.wanted(self, proven, gates.shards(), rescued);
    replicas = proven.size();
    unproven = unprovenMembers.size();
    if (!wanted.equals(lastWanted)) {
      log.info(
          "{} proven replica(s) live: this one wants {} of {} shards{}",
          proven.size(),
          wanted.size(),
          gates.shards().count(),
          rescued.isEmpty() ? "" : " (rescued " + rescued + ")");
      lastWanted = wanted;
    }
    leases.want(wanted);
  }

  private Counter moves(String change) {
    return Counter.builder("pier.shard.moves")
        .description("Shards this replica took or lost")
        .tag("change", change)
        .register(registry);
  }
}
