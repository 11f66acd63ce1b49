package dev.pier;

import dev.pier.leader.ShardLeases;
import dev.pier.model.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Under scale-out, tells this replica's workers (the reconcile workers, and the federation where
 * there is one) of each shard it takes and loses. The workers start with the first shard taken. The
 * tellings go in the order the shards came and went, each once the workers started, and a taking is
 * told only while the shard is still held: a worker told of a taking after the loss that undid it
 * would serve a shard another replica holds (the federation would answer reads of that member's
 * copies, and refuse them, for good).
 */
final class ShardHandover implements ShardLeases.Listener {
  private static final Logger log = LoggerFactory.getLogger(ShardHandover.class);

  private final Vertx vertx;
  private final Supplier<Future<Void>> startWorkers;
  // The control addresses of the workers told: the reconcile workers', and the federation's.
  private final List<String> controls;
  private final IntPredicate holds;
  private final BooleanSupplier stopping;
  private Future<Void> workers;

  /** Completes once every telling so far went; the next telling goes after it. */
  private Future<Void> told = Future.succeededFuture();

  /**
   * @param startWorkers starts the reconcile workers; called with the first shard taken, and again
   *     with the next one after a start failed
   * @param federation whether the federation hears of the shards too
   * @param holds whether this replica holds a shard now
   */
  ShardHandover(
      Vertx vertx,
      Supplier<Future<Void>> startWorkers,
      boolean federation,
      IntPredicate holds,
      BooleanSupplier stopping) {
    this.vertx = vertx;
    this.startWorkers = startWorkers;
    this.controls =
        federation
            ? List.of(Addresses.RECONCILE_CONTROL, Addresses.FEDERATION_CONTROL)
            : List.of(Addresses.RECONCILE_CONTROL);
    this.holds = holds;
    this.stopping = stopping;
  }

  @Override
  public void onGained(int shard) {
    if (stopping.getAsBoolean()) {
      return;
    }
    if (workers == null) {
      Future<Void> starting = startWorkers.get();
      workers = starting;
      starting.onFailure(
          e -> {
            log.error(
                "Could not start reconciling for shard {}: {}; trying again with the next shard"
                    + " taken",
                shard,
                e.getMessage());
            workers = null;
          });
    }
    Future<Void> started = workers;
    told =
        told.transform(
            previous ->
                started.transform(
                    ar -> {
                      if (ar.succeeded() && holds.test(shard)) {
                        tell(Addresses.SHARDS_GAINED, shard);
                      }
                      return Future.succeededFuture();
                    }));
  }

  @Override
  public void onLost(int shard) {
    if (stopping.getAsBoolean()) {
      return;
    }
    told =
        told.transform(
            previous -> {
              tell(Addresses.SHARDS_LOST, shard);
              return Future.succeededFuture();
            });
  }

  private void tell(String change, int shard) {
    for (String address : controls) {
      vertx
          .eventBus()
          .request(
              address,
              change,
              Addresses.local().addHeader(Addresses.SHARD, Integer.toString(shard)));
    }
  }
}
