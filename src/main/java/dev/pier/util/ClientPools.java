package dev.pier.util;

import io.vertx.core.http.PoolOptions;

/**
 * The connection pool of an HTTP client to a cloud or DNS service. Vert.x keeps 5 HTTP/1.1
 * connections per server by default, and a call waits for a free connection: a pool smaller than
 * the calls that can be in flight at once caps them at its size. The configuration sizes each pool
 * (its {@code maxConnections} option, or from the concurrency options); a pool is an upper bound,
 * its connections are opened only when calls need them.
 */
public final class ClientPools {
  /** Connections of a client whose options say 0: built in code, not from the configuration. */
  public static final int FALLBACK_MAX_CONNECTIONS = 100;

  private ClientPools() {}

  /**
   * A pool of {@code maxConnections} HTTP/1.1 connections per server, or {@link
   * #FALLBACK_MAX_CONNECTIONS} when it is not positive. These clients do not negotiate HTTP/2, so
   * its pool size is left as it is.
   */
  public static PoolOptions of(int maxConnections) {
    return new PoolOptions()
        .setHttp1MaxSize(maxConnections > 0 ? maxConnections : FALLBACK_MAX_CONNECTIONS);
  }
}
