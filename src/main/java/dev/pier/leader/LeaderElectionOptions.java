package dev.pier.leader;

import dev.pier.config.Durations;
import java.time.Duration;

/** Options of leader election on a coordination.k8s.io Lease, with defaults as constants. */
public final class LeaderElectionOptions {
  public static final String DEFAULT_LEASE_NAME = "pier";
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);
  public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);

  private String leaseName = DEFAULT_LEASE_NAME;
  private String namespace = "";
  private String identity = LeaderElection.defaultIdentity();
  private Duration leaseDuration = DEFAULT_LEASE_DURATION;
  private Duration renewDeadline = DEFAULT_RENEW_DEADLINE;
  private Duration retryPeriod = DEFAULT_RETRY_PERIOD;

  public String getLeaseName() {
    return leaseName;
  }

  public LeaderElectionOptions setLeaseName(String leaseName) {
    this.leaseName = leaseName;
    return this;
  }

  /** The Lease's namespace; empty: the client's namespace (in a pod, the pod's namespace). */
  public String getNamespace() {
    return namespace;
  }

  public LeaderElectionOptions setNamespace(String namespace) {
    this.namespace = namespace;
    return this;
  }

  /** This process's name in the Lease's holderIdentity. */
  public String getIdentity() {
    return identity;
  }

  public LeaderElectionOptions setIdentity(String identity) {
    this.identity = identity;
    return this;
  }

  /** How long a standby waits after the last renewal before it takes the lease. */
  public Duration getLeaseDuration() {
    return leaseDuration;
  }

  public LeaderElectionOptions setLeaseDuration(Duration leaseDuration) {
    this.leaseDuration = leaseDuration;
    return this;
  }

  /** How long the leader keeps trying to renew before it gives up leadership. */
  public Duration getRenewDeadline() {
    return renewDeadline;
  }

  public LeaderElectionOptions setRenewDeadline(Duration renewDeadline) {
    this.renewDeadline = renewDeadline;
    return this;
  }

  /** Time between attempts to acquire or renew. */
  public Duration getRetryPeriod() {
    return retryPeriod;
  }

  public LeaderElectionOptions setRetryPeriod(Duration retryPeriod) {
    this.retryPeriod = retryPeriod;
    return this;
  }

  /**
   * Why these durations cannot work together (the lease must outlast the renew deadline, which must
   * outlast a jittered retry period), or null when they can.
   */
  public String problem() {
    if (leaseDuration.compareTo(renewDeadline) <= 0) {
      return "leaseDuration ("
          + Durations.format(leaseDuration)
          + ") must be longer than renewDeadline ("
          + Durations.format(renewDeadline)
          + ")";
    }
    if (renewDeadline.toMillis() <= retryPeriod.toMillis() * 1.2) {
      return "renewDeadline ("
          + Durations.format(renewDeadline)
          + ") must be longer than 1.2 x retryPeriod ("
          + Durations.format(retryPeriod)
          + ")";
    }
    return null;
  }
}
