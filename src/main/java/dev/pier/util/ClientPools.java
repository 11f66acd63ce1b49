package dev.pier.util;

import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;

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

  /**
   * A web client to a cloud or DNS API: Pier's user agent, the connect timeout, a pool of {@code
   * maxConnections} (see {@link #of}), and no redirects followed: Vert.x would send every header,
   * the API token included, to whatever host a redirect names.
   */
  public static WebClient webClient(Vertx vertx, Duration connectTimeout, int maxConnections) {
    return WebClient.create(
        vertx,
        new WebClientOptions()
            .setUserAgent("pier")
            .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
            .setFollowRedirects(false),
        of(maxConnections));
  }
}
