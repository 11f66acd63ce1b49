package dev.pier.dns;

import io.vertx.core.Future;
import java.util.List;
import java.util.Optional;

/**
 * A DNS service Pier publishes names in. Every call is non-blocking. Failures are {@link
 * DnsException}s: retryable ones go through the key's backoff.
 */
public interface DnsProvider {
  /** Short name for logs, e.g. {@code powerdns}. */
  String name();

  /** Every zone the server holds (without their records). */
  Future<List<DnsZone>> zones();

  /** The zone with this provider id, or empty. */
  Future<Optional<DnsZone>> zone(String id);

  /** Creates a zone; fails when it exists. */
  Future<DnsZone> createZone(String name);

  /** Every rrset at {@code name} (any type); empty when there is none. */
  Future<List<RecordSet>> recordSets(DnsZone zone, String name);

  /** Every rrset of the zone. */
  Future<List<RecordSet>> recordSets(DnsZone zone);

  /** Applies the change set in one atomic operation. */
  Future<Void> apply(DnsZone zone, ChangeSet changes);

  /**
   * Whether the server computes answers per query (PowerDNS with LUA records enabled): the weighted
   * and views strategies need it. Memoized once known.
   */
  default Future<Boolean> answersPerQuery() {
    return Future.succeededFuture(false);
  }

  default Future<Void> close() {
    return Future.succeededFuture();
  }
}
