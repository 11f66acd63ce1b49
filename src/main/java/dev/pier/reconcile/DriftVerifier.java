package dev.pier.reconcile;

import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Submits the periodic verification of every load balancer Pier serves, spread evenly over the
 * period: one key per tick, in rounds, the first tick at a random offset so that replicas and
 * restarts do not line up. One key per tick is also the rate limit: a provider sees at most one
 * verification per {@code period / Services}, and never more than {@link #MAX_PER_SECOND} a second.
 * Runs on the reconcile verticle's context.
 */
final class DriftVerifier {
  static final int MAX_PER_SECOND = 100;

  private final Vertx vertx;
  private final Duration period;
  private final Supplier<List<ServiceKey>> served;
  private final Consumer<ServiceKey> submit;
  private final ArrayDeque<ServiceKey> round = new ArrayDeque<>();
  private int roundSize;
  private long timer = -1;

  /**
   * @param period how long one round over every served load balancer takes; zero: off
   * @param served the keys of the load balancers Pier serves now, read at the start of each round
   * @param submit queues a verification of one key
   */
  DriftVerifier(
      Vertx vertx,
      Duration period,
      Supplier<List<ServiceKey>> served,
      Consumer<ServiceKey> submit) {
    this.vertx = vertx;
    this.period = period;
    this.served = served;
    this.submit = submit;
  }

  void start() {
    if (period.isZero() || timer >= 0) {
      return;
    }
    long first = ThreadLocalRandom.current().nextLong(tickMillis(period, served.get().size()));
    timer = vertx.setTimer(Math.max(1, first), t -> tick());
  }

  void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void tick() {
    if (round.isEmpty()) {
      round.addAll(served.get());
      roundSize = round.size();
    }
    ServiceKey next = round.poll();
    if (next != null) {
      submit.accept(next);
    }
    timer = vertx.setTimer(tickMillis(period, roundSize), t -> tick());
  }

  /** The time between two verifications: the period spread over the keys, within the rate cap. */
  static long tickMillis(Duration period, int keys) {
    return Math.max(1000 / MAX_PER_SECOND, period.toMillis() / Math.max(1, keys));
  }
}
