package dev.pier.federation.members;

import dev.pier.federation.FederationOptions;
import dev.pier.kube.AsyncKubeApi;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes every member's {@code /readyz} (falling back to {@code /healthz} where that is missing)
 * once per period, each probe within the timeout, concurrently, and applies the thresholds: ready
 * after {@code successThreshold} successes in a row, unready after {@code failureThreshold}
 * failures. Runs on the federation's context; one probe per member at a time. A failed probe's
 * reason, which reaches the member's Secret, Events and logs, never quotes the answer.
 */
public final class HealthProber {
  private static final Logger log = LoggerFactory.getLogger(HealthProber.class);

  private final Vertx vertx;
  private final Context context;
  private final Members members;
  private final FederationOptions options;
  private final MeterRegistry registry;
  private final Set<String> probing = new HashSet<>();
  private final Map<String, String> pathByMember = new HashMap<>();
  private final Map<String, Gauge> gauges = new HashMap<>();
  private long timer = -1;

  public HealthProber(
      Vertx vertx,
      Context context,
      Members members,
      FederationOptions options,
      MeterRegistry registry) {
    this.vertx = vertx;
    this.context = context;
    this.members = members;
    this.options = options;
    this.registry = registry;
  }

  /** Probes every member now, then once per period. */
  public void start() {
    members.all().forEach(this::track);
    probeAll();
    timer = vertx.setPeriodic(options.healthPeriod().toMillis(), id -> probeAll());
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /** Starts reporting a member's readiness (a member that joined) and probes it at once. */
  public void track(Member m) {
    gauges.computeIfAbsent(
        m.name(),
        n ->
            Gauge.builder("pier.cluster.ready", members, ms -> readiness(ms, n))
                .description("1 while the member cluster is ready per the health thresholds")
                .tag("cluster", n)
                .register(registry));
    if (timer >= 0) {
      probe(m);
    }
  }

  /** Stops reporting a member that left. */
  public void untrack(Member m) {
    Gauge g = gauges.remove(m.name());
    if (g != null) {
      registry.remove(g);
    }
    pathByMember.remove(m.name());
  }

  private static double readiness(Members members, String name) {
    Member m = members.get(name);
    return m != null && m.ready() ? 1 : 0;
  }

  private void probeAll() {
    members.all().forEach(this::probe);
  }

  private void probe(Member m) {
    if (!probing.add(m.name())) {
      return;
    }
    check(m)
        .onComplete(
            ar -> {
              probing.remove(m.name());
              if (members.get(m.name()) != m) {
                return;
              }
              boolean ok = ar.succeeded();
              boolean wasReady = m.ready();
              if (m.recordProbe(ok)) {
                if (m.ready()) {
                  log.info("Cluster {}: ready ({})", m.name(), m.cluster().url());
                } else {
                  log.warn(
                      "Cluster {}: not ready after {} failed probes: {}",
                      m.name(),
                      options.failureThreshold(),
                      ar.cause() == null ? "?" : ar.cause().getMessage());
                }
                members.readinessChanged(m);
              } else if (!ok && wasReady) {
                log.debug("Cluster {}: probe failed: {}", m.name(), ar.cause().getMessage());
              }
              members.probed(m, ok, ok ? null : ar.cause().getMessage());
            });
  }

  /**
   * One probe: succeeds when the member's health endpoint answers "ok" within the timeout. It fails
   * with a reason from {@link ProbeReasons}, never quoting the answer, of which at most {@link
   * ProbeReasons#MAX_ANSWER_BYTES} are read.
   */
  private Future<Void> check(Member m) {
    String path = pathByMember.getOrDefault(m.name(), "/readyz");
    return ask(m, path)
        .compose(
            answer -> {
              if (answer.code() == 404 && path.equals("/readyz")) {
                pathByMember.put(m.name(), "/healthz");
                return ask(m, "/healthz");
              }
              return Future.succeededFuture(answer);
            })
        .transform(
            ar -> {
              String problem =
                  ar.failed()
                      ? ProbeReasons.ofFailure(ar.cause(), options.healthTimeout())
                      : ProbeReasons.ofAnswer(
                          ar.result().code(), ar.result().body(), ar.result().tooLong());
              return problem == null
                  ? Future.<Void>succeededFuture()
                  : Future.failedFuture(new ProbeFailed(problem));
            });
  }

  private Future<AsyncKubeApi.LimitedAnswer> ask(Member m, String path) {
    return m.cluster()
        .api()
        .getLimited(context, path, options.healthTimeout(), ProbeReasons.MAX_ANSWER_BYTES);
  }

  /** A failed probe, its message one of {@link ProbeReasons}'. */
  private static final class ProbeFailed extends RuntimeException {
    ProbeFailed(String reason) {
      super(reason, null, false, false);
    }
  }
}
