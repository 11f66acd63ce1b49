package dev.pier.kube;

import dev.pier.events.EventCorrelator;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
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
  // While reconciles are writing Services, events wait: they would share the API server's capacity
  // with the writes that make load balancers visible (in a cold start, half the writes are events).
  // One that has waited DEFAULT_MAX_HOLD goes anyway, one at a time, so a Service write in flight
  // at
  // every moment never starves them.
  public static final Duration DEFAULT_MAX_HOLD = Duration.ofSeconds(5);
  public static final int DEFAULT_BUSY_CONCURRENCY = 1;
  // How often held events look again whether the other writes have ended.
  private static final long RECHECK_MS = 50;
  private static final int MAX_MESSAGE = 1024;

  private record Pending(ObjectRef ref, String type, String reason, String message, long at) {}

  private final Context context;
  private final AsyncKubeApi api;
  private final String instance;
  private final EventCorrelator correlator = new EventCorrelator();
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  // The last write in flight of each Event, by name: the next write of that Event waits for it.
  private final Map<String, Future<?>> writing = new HashMap<>();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private final long maxHoldMillis;
  private int inFlight;
  private long nameSeq;
  private boolean recheckSet;

  public KubeEventRecorder(Vertx vertx, AsyncKubeApi api, String instance) {
    this(vertx, api, instance, DEFAULT_MAX_HOLD);
  }

  KubeEventRecorder(Vertx vertx, AsyncKubeApi api, String instance, Duration maxHold) {
    this.context = vertx.getOrCreateContext();
    this.api = api;
    this.instance = instance;
    this.maxHoldMillis = maxHold.toMillis();
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
    while (!pending.isEmpty()) {
      if (inFlight >= concurrencyNow(pending.peekFirst())) {
        recheckLater();
        return;
      }
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

  /**
   * Full speed when only events are being written; while other writes run, none until the oldest
   * event has waited the longest hold, then one at a time.
   */
  private int concurrencyNow(Pending oldest) {
    if (api.inFlight() <= inFlight) {
      return DEFAULT_CONCURRENCY;
    }
    return System.currentTimeMillis() - oldest.at() >= maxHoldMillis ? DEFAULT_BUSY_CONCURRENCY : 0;
  }

  /** Held events look again soon: nothing else wakes them when the other writes end. */
  private void recheckLater() {
    if (!recheckSet) {
      recheckSet = true;
      context
          .owner()
          .setTimer(
              RECHECK_MS,
              id -> {
                recheckSet = false;
                drain();
              });
    }
  }

  /**
   * Writes one Event after the previous write of the same Event has ended: a count sent before its
   * Event's create landed would find nothing and make a second Event, and counts sent side by side
   * could land out of order, the last one a lower count.
   */
  private Future<?> write(Pending p, EventCorrelator.Decision d) {
    String name = d.eventName();
    Future<?> previous = writing.getOrDefault(name, Future.succeededFuture());
    Future<?> next = previous.otherwiseEmpty().compose(ignored -> send(p, d));
    writing.put(name, next);
    next.onComplete(ar -> writing.remove(name, next));
    return next;
  }

  private Future<?> send(Pending p, EventCorrelator.Decision d) {
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
