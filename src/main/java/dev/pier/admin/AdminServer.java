package dev.pier.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.net.BindException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP endpoints: {@code /healthz} (the process is alive), {@code /readyz} (informers
 * synced and, on the leader, workers running; a standby is ready) and {@code /metrics} (Prometheus
 * text), which {@link MetricsAuth} guards when it is given; the health endpoints stay open.
 */
public final class AdminServer extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

  private final String host;
  private final int port;
  private final PrometheusMeterRegistry registry;
  private final BooleanSupplier ready;
  private final Supplier<String> readyDetail;
  private final MetricsAuth metricsAuth;
  private HttpServer server;

  /**
   * @param readyDetail a line /readyz adds while it stays 200 (e.g. deletions held), or null
   */
  public AdminServer(
      String host,
      int port,
      PrometheusMeterRegistry registry,
      BooleanSupplier ready,
      Supplier<String> readyDetail) {
    this(host, port, registry, ready, readyDetail, null);
  }

  /**
   * @param metricsAuth decides who reads /metrics, or null: anyone who reaches it
   */
  public AdminServer(
      String host,
      int port,
      PrometheusMeterRegistry registry,
      BooleanSupplier ready,
      Supplier<String> readyDetail,
      MetricsAuth metricsAuth) {
    this.metricsAuth = metricsAuth;
    this.host = host;
    this.port = port;
    this.registry = registry;
    this.ready = ready;
    this.readyDetail = readyDetail;
  }

  @Override
  public Future<?> start() {
    // HTTP/1.1 only, as Prometheus and the kubelet's probes speak it: no h2c upgrade, whose path
    // through Vert.x's HTTP/2 metrics is where a scrape once never got its answer.
    server =
        vertx
            .createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false))
            .requestHandler(this::handle);
    return server
        .listen(port, host)
        .recover(e -> Future.failedFuture(listenFailure(host, port, e)))
        .onSuccess(
            s ->
                log.info(
                    "Admin endpoints on http://{}:{}/ (healthz, readyz, metrics)",
                    host,
                    s.actualPort()));
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
            .check(context, req.getHeader("Authorization"))
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

  private void scrape(HttpServerRequest req) {
    req.response()
        .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
        .end(registry.scrape());
  }
}
