package dev.pier.leader;

import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.KubeApiException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the Leases of the shards this replica should own, one {@code coordination.k8s.io} Lease per
 * shard, and gives back those it should not: it renews what it holds every retry period, takes a
 * wanted shard whose Lease is free, released, or unchanged for a whole lease duration as this
 * replica observed it (the rule of client-go's leader election: no clock of another machine is
 * trusted), and releases a shard it no longer wants after its work was stopped. Runs on one Vert.x
 * context; its requests are non-blocking and each has a deadline.
 */
public final class ShardLeases {
  private static final Logger log = LoggerFactory.getLogger(ShardLeases.class);

  /** Told on the Leases' context as a shard is taken or lost; and of each Lease write. */
  public interface Listener {
    void onGained(int shard);

    void onLost(int shard);

    default void onLeaseWrite() {}
  }

  /**
   * Where the Leases live and their timing. {@code namePrefix} is also the name of the single Lease
   * of leader election: no shard is taken while a leader of that kind may still run (a rollout from
   * one leader to scale-out), that is until its Lease is gone, released, or unchanged for its lease
   * duration as this replica observed it.
   */
  public record Options(
      String namespace,
      String namePrefix,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod) {}

  private final Vertx vertx;
  private final Context context;
  private final AsyncKubeApi api;
  private final ShardGates gates;
  private final String identity;
  private final Options options;
  private final LongSupplier clock;
  private final Listener listener;
  private final Shard[] shards;
  private Set<Integer> wanted = Set.of();
  // The single Lease of leader election: until it is known free, no shard is taken.
  private boolean singleLeaderGone;
  private boolean checkingSingleLeader;
  private final Observation singleLeader = new Observation();
  private long timer = -1;
  private boolean stopped;

  /**
   * client-go's expiry rule for a Lease someone else holds: it expired when its resourceVersion
   * stayed as this replica first read it for the Lease's own duration; no other clock is trusted.
   */
  private static final class Observation {
    private String version;
    private long since;

    /** Records a read of the Lease; true when it is unchanged for {@code duration} since. */
    boolean unchangedFor(String read, Duration duration, long now) {
      if (!read.equals(version)) {
        version = read;
        since = now;
        return false;
      }
      return now - since >= duration.toNanos();
    }

    boolean seen() {
      return version != null;
    }

    /** Records a read of the Lease made elsewhere. */
    void record(String read, long now) {
      if (!read.equals(version)) {
        version = read;
        since = now;
      }
    }
  }

  private static final class Shard {
    final int number;
    // The Lease write or read in flight for this shard, if any: one at a time.
    Future<Void> step = Future.succeededFuture();
    JsonObject lease;
    final Observation observed = new Observation();

    Shard(int number) {
      this.number = number;
    }
  }

  public ShardLeases(
      Vertx vertx,
      Context context,
      AsyncKubeApi api,
      ShardGates gates,
      String identity,
      Options options,
      Listener listener) {
    this(vertx, context, api, gates, identity, options, listener, System::nanoTime);
  }

  ShardLeases(
      Vertx vertx,
      Context context,
      AsyncKubeApi api,
      ShardGates gates,
      String identity,
      Options options,
      Listener listener,
      LongSupplier clock) {
    this.vertx = vertx;
    this.context = context;
    this.api = api;
    this.gates = gates;
    this.identity = identity;
    this.options = options;
    this.listener = listener;
    this.clock = clock;
    this.shards = new Shard[gates.shards().count()];
    for (int i = 0; i < shards.length; i++) {
      shards[i] = new Shard(i);
    }
  }

  public String identity() {
    return identity;
  }

  /** The Lease name of a shard. */
  public String leaseName(int shard) {
    return options.namePrefix() + "-shard-" + shard;
  }

  /** Starts the renew and campaign loop. */
  public void start() {
    context.runOnContext(
        v -> {
          if (!stopped && timer < 0) {
            timer = vertx.setPeriodic(options.retryPeriod().toMillis(), t -> tick());
            tick();
          }
        });
  }

  /** The shards this replica should own from now on; the change is acted on at once. */
  public void want(Set<Integer> shards) {
    Set<Integer> copy = Set.copyOf(new TreeSet<>(shards));
    context.runOnContext(
        v -> {
          wanted = copy;
          if (!stopped) {
            tick();
          }
        });
  }

  /**
   * The resourceVersions of shard Leases read elsewhere (scale-out's list of Pier's Leases): each
   * is an observation of that Lease, so one left unchanged is known to be so from the list's time,
   * not only from this replica's first attempt to take it. Called on the Leases' context.
   */
  public void observed(Map<Integer, String> versions) {
    long now = clock.getAsLong();
    versions.forEach(
        (shard, version) -> {
          if (shard >= 0 && shard < shards.length && !version.isEmpty()) {
            shards[shard].observed.record(version, now);
          }
        });
  }

  /** The shards held now. */
  public Set<Integer> held() {
    Set<Integer> held = new TreeSet<>();
    for (int i = 0; i < shards.length; i++) {
      if (gates.holds(i)) {
        held.add(i);
      }
    }
    return held;
  }

  /** Stops the loop, stops the work of every shard held, and releases their Leases. */
  public Future<Void> stop() {
    return Future.<Void>future(
            p ->
                context.runOnContext(
                    v -> {
                      stopped = true;
                      if (timer >= 0) {
                        vertx.cancelTimer(timer);
                      }
                      // A shard's write in flight (a renewal, a take) goes first: a release
                      // beside it would carry the version before it and be refused.
                      List<Future<Void>> released = new ArrayList<>();
                      for (Shard s : shards) {
                        released.add(
                            s.step.transform(
                                ar ->
                                    gates.holds(s.number)
                                        ? release(s)
                                        : Future.<Void>succeededFuture()));
                      }
                      Future.join(released).onComplete(ar -> p.complete());
                    }))
        .timeout(options.renewDeadline().toMillis(), TimeUnit.MILLISECONDS)
        .otherwiseEmpty();
  }

  private void tick() {
    if (!singleLeaderGone) {
      checkSingleLeader();
    }
    for (Shard s : shards) {
      if (!s.step.isComplete()) {
        continue;
      }
      boolean want = wanted.contains(s.number);
      if (gates.holds(s.number)) {
        if (!gates.isOpen(s.number)) {
          lose(s, "its Lease was not renewed within scaleOut.renewDeadline");
        } else if (!want) {
          busy(s, release(s));
          continue;
        } else {
          busy(s, renew(s));
          continue;
        }
      }
      if (want && !stopped && singleLeaderGone) {
        busy(s, acquire(s));
      }
    }
  }

  private void busy(Shard s, Future<Void> step) {
    s.step = step;
    step.onComplete(
        ar -> {
          if (ar.failed()) {
            log.debug("Lease {}: {}", leaseName(s.number), ar.cause().toString());
          }
        });
  }

  private Future<Void> renew(Shard s) {
    long sent = clock.getAsLong();
    JsonObject lease = s.lease.copy();
    lease.getJsonObject("spec").put("renewTime", LeaseJson.now());
    return write(s, lease)
        .onSuccess(written -> gates.renewed(s.number, sent))
        .onFailure(
            e -> {
              if (KubeApiException.conflict(e)) {
                lose(s, "its Lease changed under this replica");
              }
            })
        .mapEmpty();
  }

  private Future<Void> acquire(Shard s) {
    long sent = clock.getAsLong();
    return api.get(context, path(s.number))
        .recover(
            e ->
                KubeApiException.notFound(e)
                    ? Future.succeededFuture(null)
                    : Future.failedFuture(e))
        .compose(
            current -> {
              if (current == null) {
                listener.onLeaseWrite();
                return api.post(context, collection(), newLease(s.number))
                    .map(created -> took(s, created, sent));
              }
              JsonObject spec = current.getJsonObject("spec", new JsonObject());
              String holder = spec.getString("holderIdentity", "");
              String version = current.getJsonObject("metadata").getString("resourceVersion");
              boolean free = holder.isEmpty() || holder.equals(identity);
              if (!free
                  && !s.observed.unchangedFor(
                      version, leaseDuration(spec, options.leaseDuration()), clock.getAsLong())) {
                return Future.succeededFuture();
              }
              JsonObject taken = current.copy();
              JsonObject takenSpec = taken.getJsonObject("spec", new JsonObject());
              String time = LeaseJson.now();
              takenSpec
                  .put("holderIdentity", identity)
                  .put("leaseDurationSeconds", options.leaseDuration().toSeconds())
                  .put("renewTime", time);
              if (!holder.equals(identity)) {
                takenSpec
                    .put("acquireTime", time)
                    .put("leaseTransitions", takenSpec.getInteger("leaseTransitions", 0) + 1);
              }
              taken.put("spec", takenSpec);
              return write(s, taken).map(written -> took(s, written, sent));
            })
        .mapEmpty();
  }

  /** Whether a leader of the single Lease may still run; once it is known gone, it stays so. */
  private void checkSingleLeader() {
    if (checkingSingleLeader) {
      return;
    }
    checkingSingleLeader = true;
    api.get(context, collection() + "/" + options.namePrefix())
        .onComplete(
            ar -> {
              checkingSingleLeader = false;
              if (ar.failed()) {
                if (KubeApiException.notFound(ar.cause())) {
                  singleLeaderGone();
                }
                return;
              }
              JsonObject spec = ar.result().getJsonObject("spec", new JsonObject());
              String version = ar.result().getJsonObject("metadata").getString("resourceVersion");
              boolean first = !singleLeader.seen();
              if (spec.getString("holderIdentity", "").isEmpty()
                  || singleLeader.unchangedFor(
                      version, leaseDuration(spec, Duration.ofSeconds(15)), clock.getAsLong())) {
                singleLeaderGone();
              } else if (first) {
                log.info(
                    "The Lease {} of a single leader is held by {}: taking no shard until it is"
                        + " released or expires",
                    options.namePrefix(),
                    spec.getString("holderIdentity"));
              }
            });
  }

  private void singleLeaderGone() {
    if (!singleLeaderGone) {
      singleLeaderGone = true;
      if (singleLeader.seen()) {
        log.info("The single leader's Lease {} is free: taking shards", options.namePrefix());
      }
      tick();
    }
  }

  /** The duration a Lease's holder wrote into it, else {@code otherwise}. */
  private static Duration leaseDuration(JsonObject spec, Duration otherwise) {
    return Duration.ofSeconds(spec.getLong("leaseDurationSeconds", otherwise.toSeconds()));
  }

  private Void took(Shard s, JsonObject lease, long sent) {
    s.lease = lease;
    if (stopped || !wanted.contains(s.number)) {
      // Wanted no more while the request was out: give it back at once, having done nothing.
      busy(s, release(s));
      return null;
    }
    gates.took(s.number, sent);
    log.info("Took the Lease {} as {}", leaseName(s.number), identity);
    listener.onGained(s.number);
    return null;
  }

  private void lose(Shard s, String why) {
    if (gates.holds(s.number)) {
      gates.lost(s.number);
      log.warn("Lost shard {} ({}): {}", s.number, leaseName(s.number), why);
      listener.onLost(s.number);
    }
  }

  /** Stops the shard's work first, then writes the Lease free, so a new owner takes it at once. */
  private Future<Void> release(Shard s) {
    boolean wasHeld = gates.holds(s.number);
    if (wasHeld) {
      gates.lost(s.number);
      listener.onLost(s.number);
    }
    if (s.lease == null) {
      return Future.succeededFuture();
    }
    JsonObject free = s.lease.copy();
    free.getJsonObject("spec")
        .put("holderIdentity", "")
        .put("leaseDurationSeconds", 1)
        .put("renewTime", LeaseJson.now());
    return write(s, free)
        .onSuccess(
            v -> {
              s.lease = null;
              log.info("Released the Lease {}", leaseName(s.number));
            })
        .mapEmpty();
  }

  private Future<JsonObject> write(Shard s, JsonObject lease) {
    listener.onLeaseWrite();
    return api.put(context, path(s.number), lease).onSuccess(written -> s.lease = written);
  }

  private JsonObject newLease(int shard) {
    JsonObject lease =
        LeaseJson.held(
            leaseName(shard), options.namespace(), identity, options.leaseDuration().toSeconds());
    lease
        .getJsonObject("metadata")
        .getJsonObject("labels")
        .put("pier.dev/shard", Integer.toString(shard));
    lease.getJsonObject("spec").put("leaseTransitions", 0);
    return lease;
  }

  private String collection() {
    return LeaseJson.collection(options.namespace());
  }

  private String path(int shard) {
    return collection() + "/" + leaseName(shard);
  }
}
