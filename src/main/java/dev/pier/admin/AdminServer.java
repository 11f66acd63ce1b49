package dev.pier.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.ServerSSLOptions;
import io.vertx.core.net.SocketAddress;
import java.net.BindException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP endpoints: {@code /healthz} (the process is alive), {@code /readyz} (informers
 * synced and, on the leader, workers running; a standby is ready) and {@code /metrics} (Prometheus
 * text), which {@link MetricsAuth} guards when it is given; the health endpoints stay open. With a
 * certificate, every endpoint is served over TLS only (a plain HTTP request gets no answer).
 */
public final class AdminServer extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

  private final String host;
  private final int port;
  private final PrometheusMeterRegistry registry;
  private final BooleanSupplier ready;
  private final Supplier<String> readyDetail;
  private final MetricsAuth metricsAuth;
  private final KeyCertOptions tls;
  private HttpServer server;
  private long reloads = -1;

  /** How often the certificate and key files are read again (a renewed certificate). */
  static final Duration TLS_RELOAD = Duration.ofMinutes(1);

  /**
   * @param readyDetail a line /readyz adds while it stays 200 (e.g. deletions held), or null
   * @param metricsAuth decides who reads /metrics, or null: anyone who reaches it
   * @param tls the certificate and key every endpoint is served with (HTTPS), or null: plain HTTP
   */
  public AdminServer(
      String host,
      int port,
      PrometheusMeterRegistry registry,
      BooleanSupplier ready,
      Supplier<String> readyDetail,
      MetricsAuth metricsAuth,
      KeyCertOptions tls) {
    this.metricsAuth = metricsAuth;
    this.host = host;
    this.port = port;
    this.registry = registry;
    this.ready = ready;
    this.readyDetail = readyDetail;
    this.tls = tls;
  }

  /** The server's options: HTTP/1.1 only, over TLS with {@code tls} unless it is null. */
  static HttpServerOptions options(KeyCertOptions tls) {
    // HTTP/1.1 only, as Prometheus and the kubelet's probes speak it: no h2c upgrade, whose path
    // through Vert.x's HTTP/2 metrics is where a scrape once never got its answer; no ALPN.
    HttpServerOptions options = new HttpServerOptions().setHttp2ClearTextEnabled(false);
    if (tls != null) {
      options.setSsl(true).setUseAlpn(false).setKeyCertOptions(tls);
    }
    return options;
  }

  @Override
  public Future<?> start() {
    server = vertx.createHttpServer(options(tls)).requestHandler(this::handle);
    return server
        .listen(port, host)
        .recover(e -> Future.failedFuture(listenFailure(host, port, e)))
        .onSuccess(
            s -> {
              log.info(
                  "Admin endpoints on {}://{}:{}/ (healthz, readyz, metrics)",
                  tls == null ? "http" : "https",
                  host,
                  s.actualPort());
              if (tls != null) {
                reloads = vertx.setPeriodic(TLS_RELOAD.toMillis(), id -> reloadTls());
              }
            });
  }

  @Override
  public Future<?> stop() {
    if (reloads >= 0) {
      vertx.cancelTimer(reloads);
    }
    return Future.succeededFuture();
  }

  /**
   * Reads the certificate and key files again (Vert.x reads them off the event loop) and serves
   * them to new connections; on a failure (a file half written, a key that does not match) the
   * server keeps what it had and says so.
   */
  Future<Boolean> reloadTls() {
    return server
        .updateSSLOptions(new ServerSSLOptions().setKeyCertOptions(tls), true)
        .onSuccess(changed -> log.debug("Admin server: certificate and key read again"))
        .onFailure(
            e ->
                log.warn(
                    "Admin server: cannot read the certificate and key again, serving the ones"
                        + " read before: {}",
                    e.getMessage()));
  }

  /**
   * Why the admin server could not listen, naming the address: a startup error users can act on.
   */
  static IllegalStateException listenFailure(String host, int port, Throwable cause) {
    String why =
        cause instanceof BindException
                || String.valueOf(cause.getMessage()).contains("Address already in use")
            ? "address in use"
            : String.valueOf(cause.getMessage());
    return new IllegalStateException(
        "admin server: cannot listen on " + host + ":" + port + ": " + why, cause);
  }

  /** The bound port (useful when configured as 0). */
  public int actualPort() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest req) {
    switch (req.path()) {
      case "/healthz" -> req.response().putHeader("content-type", "text/plain").end("ok\n");
      case "/readyz" -> {
        boolean ok = ready.getAsBoolean();
        String detail = readyDetail.get();
        req.response()
            .setStatusCode(ok ? 200 : 503)
            .putHeader("content-type", "text/plain")
            .end((ok ? "ok\n" : "not ready\n") + (detail == null ? "" : detail + "\n"));
      }
      case "/metrics" -> {
        if (metricsAuth == null) {
          scrape(req);
          return;
        }
        req.pause();
        metricsAuth
            .check(context, req.getHeader("Authorization"), source(req))
            .onComplete(
                ar -> {
                  req.resume();
                  if (ar.failed()) {
                    req.response()
                        .setStatusCode(503)
                        .putHeader("content-type", "text/plain")
                        .end("cannot authorize: the API server did not answer\n");
                  } else if (ar.result() == 200) {
                    scrape(req);
                  } else if (ar.result() == 429) {
                    req.response()
                        .setStatusCode(429)
                        .putHeader("content-type", "text/plain")
                        .putHeader("retry-after", "1")
                        .end("too many tokens the API server did not accept; try again later\n");
                  } else {
                    req.response()
                        .setStatusCode(ar.result())
                        .putHeader("content-type", "text/plain")
                        .end(ar.result() == 401 ? "unauthorized\n" : "forbidden\n");
                  }
                });
      }
      default -> req.response().setStatusCode(404).end();
    }
  }

  /** The caller's address, without its port: the unit of the review budget. */
  private static String source(HttpServerRequest req) {
    SocketAddress remote = req.remoteAddress();
    if (remote == null) {
      return "";
    }
    return remote.hostAddress() != null ? remote.hostAddress() : String.valueOf(remote.host());
  }

  private void scrape(HttpServerRequest req) {
    req.response()
        .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
        .end(registry.scrape());
  }
}
