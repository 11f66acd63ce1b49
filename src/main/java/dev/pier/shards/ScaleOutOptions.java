package dev.pier.shards;

import java.time.Duration;
import java.util.List;

/**
 * How replicas share the work ({@code scaleOut.*}, docs/scale-out.md): the number of shards, how
 * the replicas find each other (a static member list, or Kubernetes discovery through a headless
 * Service's DNS name), the event bus's port and the timing of the shard Leases.
 */
public record ScaleOutOptions(
    int shards,
    String clusterName,
    String host,
    int port,
    List<String> members,
    String kubernetesService,
    String clusterDomain,
    Duration heartbeatTimeout,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod,
    int eventBusPort) {
  public static final int DEFAULT_SHARDS = 32;
  public static final String DEFAULT_CLUSTER_NAME = "pier";
  public static final int DEFAULT_PORT = 5701;
  public static final int DEFAULT_EVENT_BUS_PORT = 5711;
  public static final String DEFAULT_CLUSTER_DOMAIN = "cluster.local";
  public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Duration.ofSeconds(10);
  // 32 shards renewed every 5 s: 6.4 Lease writes a second for the whole deployment.
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);
  public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(5);

  /** What is wrong with these settings, naming the option; null when nothing is. */
  public String problem() {
    if (members.isEmpty() && kubernetesService.isEmpty()) {
      return "scaleOut.members or scaleOut.kubernetesService must be set when scaleOut.enabled is"
          + " true: replicas need a way to find each other";
    }
    if (!members.isEmpty() && !kubernetesService.isEmpty()) {
      return "set one of scaleOut.members ("
          + String.join(",", members)
          + ") and scaleOut.kubernetesService ("
          + kubernetesService
          + "), not both";
    }
    if (eventBusPort == port) {
      return "scaleOut.eventBusPort and scaleOut.port are both "
          + port
          + ": the event bus and the membership need a port each";
    }
    if (renewDeadline.compareTo(leaseDuration) >= 0) {
      return "scaleOut.renewDeadline ("
          + renewDeadline
          + ") must be shorter than scaleOut.leaseDuration ("
          + leaseDuration
          + ")";
    }
    if (retryPeriod.compareTo(renewDeadline) >= 0) {
      return "scaleOut.retryPeriod ("
          + retryPeriod
          + ") must be shorter than scaleOut.renewDeadline ("
          + renewDeadline
          + ")";
    }
    return null;
  }

  /**
   * The longest a shard can be without an owner after its owner died: the time to notice the death
   * runs beside the Lease's expiry, which a new owner observes for a full lease duration from its
   * first read, then takes on its next attempt.
   */
  public Duration ownerlessBound() {
    return heartbeatTimeout.plus(leaseDuration).plus(retryPeriod);
  }
}
