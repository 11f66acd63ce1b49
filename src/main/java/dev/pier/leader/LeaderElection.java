package dev.pier.leader;

import dev.pier.config.Durations;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectorBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Campaigns for a coordination.k8s.io Lease with fabric8's {@link LeaderElector}, for as long as
 * the process runs: a lost Lease ends one campaign (fabric8's electors run once) and a new one
 * starts after the retry period. The elector's blocking API calls run on a thread of their own; its
 * callbacks hop onto the given Vert.x context, so listeners may touch verticle state. The {@link
 * LeaderGate} follows the Lease without a hop: it closes the moment the Lease is lost, or when no
 * renewal succeeded for the renew deadline, whichever comes first.
 *
 * <p>Campaigning is given up ({@link Listener#onCannotCampaign}) only when it cannot go on: an
 * elector cannot be started, or {@value #MAX_FAILED_CAMPAIGNS} campaigns in a row failed (ended
 * with an error, stalled, or were resigned because the leader could not start its work). A campaign
 * stalls when fabric8's loop dies on an unexpected error (a Lease it cannot read, such as one
 * without {@code leaseDurationSeconds}): it logs the error and never tries again nor completes, so
 * a watchdog ends a campaign that made no attempt for the lease duration plus three retry periods.
 * A Lease lost to an unreachable API server or to another holder is not a failure: it is the
 * election working.
 */
public final class LeaderElection {
  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

  /** Consecutive failed campaigns after which campaigning is given up. */
  public static final int MAX_FAILED_CAMPAIGNS = 5;

  /** What happens on the Vert.x context when this process gains or loses the lease. */
  public interface Listener {
    void onStartLeading();

    void onStopLeading();

    default void onNewLeader(String identity) {}

    /** Campaigning stopped for good: the process cannot lead again without a restart. */
    default void onCannotCampaign(Throwable cause) {}
  }

  private final KubernetesClient client;
  private final LeaderElectionOptions options;
  private final String namespace;
  private final Context context;
  private final LeaderGate gate;
  private final ScheduledThreadPoolExecutor executor;
  private Listener listener;
  // Guarded by this: the current campaign.
  private LeaderElector elector;
  private CompletableFuture<?> running;
  private boolean resigned;
  private boolean stalled;
  // Only touched on the election's thread.
  private int failedCampaigns;
  // The watchdog's view of the current campaign: when it last touched the Lease, and calls open.
  private volatile long lastAttempt = System.nanoTime();
  private final AtomicInteger attemptsInFlight = new AtomicInteger();
  private final long stallLimitNanos;
  private volatile boolean stopping;

  public LeaderElection(
      KubernetesClient client, LeaderElectionOptions options, Context context, LeaderGate gate) {
    this.client = client;
    this.options = options;
    this.namespace =
        options.getNamespace().isEmpty() ? client.getNamespace() : options.getNamespace();
    this.context = context;
    this.gate = gate;
    this.stallLimitNanos =
        options.getLeaseDuration().plus(options.getRetryPeriod().multipliedBy(3)).toNanos();
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "pier-leader-election");
              t.setDaemon(true);
              return t;
            });
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** {@code $POD_NAME} (else {@code $HOSTNAME}, else the host name) plus the process id. */
  public static String defaultIdentity() {
    String name = System.getenv("POD_NAME");
    if (name == null || name.isBlank()) {
      name = System.getenv("HOSTNAME");
    }
    if (name == null || name.isBlank()) {
      try {
        name = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        name = "pier";
      }
    }
    return name + "_" + ProcessHandle.current().pid();
  }

  public String namespace() {
    return namespace;
  }

  public String leaseName() {
    return options.getLeaseName();
  }

  public String identity() {
    return options.getIdentity();
  }

  public LeaderGate gate() {
    return gate;
  }

  /**
   * Starts campaigning; completes at once (fails only when the first campaign cannot start),
   * leadership is reported to the listener.
   */
  public Future<Void> start(Listener listener) {
    this.listener = listener;
    log.info(
        "Leader election on Lease {}/{} as {} (lease {}, renew deadline {}, retry {})",
        namespace,
        options.getLeaseName(),
        options.getIdentity(),
        Durations.format(options.getLeaseDuration()),
        Durations.format(options.getRenewDeadline()),
        Durations.format(options.getRetryPeriod()));
    try {
      campaign();
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    long check = options.getRetryPeriod().toMillis();
    executor.scheduleWithFixedDelay(this::watch, check, check, TimeUnit.MILLISECONDS);
    return Future.succeededFuture();
  }

  /** Ends the current campaign when it stopped touching the Lease (its loop died). */
  private void watch() {
    CompletableFuture<?> campaign;
    synchronized (this) {
      if (stopping
          || running == null
          || running.isDone()
          || attemptsInFlight.get() > 0
          || System.nanoTime() - lastAttempt < stallLimitNanos) {
        return;
      }
      stalled = true;
      campaign = running;
    }
    log.warn(
        "Campaign for Lease {}/{} made no attempt for {}: ending it",
        namespace,
        options.getLeaseName(),
        Durations.format(Duration.ofNanos(stallLimitNanos)));
    gate.close();
    campaign.cancel(true);
  }

  /** Starts one campaign with a new elector: fabric8's electors may be started only once. */
  private void campaign() {
    LeaderElector next;
    CompletableFuture<?> campaign;
    synchronized (this) {
      if (stopping) {
        return;
      }
      next = elector(callbacks());
      lastAttempt = System.nanoTime();
      campaign = next.start();
      elector = next;
      running = campaign;
      resigned = false;
      stalled = false;
    }
    campaign.whenComplete((v, e) -> onElectionThread(() -> ended(next, e)));
  }

  private LeaderCallbacks callbacks() {
    return new LeaderCallbacks(
        () -> {
          gate.lead();
          context.runOnContext(v -> listener.onStartLeading());
        },
        () -> {
          gate.close();
          if (!stopping) {
            context.runOnContext(v -> listener.onStopLeading());
          }
        },
        leader -> context.runOnContext(v -> listener.onNewLeader(leader)));
  }

  private LeaderElector elector(LeaderCallbacks callbacks) {
    return new LeaderElectorBuilder(client, executor)
        .withConfig(
            new LeaderElectionConfigBuilder()
                .withName(options.getLeaseName())
                .withLock(
                    new RenewalRecordingLock(
                        new LeaseLock(namespace, options.getLeaseName(), options.getIdentity())))
                .withLeaseDuration(options.getLeaseDuration())
                .withRenewDeadline(options.getRenewDeadline())
                .withRetryPeriod(options.getRetryPeriod())
                .withLeaderCallbacks(callbacks)
                .build())
        .build();
  }

  /** A campaign ended: count it, then campaign again after the retry period or give up. */
  private void ended(LeaderElector which, Throwable error) {
    boolean wasResigned;
    boolean wasStalled;
    synchronized (this) {
      if (stopping || which != elector) {
        return;
      }
      wasResigned = resigned;
      wasStalled = stalled;
    }
    gate.close();
    Throwable cause = null;
    if (wasStalled) {
      cause = new IllegalStateException("the campaign stopped trying (its loop ended on an error)");
    } else if (wasResigned) {
      cause = new IllegalStateException("resigned: the leader could not start its work");
    } else if (error != null && !(error instanceof CancellationException)) {
      cause = error;
    }
    if (cause == null) {
      failedCampaigns = 0;
      log.info(
          "Campaigning again for Lease {}/{} in {}",
          namespace,
          options.getLeaseName(),
          Durations.format(options.getRetryPeriod()));
    } else {
      failedCampaigns++;
      log.warn(
          "Campaign for Lease {}/{} failed ({} of {} in a row): {}",
          namespace,
          options.getLeaseName(),
          failedCampaigns,
          MAX_FAILED_CAMPAIGNS,
          cause.toString());
      if (failedCampaigns >= MAX_FAILED_CAMPAIGNS) {
        cannotCampaign(cause);
        return;
      }
    }
    schedule(this::campaignAgain, options.getRetryPeriod().toMillis());
  }

  private void campaignAgain() {
    try {
      campaign();
    } catch (RuntimeException e) {
      log.error(
          "Cannot start campaigning for Lease {}/{}: {}",
          namespace,
          options.getLeaseName(),
          e.toString());
      cannotCampaign(e);
    }
  }

  private void cannotCampaign(Throwable cause) {
    gate.close();
    if (!stopping) {
      context.runOnContext(v -> listener.onCannotCampaign(cause));
    }
  }

  /**
   * Gives up the Lease (this process leads but cannot do its work): releases it so that a standby
   * takes over at once, and campaigns again after the retry period. Counts as a failed campaign.
   */
  public void resign() {
    onElectionThread(
        () -> {
          LeaderElector current;
          CompletableFuture<?> campaign;
          synchronized (this) {
            if (stopping || running == null) {
              return;
            }
            resigned = true;
            current = elector;
            campaign = running;
          }
          gate.close();
          campaign.cancel(true);
          release(current);
        });
  }

  /**
   * Stops campaigning and, if this process leads, releases the Lease so that a standby takes over
   * at once instead of after the lease duration. Completes within the renew deadline at most.
   */
  public Future<Void> stop() {
    LeaderElector current;
    CompletableFuture<?> campaign;
    synchronized (this) {
      stopping = true;
      current = elector;
      campaign = running;
    }
    gate.close();
    if (campaign == null) {
      executor.shutdown();
      return Future.succeededFuture();
    }
    // Completed from the election's own thread (or the deadline's), with no Vert.x context: the
    // caller may be closing Vert.x next.
    Promise<Void> done = Promise.promise();
    context.owner().setTimer(options.getRenewDeadline().toMillis(), t -> done.tryComplete());
    onElectionThread(
        () -> {
          try {
            campaign.cancel(true);
            release(current);
          } finally {
            done.tryComplete();
          }
        });
    executor.shutdown();
    return done.future();
  }

  private void release(LeaderElector current) {
    try {
      if (current.release()) {
        log.info("Released the Lease {}/{}", namespace, options.getLeaseName());
      }
    } catch (RuntimeException e) {
      log.warn(
          "Could not release the Lease {}/{}: {}",
          namespace,
          options.getLeaseName(),
          e.getMessage());
    }
  }

  private void onElectionThread(Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      // Stopped: nothing more to do.
    }
  }

  private void schedule(Runnable task, long delayMillis) {
    try {
      executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Stopped: nothing more to do.
    }
  }

  /**
   * The Lease lock, telling the gate when this process wrote itself in as holder: the Lease is
   * valid from the moment the write was sent, so the gate measures from there.
   */
  private final class RenewalRecordingLock implements Lock {
    private final Lock delegate;

    RenewalRecordingLock(Lock delegate) {
      this.delegate = delegate;
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
      return attempt(() -> delegate.get(client));
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      long sent = System.nanoTime();
      attempt(
          () -> {
            delegate.create(client, record);
            return null;
          });
      recordRenewal(record, sent);
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      long sent = System.nanoTime();
      attempt(
          () -> {
            delegate.update(client, record);
            return null;
          });
      recordRenewal(record, sent);
    }

    /** One call to the API server, seen by the watchdog: in flight, then its time. */
    private <T> T attempt(Supplier<T> call) {
      attemptsInFlight.incrementAndGet();
      lastAttempt = System.nanoTime();
      try {
        return call.get();
      } finally {
        lastAttempt = System.nanoTime();
        attemptsInFlight.decrementAndGet();
      }
    }

    private void recordRenewal(LeaderElectionRecord record, long sent) {
      if (delegate.identity().equals(record.getHolderIdentity())) {
        gate.renewed(sent);
      }
    }

    @Override
    public String identity() {
      return delegate.identity();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }
  }
}
