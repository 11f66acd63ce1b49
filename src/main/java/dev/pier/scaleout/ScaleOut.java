package dev.pier.scaleout;

import dev.pier.config.Durations;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.leader.ShardGates;
import dev.pier.leader.ShardLeases;
import dev.pier.shards.Rendezvous;
import dev.pier.shards.ScaleOutOptions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.spi.cluster.ClusterManager;
import io.vertx.core.spi.cluster.NodeListener;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's part in scale-out: it follows the live replicas (the Hazelcast member list under
 * the clustered event bus), wants the shards rendezvous hashing gives it among them, and holds
 * their Leases ({@link ShardLeases}); Pier is told of each shard taken or lost. docs/scale-out.md.
 */
public final class ScaleOut {
  private static final Logger log = LoggerFactory.getLogger(ScaleOut.class);

  private final Vertx vertx;
  private final ClusterManager members;
  private final ShardGates gates;
  private final ScaleOutOptions options;
  private final AsyncKubeApi api;
  private final String leaseNamespace;
  private final String leasePrefix;
  private final String identity;
  private final MeterRegistry registry;
  private ShardLeases leases;
  private volatile boolean joined;
  private volatile int replicas;

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
    this.registry = registry;
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

  /** Starts following the member list and campaigning; {@code listener} hears of each shard. */
  public Future<Void> start(ShardLeases.Listener listener) {
    Context context = vertx.getOrCreateContext();
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
    Gauge.builder("pier.shards.owned", () -> leases.held().size())
        .description("Shards whose Lease this replica holds")
        .tag("replica", identity)
        .register(registry);
    Gauge.builder("pier.scale.out.replicas", () -> replicas)
        .description("Live replicas in this replica's member list")
        .register(registry);
    members.nodeListener(
        new NodeListener() {
          @Override
          public void nodeAdded(String nodeId) {
            log.info("Replica {} joined", nodeId);
            rebalance();
          }

          @Override
          public void nodeLeft(String nodeId) {
            log.info("Replica {} left", nodeId);
            rebalance();
          }
        });
    rebalance();
    leases.start();
    joined = true;
    log.info(
        "Scale-out: replica {} (node {}) joined; {} shards, Leases {}/{}-shard-N; a dead replica's"
            + " shards have a new owner within {}",
        identity,
        members.getNodeId(),
        gates.shards().count(),
        leaseNamespace,
        leasePrefix,
        Durations.format(options.ownerlessBound()));
    return Future.succeededFuture();
  }

  /** Stops the work of every shard held and releases their Leases, so others take them at once. */
  public Future<Void> stop() {
    joined = false;
    return leases == null ? Future.succeededFuture() : leases.stop();
  }

  private void rebalance() {
    List<String> live = members.getNodes();
    replicas = live.size();
    Set<Integer> mine = Rendezvous.shardsOf(members.getNodeId(), live, gates.shards());
    log.info(
        "{} replica(s) live: this one wants {} of {} shards",
        live.size(),
        mine.size(),
        gates.shards().count());
    leases.want(mine);
  }

  private Counter moves(String change) {
    return Counter.builder("pier.shard.moves")
        .description("Shards this replica took or lost")
        .tag("change", change)
        .register(registry);
  }
}
