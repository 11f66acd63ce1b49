package dev.pier.leader;

import dev.pier.config.Durations;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectorBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Campaigns for a coordination.k8s.io Lease with fabric8's {@link LeaderElector}. The elector's
 * blocking API calls run on a thread of their own; its callbacks hop onto the given Vert.x context,
 * so listeners may touch verticle state.
 */
public final class LeaderElection {
  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

  /** What happens on the Vert.x context when this process gains or loses the lease. */
  public interface Listener {
    void onStartLeading();

    void onStopLeading();

    default void onNewLeader(String identity) {}
  }

  private final KubernetesClient client;
  private final LeaderElectionOptions options;
  private final String namespace;
  private final Context context;
  private final ExecutorService executor;
  private LeaderElector elector;
  private CompletableFuture<?> running;
  private volatile boolean stopping;

  public LeaderElection(KubernetesClient client, LeaderElectionOptions options, Context context) {
    this.client = client;
    this.options = options;
    this.namespace =
        options.getNamespace().isEmpty() ? client.getNamespace() : options.getNamespace();
    this.context = context;
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "pier-leader-election");
              t.setDaemon(true);
              return t;
            });
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

  /** Starts campaigning; completes at once, leadership is reported to the listener. */
  public Future<Void> start(Listener listener) {
    LeaderCallbacks callbacks =
        new LeaderCallbacks(
            () -> context.runOnContext(v -> listener.onStartLeading()),
            () -> {
              if (!stopping) {
                context.runOnContext(v -> listener.onStopLeading());
              }
            },
            leader -> context.runOnContext(v -> listener.onNewLeader(leader)));
    elector =
        new LeaderElectorBuilder(client, executor)
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(options.getLeaseName())
                    .withLock(
                        new LeaseLock(namespace, options.getLeaseName(), options.getIdentity()))
                    .withLeaseDuration(options.getLeaseDuration())
                    .withRenewDeadline(options.getRenewDeadline())
                    .withRetryPeriod(options.getRetryPeriod())
                    .withLeaderCallbacks(callbacks)
                    .build())
            .build();
    log.info(
        "Leader election on Lease {}/{} as {} (lease {}, renew deadline {}, retry {})",
        namespace,
        options.getLeaseName(),
        options.getIdentity(),
        Durations.format(options.getLeaseDuration()),
        Durations.format(options.getRenewDeadline()),
        Durations.format(options.getRetryPeriod()));
    running = elector.start();
    return Future.succeededFuture();
  }

  /**
   * Stops campaigning and, if this process leads, releases the Lease so that a standby takes over
   * at once instead of after the lease duration.
   */
  public Future<Void> stop() {
    stopping = true;
    if (running == null) {
      executor.shutdown();
      return Future.succeededFuture();
    }
    running.cancel(true);
    // Completed from the election's own thread, with no Vert.x context: the caller may be closing
    // Vert.x next.
    Promise<Void> done = Promise.promise();
    executor.execute(
        () -> {
          try {
            if (elector.release()) {
              log.info("Released the Lease {}/{}", namespace, options.getLeaseName());
            }
          } catch (RuntimeException e) {
            log.warn(
                "Could not release the Lease {}/{}: {}",
                namespace,
                options.getLeaseName(),
                e.getMessage());
          } finally {
            done.complete();
          }
        });
    executor.shutdown();
    return done.future();
  }
}
