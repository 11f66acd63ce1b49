package dev.pier.reconcile;

import dev.pier.retry.ExponentialBackoff;
import java.time.Duration;
import java.util.Set;

/** Options of the reconcile verticle, with defaults as constants. */
public final class ReconcileOptions {
  public static final int DEFAULT_CONCURRENCY = 200;

  private int concurrency = DEFAULT_CONCURRENCY;
  private Duration minRetryDelay = ExponentialBackoff.DEFAULT_MIN;
  private Duration maxRetryDelay = ExponentialBackoff.DEFAULT_MAX;
  private Set<String> loadBalancerClasses = Set.of();
  private String nodePredicates = "stable";

  /** Keys reconciled at the same time. */
  public int getConcurrency() {
    return concurrency;
  }

  public ReconcileOptions setConcurrency(int concurrency) {
    this.concurrency = concurrency;
    return this;
  }

  public Duration getMinRetryDelay() {
    return minRetryDelay;
  }

  public ReconcileOptions setMinRetryDelay(Duration minRetryDelay) {
    this.minRetryDelay = minRetryDelay;
    return this;
  }

  public Duration getMaxRetryDelay() {
    return maxRetryDelay;
  }

  public ReconcileOptions setMaxRetryDelay(Duration maxRetryDelay) {
    this.maxRetryDelay = maxRetryDelay;
    return this;
  }

  /** The spec.loadBalancerClass values Pier owns (Services without a class are always Pier's). */
  public Set<String> getLoadBalancerClasses() {
    return loadBalancerClasses;
  }

  public ReconcileOptions setLoadBalancerClasses(Set<String> loadBalancerClasses) {
    this.loadBalancerClasses = Set.copyOf(loadBalancerClasses);
    return this;
  }

  /** {@code stable} or {@code legacy}: see {@link dev.pier.policy.NodeEligibility}. */
  public String getNodePredicates() {
    return nodePredicates;
  }

  public ReconcileOptions setNodePredicates(String nodePredicates) {
    this.nodePredicates = nodePredicates;
    return this;
  }
}
