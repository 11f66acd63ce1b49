package dev.pier.dns;

import dev.pier.util.Futures;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Gives every call of a DNS provider a total deadline: a call still running after it fails with a
 * retryable {@link DnsException} naming the call, so that a DNS server that trickles its answer
 * never pins a key (the HTTP clients' timeouts are idle timeouts).
 */
public final class DeadlineDnsProvider implements DnsProvider {
  public static final Duration DEFAULT_CALL_DEADLINE = Duration.ofMinutes(1);

  private final DnsProvider delegate;
  private final Vertx vertx;
  private final Duration deadline;

  public DeadlineDnsProvider(DnsProvider delegate, Vertx vertx, Duration deadline) {
    this.delegate = delegate;
    this.vertx = vertx;
    this.deadline = deadline;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public Future<List<DnsZone>> zones() {
    return bounded("zones", delegate::zones);
  }

  @Override
  public Future<Optional<DnsZone>> zone(String id) {
    return bounded("zone " + id, () -> delegate.zone(id));
  }

  @Override
  public Future<DnsZone> createZone(String name) {
    return bounded("createZone " + name, () -> delegate.createZone(name));
  }

  @Override
  public Future<List<RecordSet>> recordSets(DnsZone zone, String name) {
    return bounded("recordSets " + name, () -> delegate.recordSets(zone, name));
  }

  @Override
  public Future<List<RecordSet>> recordSets(DnsZone zone) {
    return bounded("recordSets of " + zone.name(), () -> delegate.recordSets(zone));
  }

  @Override
  public Future<Void> apply(DnsZone zone, ChangeSet changes) {
    return bounded("apply to " + zone.name(), () -> delegate.apply(zone, changes));
  }

  @Override
  public Future<Boolean> answersPerQuery() {
    return bounded("answersPerQuery", delegate::answersPerQuery);
  }

  @Override
  public Future<Void> close() {
    return delegate.close();
  }

  private <T> Future<T> bounded(String call, Supplier<Future<T>> run) {
    return Futures.withDeadline(
            vertx, Futures.call(run), deadline, "DNS call " + delegate.name() + " " + call)
        .recover(
            e ->
                Future.failedFuture(
                    e instanceof Futures.DeadlineExceeded
                        ? DnsException.retry(e.getMessage(), e)
                        : e));
  }
}
