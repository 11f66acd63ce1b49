package dev.pier.cloud.local;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.ConnectOptions;
import io.vertx.core.net.NetClient;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active health checks of backends, shared by every listener that sends traffic to the same target.
 * A check is a TCP connect to {@code node:nodePort}, or an HTTP {@code GET /healthz} on {@code
 * node:healthCheckNodePort} (2xx is healthy). Each check runs on a periodic Vert.x timer while at
 * least one listener holds it, and stops when the last one lets go.
 *
 * <p>Confined to the provider's context like the rest of the provider's state: timers and client
 * callbacks are set up from that context and so run on it.
 */
final class HealthChecks {

  private static final Logger LOG = LoggerFactory.getLogger(HealthChecks.class);

  static final String HEALTHZ_PATH = "/healthz";

  private final Vertx vertx;
  private final LocalProviderOptions options;
  private final NetClient tcp;
  private final HttpClient http;
  private final Map<String, Check> checks = new HashMap<>();

  HealthChecks(Vertx vertx, LocalProviderOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.tcp = vertx.createNetClient();
    this.http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false));
  }

  /** Starts (or joins) the check of a target. Every acquire needs one {@link #release}. */
  Check acquire(String host, int port, boolean httpCheck) {
    String id = (httpCheck ? "http://" : "tcp://") + hostPort(host, port);
    Check check = checks.get(id);
    if (check == null) {
      check = new Check(id, host, port, httpCheck);
      checks.put(id, check);
      start(check);
    }
    check.refs++;
    return check;
  }

  /** Lets go of a check; the last holder stops it. */
  void release(Check check) {
    if (check == null || check.refs <= 0) {
      return;
    }
    check.refs--;
    if (check.refs == 0) {
      vertx.cancelTimer(check.timer);
      checks.remove(check.id, check);
    }
  }

  /** The running checks and whether each target is healthy, for tests and diagnostics. */
  Map<String, Boolean> snapshot() {
    Map<String, Boolean> out = new HashMap<>();
    checks.forEach((id, c) -> out.put(id, c.healthy));
    return out;
  }

  int size() {
    return checks.size();
  }

  Future<Void> close() {
    checks.values().forEach(c -> vertx.cancelTimer(c.timer));
    checks.clear();
    return Future.join(tcp.close(), http.close()).mapEmpty();
  }

  static String hostPort(String host, int port) {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  private void start(Check check) {
    long interval = Math.max(1, options.getHealthCheckInterval().toMillis());
    // Spread the first checks over one interval, so that a restart does not fire them all at once.
    long initial = 1 + ThreadLocalRandom.current().nextLong(interval);
    check.timer = vertx.setPeriodic(initial, interval, t -> run(check));
  }

  private void run(Check check) {
    if (check.running || check.refs == 0) {
      return;
    }
    check.running = true;
    probe(check)
        .onComplete(
            ar -> {
              check.running = false;
              if (check.refs == 0) {
                return;
              }
              record(check, ar.succeeded(), ar.cause());
            });
  }

  private Future<Void> probe(Check check) {
    int timeout = (int) Math.max(1, options.getHealthCheckTimeout().toMillis());
    try {
      if (!check.http) {
        return tcp.connect(
                new ConnectOptions().setHost(check.host).setPort(check.port).setTimeout(timeout))
            .compose(socket -> socket.close());
      }
      RequestOptions request =
          new RequestOptions()
              .setMethod(HttpMethod.GET)
              .setHost(check.host)
              .setPort(check.port)
              .setURI(HEALTHZ_PATH)
              .setConnectTimeout(timeout)
              .setIdleTimeout(timeout);
      // The body is asked for in the callback that delivers the response, not one hop later,
      // where the end of a short answer can already have passed.
      return http.request(request)
          .compose(
              req ->
                  req.send()
                      .compose(
                          resp ->
                              resp.body()
                                  .compose(
                                      body ->
                                          resp.statusCode() / 100 == 2
                                              ? Future.<Void>succeededFuture()
                                              : Future.<Void>failedFuture(
                                                  "HTTP status " + resp.statusCode()))));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  private void record(Check check, boolean passed, Throwable cause) {
    if (passed) {
      check.failures = 0;
      check.passes++;
      if (!check.healthy && check.passes >= options.getHealthyThreshold()) {
        check.healthy = true;
        LOG.info("Backend {} is healthy again after {} passed checks", check.id, check.passes);
      }
    } else {
      check.passes = 0;
      check.failures++;
      if (check.healthy && check.failures >= options.getUnhealthyThreshold()) {
        check.healthy = false;
        LOG.warn(
            "Backend {} is unhealthy after {} failed checks, last: {}; it gets no new traffic"
                + " while other backends are healthy",
            check.id,
            check.failures,
            cause == null ? "failed" : cause.getMessage());
      }
    }
  }

  /** One target's check and its state. Unknown targets start healthy. */
  static final class Check {
    final String id;
    final String host;
    final int port;
    final boolean http;
    int refs;
    long timer = -1;
    boolean healthy = true;
    boolean running;
    int failures;
    int passes;

    Check(String id, String host, int port, boolean http) {
      this.id = id;
      this.host = host;
      this.port = port;
      this.http = http;
    }

    boolean healthy() {
      return healthy;
    }
  }
}
