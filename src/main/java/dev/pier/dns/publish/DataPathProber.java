package dev.pier.dns.publish;

import dev.pier.config.Durations;
import dev.pier.dns.DataPathDecision;
import dev.pier.dns.ProbeSlots;
import dev.pier.dns.ProbeSpec;
import dev.pier.dns.ProbeState;
import dev.pier.model.ServiceKey;
import dev.pier.util.Ip;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.ConnectOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes the load-balancer addresses of the federated Services that ask for it ({@link
 * ProbeSpec#ANNOTATION}) every {@code dns.probe.period}, spread over the period ({@link
 * ProbeSlots}), each probe within {@code dns.probe.timeout}, without blocking: a TCP connection
 * that opens and stays open a moment, or an HTTP GET whose status is compared and whose body is
 * never read (at most {@link #MAX_ANSWER_BYTES} of headers), following no redirect. Only while
 * {@code runs} says this replica runs the host side, each probe asking the fence right before it
 * goes, and only to addresses the egress rule allows. A change of whether an address answers is
 * told to {@code changed}, which runs the Service's aggregate, where {@link #probe} says which
 * addresses leave the names ({@link DataPathDecision}). Runs on one context (the federation's).
 */
public final class DataPathProber {
  private static final Logger log = LoggerFactory.getLogger(DataPathProber.class);

  /** The most of an HTTP answer's status line and headers read; its body never is. */
  public static final int MAX_ANSWER_BYTES = 4096;

  /** How long a TCP probe's connection must stay open (at most half the timeout). */
  static final long TCP_HOLD_MILLIS = 200;

  private final Vertx vertx;
  private final DataPathOptions options;
  private final BooleanSupplier runs;
  private final Consumer<ServiceKey> changed;
  private final MeterRegistry registry;
  private final LongSupplier clock;
  private final NetClient tcp;
  private final HttpClient http;
  private final Map<ServiceKey, Target> targets = new HashMap<>();
  private final ProbeSlots<Probe> slots;
  private long ticks;
  private long timer = -1;

  /** One Service's probes. */
  private static final class Target {
    ProbeSpec spec;
    int port;
    final Map<String, ProbeState> states = new HashMap<>();
    final Set<String> inFlight = new HashSet<>();
    final Set<String> refused = new HashSet<>();
    Gauge held;
  }

  /** One address of one Service, probed in its turn ({@link ProbeSlots}). */
  private record Probe(ServiceKey key, String address) {}

  /**
   * @param runs whether this replica runs the host side now
   * @param changed told when an address stops or starts answering
   */
  public DataPathProber(
      Vertx vertx,
      DataPathOptions options,
      BooleanSupplier runs,
      Consumer<ServiceKey> changed,
      MeterRegistry registry,
      LongSupplier clock) {
    this.vertx = vertx;
    this.options = options;
    this.runs = runs;
    this.changed = changed;
    this.registry = registry;
    this.clock = clock;
    this.slots = new ProbeSlots<>(options.period());
    this.tcp = vertx.createNetClient();
    this.http =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setKeepAlive(false)
                .setMaxHeaderSize(MAX_ANSWER_BYTES)
                .setMaxInitialLineLength(1024));
  }

  /**
   * Probes each address once a period, the addresses spread over it ({@link ProbeSlots}); call on
   * the context the Services' runs use.
   */
  public void start() {
    timer = vertx.setPeriodic(slots.tickMillis(options.period()), id -> probeSlot());
  }

  public Future<Void> stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    reset();
    return Future.join(tcp.close(), http.close()).mapEmpty();
  }

  /**
   * Forgets every Service's probes: this replica stopped running the host side, and what its probes
   * said is stale by the time it runs it again.
   */
  public void reset() {
    Set.copyOf(targets.keySet()).forEach(this::forget);
  }

  /**
   * The Service's probes now: which of {@code addresses} (those its names would publish) leave
   * them. Starts probing the addresses not probed yet; forgets those no longer published.
   */
  public DataPathDecision probe(ServiceKey key, ProbeSpec spec, int port, Set<String> addresses) {
    Target t = targets.computeIfAbsent(key, k -> new Target());
    for (String gone : t.states.keySet()) {
      if (!addresses.contains(gone)) {
        slots.remove(new Probe(key, gone));
      }
    }
    if (!spec.equals(t.spec) || port != t.port) {
      // Another probe: what the last one said does not count.
      t.states.clear();
      t.refused.clear();
      t.spec = spec;
      t.port = port;
    }
    t.states.keySet().retainAll(addresses);
    t.refused.retainAll(addresses);
    for (String a : addresses) {
      t.states.putIfAbsent(a, ProbeState.NEW);
      slots.add(new Probe(key, a));
    }
    DataPathDecision d = DataPathDecision.decide(addresses, t.states, options.panicThreshold());
    held(key, t, d.held());
    return d;
  }

  /** The Service does not probe any more (no annotation, not federated, gone). */
  public void forget(ServiceKey key) {
    Target t = targets.remove(key);
    if (t != null) {
      t.states.keySet().forEach(a -> slots.remove(new Probe(key, a)));
      held(key, t, false);
    }
  }

  /** The Services probed, for tests. */
  int probed() {
    return targets.size();
  }

  private void held(ServiceKey key, Target t, boolean held) {
    if (held && t.held == null) {
      double since = clock.getAsLong() / 1000.0;
      t.held =
          Gauge.builder("pier.dns.probe.held.since", () -> since)
              .description(
                  "When a federated Service began keeping load-balancer addresses its probes say"
                      + " stopped answering, because too few answer (seconds since the epoch);"
                      + " absent: not held")
              .baseUnit("seconds")
              .tag("namespace", key.namespace())
              .tag("name", key.name())
              .register(registry);
    } else if (!held && t.held != null) {
      registry.remove(t.held);
      t.held = null;
    }
  }

  /** Probes the addresses whose turn it is. */
  private void probeSlot() {
    List<Probe> due = slots.due(ticks++);
    if (!runs.getAsBoolean()) {
      return;
    }
    for (Probe p : due) {
      // A probe's outcome may have changed the targets since the list was taken.
      Target t = targets.get(p.key());
      if (t != null && t.states.containsKey(p.address()) && !t.inFlight.contains(p.address())) {
        probeOne(p.key(), t, p.address());
      }
    }
  }

  private void probeOne(ServiceKey key, Target t, String address) {
    String why = refusal(address);
    if (why != null) {
      if (t.refused.add(address)) {
        log.warn(
            "Service {}/{}: not probing load-balancer address {}: {}, refused by"
                + " federation.memberEgress (allow may allow it); it stays in the DNS names",
            key.namespace(),
            key.name(),
            address,
            why);
      }
      return;
    }
    ProbeSpec spec = t.spec;
    int port = t.port;
    InetAddress ip;
    try {
      // A literal: parsed, never looked up.
      ip = InetAddress.getByName(address);
    } catch (UnknownHostException e) {
      return;
    }
    // Right before the probe goes: only while this replica holds the host side.
    if (options.fence().refusal(options.fence().term(), "probe of " + address) != null) {
      return;
    }
    t.inFlight.add(address);
    check(spec, ip, address, port)
        .onComplete(
            ar -> {
              t.inFlight.remove(address);
              if (targets.get(key) != t || !spec.equals(t.spec) || port != t.port) {
                return;
              }
              ProbeState before = t.states.get(address);
              if (before == null) {
                return;
              }
              ProbeState after =
                  before.next(
                      ar.succeeded(), options.failureThreshold(), options.successThreshold());
              t.states.put(address, after);
              if (after.answering() != before.answering()) {
                if (after.answering()) {
                  log.info(
                      "Service {}/{}: load-balancer address {} answers its probe ({}) again after"
                          + " {} passed probes: it returns to the DNS names",
                      key.namespace(),
                      key.name(),
                      address,
                      spec,
                      after.passes());
                } else {
                  log.warn(
                      "Service {}/{}: load-balancer address {} stopped answering its probe ({})"
                          + " after {} failed probes, last: {}; it leaves the DNS names unless"
                          + " too few addresses answer",
                      key.namespace(),
                      key.name(),
                      address,
                      spec,
                      after.failures(),
                      ar.cause().getMessage());
                }
                changed.accept(key);
              }
            });
  }

  private String refusal(String address) {
    Ip ip = Ip.parse(address);
    return ip == null ? address + " is no IP address" : options.egress().refusal(ip);
  }

  private Future<Void> check(ProbeSpec spec, InetAddress ip, String address, int port) {
    long ms = Math.max(2, options.timeout().toMillis());
    try {
      return spec.kind() == ProbeSpec.Kind.TCP
          ? tcp(ip, port, ms)
          : http(spec, ip, address, port, ms);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * Passes when a connection opens and stays open for a moment, or the other side says something: a
   * proxying load balancer that accepts and closes at once because no backend answers fails it.
   */
  private Future<Void> tcp(InetAddress ip, int port, long ms) {
    long hold = Math.min(TCP_HOLD_MILLIS, ms / 2);
    Promise<Void> p = Promise.promise();
    tcp.connect(
            new ConnectOptions()
                .setRemoteAddress(SocketAddress.inetSocketAddress(new InetSocketAddress(ip, port)))
                .setTimeout((int) Math.max(1, ms - hold)))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                p.tryFail(failed(ar.cause().getMessage()));
                return;
              }
              NetSocket s = ar.result();
              long[] held = {-1};
              s.exceptionHandler(e -> {});
              s.handler(
                  data -> {
                    // It answered: enough, and nothing more is read.
                    if (p.tryComplete()) {
                      vertx.cancelTimer(held[0]);
                      s.close();
                    }
                  });
              s.closeHandler(
                  v -> {
                    vertx.cancelTimer(held[0]);
                    p.tryFail(failed("the connection closed at once"));
                  });
              held[0] =
                  vertx.setTimer(
                      Math.max(1, hold),
                      id -> {
                        if (p.tryComplete()) {
                          s.close();
                        }
                      });
            });
    return p.future();
  }

  /** Passes when a GET of the path answers the status expected within the timeout. */
  private Future<Void> http(ProbeSpec spec, InetAddress ip, String address, int port, long ms) {
    Promise<Void> p = Promise.promise();
    HttpClientRequest[] sent = {null};
    long deadline =
        vertx.setTimer(
            ms,
            id -> {
              if (p.tryFail(failed("no answer within " + Durations.format(options.timeout())))
                  && sent[0] != null) {
                sent[0].reset();
              }
            });
    RequestOptions request =
        new RequestOptions()
            .setMethod(HttpMethod.GET)
            .setServer(SocketAddress.inetSocketAddress(new InetSocketAddress(ip, port)))
            .setHost(address.indexOf(':') >= 0 ? "[" + address + "]" : address)
            .setPort(port)
            .setURI(spec.path())
            .setFollowRedirects(false)
            .setConnectTimeout(ms)
            .putHeader(HttpHeaders.USER_AGENT, "pier-probe");
    http.request(request)
        .compose(
            r -> {
              sent[0] = r;
              return r.send();
            })
        .onComplete(
            ar -> {
              vertx.cancelTimer(deadline);
              if (ar.failed()) {
                p.tryFail(failed(ar.cause().getMessage()));
                return;
              }
              int code = ar.result().statusCode();
              // The body is never read: the connection goes.
              ar.result().request().reset();
              if (code == spec.status()) {
                p.tryComplete();
              } else {
                p.tryFail(failed("HTTP " + code + ", not " + spec.status()));
              }
            });
    return p.future();
  }

  private static RuntimeException failed(String why) {
    return new ProbeFailed(why == null ? "failed" : why);
  }

  /** A failed probe, in Pier's words. */
  private static final class ProbeFailed extends RuntimeException {
    ProbeFailed(String reason) {
      super(reason, null, false, false);
    }
  }
}
