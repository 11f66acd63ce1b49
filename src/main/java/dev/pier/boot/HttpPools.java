package dev.pier.boot;

import dev.pier.config.ConfigValues;
import dev.pier.config.Option;

/**
 * How many connections each HTTP client to a cloud or DNS service may hold, which is how many of
 * its calls can be in flight at once (a call waits for a free connection). A positive {@code
 * maxConnections} option of the client is taken as it is; 0, the default, sizes the pool from the
 * work that can use it at once:
 *
 * <ul>
 *   <li>a load-balancer provider's client ({@code webhook}, {@code hetzner}): {@code
 *       reconcile.concurrency + nodeSync.concurrency}, the provider calls that can run together
 *       (full reconciles and node-sync-only host updates have slots of their own);
 *   <li>a DNS provider's client ({@code dns.powerdns}, {@code dns.externalDns}): {@code 2 x
 *       reconcile.concurrency}, as DNS syncs run both in the reconcile queue and in the federation
 *       queue, each bounded by {@code reconcile.concurrency}.
 * </ul>
 *
 * A pool is an upper bound: connections are opened only when calls need them.
 */
final class HttpPools {
  private HttpPools() {}

  /** The pool of a load-balancer provider's client whose option is {@code maxConnections}. */
  static int provider(ConfigValues config, Option<Integer> maxConnections) {
    return setOr(
        config,
        maxConnections,
        config.get(PierOptions.RECONCILE_CONCURRENCY)
            + config.get(PierOptions.NODE_SYNC_CONCURRENCY));
  }

  /** The pool of a DNS provider's client whose option is {@code maxConnections}. */
  static int dns(ConfigValues config, Option<Integer> maxConnections) {
    return setOr(config, maxConnections, 2 * config.get(PierOptions.RECONCILE_CONCURRENCY));
  }

  private static int setOr(ConfigValues config, Option<Integer> maxConnections, int auto) {
    int set = config.get(maxConnections);
    return set > 0 ? set : auto;
  }
}
