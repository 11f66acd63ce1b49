package dev.pier.reconcile;

import dev.pier.cloud.ClusterRoutedProvider;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.kube.Cluster;
import dev.pier.kube.Clusters;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Members joined through a Secret that run Pier's load balancers with a provider of their own. A
 * member is attached to the load-balancer path once its identity is read (which marks what Pier
 * makes there): its provider is routed to and its cluster joins {@link Clusters}, whose listeners
 * watch it and reconcile it. It is detached when it leaves or its Secret changes how to reach it:
 * its keys stop, its provider closes, and its load balancers stay as they are (leaving is never a
 * deletion).
 */
public final class LoadBalancerMembers {
  private static final Logger log = LoggerFactory.getLogger(LoadBalancerMembers.class);
  static final Duration IDENTITY_RETRY = Duration.ofSeconds(5);

  private final Vertx vertx;
  private final Clusters clusters;
  private final ClusterRoutedProvider routed;
  // The member clusters being attached or attached, with the provider each runs with.
  private final Map<Cluster, LoadBalancerProvider> providers = new ConcurrentHashMap<>();

  public LoadBalancerMembers(Vertx vertx, Clusters clusters, ClusterRoutedProvider routed) {
    this.vertx = vertx;
    this.clusters = clusters;
    this.routed = routed;
  }

  /** Attaches {@code cluster} with {@code provider} once its identity is read; retries until. */
  public void attach(Cluster cluster, LoadBalancerProvider provider) {
    providers.put(cluster, provider);
    readIdentity(cluster);
  }

  private void readIdentity(Cluster cluster) {
    if (!providers.containsKey(cluster)) {
      return;
    }
    cluster
        .loadIdentity(vertx.getOrCreateContext())
        .onSuccess(id -> added(cluster))
        .onFailure(
            e -> {
              log.warn(
                  "Cluster {}: cannot read its identity, its load balancers wait (retrying in"
                      + " {}): {}",
                  cluster.name(),
                  IDENTITY_RETRY,
                  e.getMessage());
              vertx.setTimer(IDENTITY_RETRY.toMillis(), id -> readIdentity(cluster));
            });
  }

  private synchronized void added(Cluster cluster) {
    LoadBalancerProvider provider = providers.get(cluster);
    if (provider == null) {
      return;
    }
    routed.attach(cluster.name(), provider);
    clusters.add(cluster);
    log.info(
        "Cluster {}: runs Pier's load balancers with provider {}", cluster.name(), provider.name());
  }

  /** Detaches {@code cluster}, if it was attached or being attached; its load balancers stay. */
  public synchronized void detach(Cluster cluster) {
    LoadBalancerProvider provider = providers.remove(cluster);
    if (provider == null) {
      return;
    }
    if (clusters.remove(cluster)) {
      routed.detach(cluster.name());
      log.info(
          "Cluster {}: Pier's load balancers there stop being reconciled; they stay as they are",
          cluster.name());
    }
    provider.close();
  }
}
