package dev.pier.cloud.local;

import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.log.ServiceLog;
import dev.pier.model.ServiceRef;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Tells a Service's owners that one of its load balancer's limits bit: a Warning Event and a log
 * line, at most one per interval, so a flood of refused clients does not become a flood of Events.
 * The next one after a quiet spell says how many went unreported in between.
 */
final class LimitWarning {

  private static final ServiceLog serviceLog = ServiceLog.of(LimitWarning.class);

  private final ServiceRef service;
  private final EventSink events;
  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private boolean warned;
  private long lastNanos;
  private long unreported;

  LimitWarning(ServiceRef service, EventSink events, Duration interval, LongSupplier nanoTime) {
    this.service = service;
    this.events = events;
    this.intervalNanos = interval.toNanos();
    this.nanoTime = nanoTime;
  }

  void bite(String message) {
    long now = nanoTime.getAsLong();
    if (warned && now - lastNanos < intervalNanos) {
      unreported++;
      return;
    }
    String text =
        unreported == 0
            ? message
            : message
                + " ("
                + unreported
                + " more since the last "
                + EventReasons.LIMIT_REACHED
                + " Event)";
    warned = true;
    lastNanos = now;
    unreported = 0;
    serviceLog.warn(service, "{}", text);
    events.warning(ObjectRef.of(service), EventReasons.LIMIT_REACHED, text);
  }
}
