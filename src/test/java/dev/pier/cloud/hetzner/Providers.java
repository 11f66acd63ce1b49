package dev.pier.cloud.hetzner;

import dev.pier.model.ClusterIdentity;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Hetzner providers for unit tests, initialized as Pier does for cluster {@code c}. */
final class Providers {
  /** The identity of the unit tests' cluster {@code c}. */
  static final ClusterIdentity C = new ClusterIdentity("c", "uid-of-cluster-c");

  private Providers() {}

  static HetznerLoadBalancerProvider initialized(Vertx vertx, HetznerOptions options) {
    HetznerLoadBalancerProvider p = new HetznerLoadBalancerProvider(vertx, options);
    try {
      p.initialize(C, List.of()).await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return p;
  }
}
