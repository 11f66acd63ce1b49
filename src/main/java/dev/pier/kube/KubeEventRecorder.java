package dev.pier.kube;

import dev.pier.events.EventCorrelator;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events off the reconcile's critical path: {@link #record} only queues; a bounded
 * number of writes run at once on the recorder's own context. Repeats are aggregated by the {@link
 * EventCorrelator}. When the backlog is full, the oldest pending events are dropped (and counted).
 */
public final class KubeEventRecorder implements EventSink {
  private static final Logger log = LoggerFactory.getLogger(KubeEventRecorder.class);
  // What kubectl describe shows: "pier", so that Pier's Events are told apart from those of the
  // upstream service controller ("service-controller") when both run.
  public static final String SOURCE_COMPONENT = "pier";
  public static final String REPORTING_CONTROLLER = "pier.dev/service-controller";
  // A cold start of 10,000 Services queues two events each before the first is written.
  public static final int DEFAULT_MAX_PENDING = 50_000;
  public static final int DEFAULT_CONCURRENCY = 8;
  // While reconciles are writing Services, events take one request slot: they share the API
  // server's capacity with the writes that make load balancers visible, and must not slow them.
  public static final int DEFAULT_BUSY_CONCURRENCY = 1;
  private static final int MAX_MESSAGE = 1024;

  private record Pending(ObjectRef ref, String type, String reason, String message, long at) {}

  private final Context context;
  private final AsyncKubeApi api;
  private final String instance;
  private final EventCorrelator correlator = new EventCorrelator();
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private int inFlight;
  private long nameSeq;

  public KubeEventRecorder(Vertx vertx, AsyncKubeApi api, String instance) {
    this.context = vertx.getOrCreateContext();
    this.api = api;
    this.instance = instance;
  }

  @Override
  public void record(ObjectRef ref, String type, String reason, String message) {
    String msg = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
    Pending p = new Pending(ref, type, reason, msg, System.currentTimeMillis());
    context.runOnContext(v -> enqueue(p));
  }

  /** Events dropped by backlog overflow or the per-object rate limit. */
  public long dropped() {
    return dropped.get();
  }

  public long written() {
    return written.get();
  }

  private void enqueue(Pending p) {
    if (pending.size() >= DEFAULT_MAX_PENDING) {
      pending.pollFirst();
      dropped.incrementAndGet();
    }
    pending.addLast(p);
    drain();
  }

  private void drain() {
    while (inFlight < concurrencyNow() && !pending.isEmpty()) {
      Pending p = pending.pollFirst();
      String name =
          p.ref().name() + "." + Long.toHexString(System.nanoTime() + p.at() * 1_000_000L);
      EventCorrelator.Decision d =
          correlator.decide(p.ref(), p.type(), p.reason(), p.message(), name, p.at());
      if (d.action() == EventCorrelator.Action.DROP) {
        dropped.incrementAndGet();
        continue;
      }
      inFlight++;
      write(p, d)
          .onComplete(
              ar -> {
                inFlight--;
                if (ar.succeeded()) {
                  written.incrementAndGet();
                } else {
                  log.debug(
                      "Event {} on {} {}/{} not written: {}",
                      p.reason(),
                      p.ref().kind(),
                      p.ref().namespace(),
                      p.ref().name(),
                      ar.cause().getMessage());
                }
                drain();
              });
    }
  }

  /** Full speed when only events are being written, one at a time while other writes run. */
  private int concurrencyNow() {
    return api.inFlight() > inFlight ? DEFAULT_BUSY_CONCURRENCY : DEFAULT_CONCURRENCY;
  }

  private Future<?> write(Pending p, EventCorrelator.Decision d) {
    String ns = p.ref().namespace();
    String now = timestamp(p.at());
    if (d.action() == EventCorrelator.Action.UPDATE_COUNT) {
      JsonObject patch = new JsonObject().put("count", d.count()).put("lastTimestamp", now);
      return api.patch(
              context,
              AsyncKubeApi.corePath(ns, "events", d.eventName()),
              AsyncKubeApi.MERGE_PATCH,
              patch)
          .recover(
              e -> {
                if (e instanceof KubeApiException k && k.isNotFound()) {
                  correlator.forget(p.ref(), p.type(), p.reason(), p.message());
                  return create(p, newName(p), now, now, 1);
                }
                return Future.failedFuture(e);
              });
    }
    return create(p, d.eventName(), now, now, 1);
  }

  private Future<JsonObject> create(Pending p, String name, String first, String last, int count) {
    ObjectRef r = p.ref();
    JsonObject involved =
        new JsonObject()
            .put("kind", r.kind())
            .put("apiVersion", r.apiVersion())
            .put("namespace", r.namespace())
            .put("name", r.name());
    if (r.uid() != null) {
      involved.put("uid", r.uid());
    }
    JsonObject event =
        new JsonObject()
            .put("metadata", new JsonObject().put("name", name).put("namespace", r.namespace()))
            .put("involvedObject", involved)
            .put("reason", p.reason())
            .put("message", p.message())
            .put("type", p.type())
            .put("source", new JsonObject().put("component", SOURCE_COMPONENT))
            .put("firstTimestamp", first)
            .put("lastTimestamp", last)
            .put("count", count)
            .put("reportingComponent", REPORTING_CONTROLLER)
            .put("reportingInstance", instance);
    return api.post(context, AsyncKubeApi.corePath(r.namespace(), "events", null), event);
  }

  /** {@code <object>.<hex>}, unique per event like client-go's names. */
  private String newName(Pending p) {
    return p.ref().name() + "." + Long.toHexString(p.at() * 1_000_000L + (nameSeq++ & 0xFFFFF));
  }

  private static String timestamp(long millis) {
    return Instant.ofEpochMilli(millis).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
