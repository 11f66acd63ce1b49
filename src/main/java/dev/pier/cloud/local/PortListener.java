package dev.pier.cloud.local;

import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceRef;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One port of a load balancer: a socket on {@code ip:port}, its backends and its bind state. */
abstract class PortListener {

  private static final Logger log = LoggerFactory.getLogger(PortListener.class);
  private static final ServiceLog serviceLog = ServiceLog.of(PortListener.class);

  /**
   * How long a bind that finds its address in use keeps trying. The JDK releases a closed listening
   * socket at its selector's next pass, after the close is reported, so a listener closed and
   * opened again at once (a Service deleted and created again, a port removed and added back) can
   * find its own old socket still there for a moment. A socket held by another process is reported
   * after this window.
   */
  static final Duration IN_USE_RETRY_WINDOW = Duration.ofSeconds(2);

  private static final long FIRST_IN_USE_RETRY_MILLIS = 5;
  private static final long MAX_IN_USE_RETRY_MILLIS = 200;

  final Vertx vertx;
  final ServiceRef service;
  final String ip;
  final int port;
  final Backends backends;

  /** What the whole load balancer holds open, against its limits. */
  final LoadBalancerUsage usage;

  private int nodePort;
  private SourceRanges sourceRanges = SourceRanges.ALL;
  private long refused;
  private boolean bound;
  private boolean closed;
  private String error;
  private String errorDetail;

  PortListener(
      Vertx vertx,
      ServiceRef service,
      String ip,
      int port,
      Backends backends,
      LoadBalancerUsage usage) {
    this.vertx = vertx;
    this.service = service;
    this.ip = ip;
    this.port = port;
    this.backends = backends;
    this.usage = usage;
  }

  abstract String protocol();

  /** Whether a TCP connect to the node port says something about this listener's backends. */
  abstract boolean checksTcp();

  abstract Future<Void> doBind();

  abstract Future<Void> doClose();

  String id() {
    return protocol() + "/" + port;
  }

  String describe() {
    return HealthChecks.hostPort(ip, port) + "/" + protocol();
  }

  int nodePort() {
    return nodePort;
  }

  void setNodePort(int nodePort) {
    this.nodePort = nodePort;
  }

  SourceRanges sourceRanges() {
    return sourceRanges;
  }

  /**
   * Sets the clients this port admits ({@code spec.loadBalancerSourceRanges}); applies to the next
   * connection or datagram, without re-binding. Subclasses also end what clients outside the new
   * ranges have open.
   */
  void setSourceRanges(SourceRanges ranges) {
    this.sourceRanges = ranges;
  }

  /**
   * Whether a client may use this port; a refusal is counted and logged at debug.
   *
   * @param host the client's literal address
   */
  boolean admits(String host) {
    if (sourceRanges.admits(host)) {
      return true;
    }
    refused++;
    serviceLog.debug(
        service,
        "refused client {} on {}: outside spec.loadBalancerSourceRanges {} ({} refused so far)",
        host,
        describe(),
        sourceRanges,
        refused);
    return false;
  }

  /** How many connections or datagrams were refused as outside the source ranges. */
  long refused() {
    return refused;
  }

  boolean isBound() {
    return bound;
  }

  /** Why the last bind failed, as a CamelCase reason for the port's status; null when bound. */
  String error() {
    return error;
  }

  String errorDetail() {
    return errorDetail;
  }

  /** Points the listener at new backend hosts, re-acquiring health checks. */
  void retarget(String[] hosts, int healthCheckPort) {
    backends.retarget(hosts, healthCheckPort, checksTcp() ? nodePort : 0);
  }

  /** Binds the socket; a failure is recorded in {@link #error()}, not returned. */
  Future<Void> bind() {
    return bindWhileInUse(
            System.nanoTime() + IN_USE_RETRY_WINDOW.toNanos(), FIRST_IN_USE_RETRY_MILLIS)
        .transform(
            ar -> {
              if (ar.succeeded()) {
                bound = true;
                if (error != null) {
                  serviceLog.info(service, "now listening on {}", describe());
                } else {
                  serviceLog.debug(service, "listening on {}", describe());
                }
                error = null;
                errorDetail = null;
                if (closed) {
                  // Deleted (or the provider closed) while binding.
                  return close();
                }
              } else {
                error = bindError(ar.cause());
                errorDetail = message(ar.cause());
                serviceLog.warn(
                    service,
                    "cannot listen on {}: {}; other ports are unaffected",
                    describe(),
                    errorDetail);
              }
              return Future.succeededFuture();
            });
  }

  private Future<Void> bindWhileInUse(long deadlineNanos, long delayMillis) {
    return doBind()
        .recover(
            e -> {
              boolean retry =
                  !closed
                      && bindError(e).equals("AddressInUse")
                      && System.nanoTime() + delayMillis * 1_000_000 < deadlineNanos;
              if (!retry) {
                return Future.failedFuture(e);
              }
              Promise<Void> next = Promise.promise();
              long nextDelay = Math.min(delayMillis * 2, MAX_IN_USE_RETRY_MILLIS);
              vertx.setTimer(
                  delayMillis, id -> bindWhileInUse(deadlineNanos, nextDelay).onComplete(next));
              return next.future();
            });
  }

  Future<Void> close() {
    closed = true;
    backends.release();
    Future<Void> f = doClose();
    bound = false;
    return f.recover(e -> Future.succeededFuture());
  }

  /** A CamelCase reason for a bind failure, for the port's status. */
  static String bindError(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      if (m.contains("address already in use")) {
        return "AddressInUse";
      }
      if (m.contains("permission denied") || m.contains("access denied")) {
        return "PermissionDenied";
      }
    }
    return "BindFailed";
  }

  static String message(Throwable t) {
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
