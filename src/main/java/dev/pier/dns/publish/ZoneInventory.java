package dev.pier.dns.publish;

import dev.pier.dns.DnsException;
import dev.pier.dns.DnsNames;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordSet;
import dev.pier.dns.ZoneBootstrap;
import io.vertx.core.Future;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DNS zone and which of its names hold Pier's records, by Service. The zone is found (or
 * created) and read in full once; afterwards each sync tells the inventory what it now owns, so
 * that no sync needs to read more than its own Service's names. Thread-safe: the reconcile and the
 * federation queues both sync through it, never the same Service at once.
 */
final class ZoneInventory {
  // Under the publisher's name, where every line of DNS publishing is logged.
  private static final Logger log = LoggerFactory.getLogger(DnsPublisher.class);

  private final DnsProvider provider;
  private final DnsOptions options;
  private final DnsNames names;
  private Future<DnsZone> ready;
  private volatile Consumer<Set<String>> holders = keys -> {};
  // Names holding Pier's records, by namespace/name: read from the zone once, then kept current.
  private final Map<String, Set<String>> published = new ConcurrentHashMap<>();

  ZoneInventory(DnsProvider provider, DnsOptions options, DnsNames names) {
    this.provider = provider;
    this.options = options;
    this.names = names;
  }

  /** Told the Services holding names whenever the zone is read in full. */
  void onHolders(Consumer<Set<String>> holders) {
    this.holders = holders;
  }

  /**
   * Finds or creates the zone and reads Pier's names from it; memoized on success, retried by the
   * next call after a failure.
   */
  synchronized Future<DnsZone> zone() {
    if (ready == null || ready.failed()) {
      ready =
          ZoneBootstrap.findOrCreate(provider, options.getZoneName(), options.getZoneId())
              .compose(zone -> checkSuffix(zone).compose(v -> load(zone)).map(zone));
    }
    return ready;
  }

  /** How many names hold records this Pier owns, over all Services. */
  int ownedNames() {
    return published.values().stream().mapToInt(Set::size).sum();
  }

  /** The names the Service's records were last known under; empty when none. */
  Set<String> owned(String objectKey) {
    Set<String> owned = published.get(objectKey);
    return owned == null ? Set.of() : Collections.unmodifiableSet(new LinkedHashSet<>(owned));
  }

  /** The Service's records are under exactly these names now. */
  void remember(String objectKey, Set<String> owned) {
    if (owned.isEmpty()) {
      published.remove(objectKey);
    } else {
      published.put(objectKey, new LinkedHashSet<>(owned));
    }
  }

  /** Names that keep their records while they cannot be computed stay known as the Service's. */
  void keep(String objectKey, Set<String> kept) {
    if (!kept.isEmpty()) {
      published.computeIfAbsent(objectKey, k -> new LinkedHashSet<>()).addAll(kept);
    }
  }

  /** {@code namespace/name} of the Service a name of Pier's form belongs to, or null. */
  String serviceOf(String name) {
    String[] labels = name.split("\\.");
    if (labels.length < 5
        || !labels[2].equals(names.federation())
        || !labels[3].equals("svc")
        || !DnsNames.within(name, names.suffix())) {
      return null;
    }
    return labels[1] + "/" + labels[0];
  }

  private Future<Void> checkSuffix(DnsZone zone) {
    if (!DnsNames.within(names.suffix(), zone.name())) {
      return Future.failedFuture(
          DnsException.invalid(
              "dns.suffix '" + names.suffix() + "' is not inside DNS zone " + zone.name()));
    }
    return Future.succeededFuture();
  }

  private Future<Void> load(DnsZone zone) {
    return provider.recordSets(zone).map(sets -> loaded(zone, sets));
  }

  private Void loaded(DnsZone zone, List<RecordSet> sets) {
    published.clear();
    for (RecordSet r : sets) {
      String owner = serviceOf(r.name());
      if (owner != null && ownerIdOf(r)) {
        published.computeIfAbsent(owner, k -> new LinkedHashSet<>()).add(r.name());
      }
    }
    log.info(
        "DNS zone {}: {} Service(s) hold names owned by '{}'",
        zone.name(),
        published.size(),
        options.getOwnerId());
    holders.accept(Set.copyOf(published.keySet()));
    return null;
  }

  /**
   * True when the rrset carries this owner id, with any cluster uid or none: such Services get a
   * DNS run at start, which changes only what the diff proves this cluster's own.
   */
  private boolean ownerIdOf(RecordSet r) {
    String id = options.getOwnerId();
    return r.owner() != null
        && (r.owner().equals(id) || r.owner().startsWith(id + RecordSet.CLUSTER_MARK));
  }
}
