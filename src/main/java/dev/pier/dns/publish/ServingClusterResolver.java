package dev.pier.dns.publish;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.HostnameResolver;
import dev.pier.dns.ServingCluster;
import dev.pier.model.LbIngress;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The addresses a cluster serves a Service at: its ingress IPs, and its ingress hostnames resolved
 * without blocking. A hostname that does not resolve is noted on the {@link ServingCluster}, not a
 * failure: the names it feeds keep their records until it does.
 */
final class ServingClusterResolver {
  private final HostnameResolver resolver;

  ServingClusterResolver(HostnameResolver resolver) {
    this.resolver = resolver;
  }

  Future<ServingCluster> servingCluster(
      ClusterLocation location, List<LbIngress> ingress, boolean healthy) {
    List<String> v4 = new ArrayList<>();
    List<String> v6 = new ArrayList<>();
    List<String> unresolved = new ArrayList<>();
    List<Future<Void>> lookups = new ArrayList<>();
    for (LbIngress i : ingress) {
      if (i.ip() != null) {
        (i.ip().contains(":") ? v6 : v4).add(i.ip());
      } else if (i.hostname() != null) {
        lookups.add(
            resolver
                .resolve(i.hostname())
                .transform(
                    ar -> {
                      if (ar.succeeded()) {
                        v4.addAll(ar.result().ipv4());
                        v6.addAll(ar.result().ipv6());
                      } else {
                        unresolved.add(ar.cause().getMessage());
                      }
                      return Future.<Void>succeededFuture();
                    }));
      }
    }
    return Future.all(lookups)
        .map(all -> new ServingCluster(location, v4, v6, healthy, unresolved));
  }

  Future<Void> close() {
    return resolver.close();
  }
}
