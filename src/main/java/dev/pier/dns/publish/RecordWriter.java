package dev.pier.dns.publish;

import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordDiff;
import dev.pier.dns.RecordSet;
import dev.pier.events.ObjectRef;
import dev.pier.kube.ClusterAccess;
import dev.pier.model.ServiceRef;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Brings a Service's names in DNS to what it should hold: reads the names, diffs them against what
 * is wanted (changing only rrsets Pier owns), and sends one change set holding only what differs,
 * nothing when DNS already matches. The inventory is told what the Service owns afterwards.
 *
 * <p>One name never holds up the others: when the server refuses a change set (PowerDNS's 422) its
 * names are sent one by one, so that the good ones land while each refused one gets a Warning and
 * the key's backoff.
 */
final class RecordWriter {
  static final Set<WorkKind> RETRY = Set.of(WorkKind.DNS);

  private final DnsProvider provider;
  private final String ownerId;
  private final ZoneInventory inventory;

  RecordWriter(DnsProvider provider, String ownerId, ZoneInventory inventory) {
    this.provider = provider;
    this.ownerId = ownerId;
    this.inventory = inventory;
  }

  /** The Service a write is for, and where it reports. */
  record Target(ClusterAccess cluster, String objectKey, ServiceRef service, ObjectRef ref) {}

  /** Sends what the names known to be wrong need; the names left out keep their records. */
  Future<WorkResult> write(Target t, DnsZone zone, DesiredNames plan, String mark) {
    if (plan.none()) {
      inventory.remember(t.objectKey(), Set.of());
      return Future.succeededFuture(WorkResult.success());
    }
    List<String> toRead = List.copyOf(plan.desired().keySet());
    List<Future<List<RecordSet>>> reads =
        toRead.stream().map(n -> provider.recordSets(zone, n)).toList();
    return Future.all(reads)
        .compose(
            all -> {
              Map<String, List<RecordSet>> existing = new HashMap<>();
              for (int i = 0; i < toRead.size(); i++) {
                existing.put(toRead.get(i), reads.get(i).result());
              }
              RecordDiff.Result diff = RecordDiff.compute(plan.desired(), existing, mark, ownerId);
              diff.adopted().forEach(r -> DnsReports.adopted(t.service(), r, mark));
              diff.conflicts()
                  .forEach(c -> DnsReports.conflict(t.cluster(), t.service(), t.ref(), c));
              return send(t, zone, diff, plan.before());
            });
  }

  private Future<WorkResult> send(
      Target t, DnsZone zone, RecordDiff.Result diff, Set<String> before) {
    if (diff.changes().isEmpty()) {
      inventory.remember(t.objectKey(), diff.owned());
      return Future.succeededFuture(WorkResult.success());
    }
    return provider
        .apply(zone, diff.changes())
        .map(
            v -> {
              inventory.remember(t.objectKey(), diff.owned());
              DnsReports.updated(t.cluster(), t.service(), t.ref(), diff.changes());
              return WorkResult.success();
            })
        .recover(
            e -> {
              // The change may have landed even so (a timeout): keep every name in view.
              Set<String> maybe = new LinkedHashSet<>(before);
              maybe.addAll(diff.owned());
              inventory.remember(t.objectKey(), maybe);
              if (!(e instanceof DnsException d) || !d.rejected()) {
                return Future.failedFuture(e);
              }
              return refused(t, zone, diff, d);
            });
  }

  /** A refused change set: one name is refused as it is, several are sent one by one. */
  private Future<WorkResult> refused(
      Target t, DnsZone zone, RecordDiff.Result diff, DnsException refusal) {
    Map<String, ChangeSet> byName = byName(diff.changes());
    if (byName.size() == 1) {
      Split split = new Split();
      split.rejected.put(byName.keySet().iterator().next(), refusal);
      return settle(t, diff.owned(), split);
    }
    DnsReports.splitting(t.service(), byName.size(), refusal);
    return applyEach(zone, new ArrayList<>(byName.entrySet()), 0, new Split())
        .compose(split -> settle(t, diff.owned(), split));
  }

  /** What sending a refused change set name by name came to. */
  private static final class Split {
    final List<ChangeSet> landed = new ArrayList<>();
    final Map<String, DnsException> rejected = new LinkedHashMap<>();
    Throwable failure;
  }

  /**
   * Sends the change sets one after the other. A name the server refuses is noted and the next one
   * sent; any other failure (the server gone, a timeout) stops the split, since the names left
   * would most likely fail the same way, and is noted for the key's backoff.
   */
  private Future<Split> applyEach(
      DnsZone zone, List<Map.Entry<String, ChangeSet>> changes, int next, Split split) {
    if (next == changes.size()) {
      return Future.succeededFuture(split);
    }
    Map.Entry<String, ChangeSet> one = changes.get(next);
    return provider
        .apply(zone, one.getValue())
        .transform(
            ar -> {
              if (ar.succeeded()) {
                split.landed.add(one.getValue());
              } else if (ar.cause() instanceof DnsException d && d.rejected()) {
                split.rejected.put(one.getKey(), d);
              } else {
                split.failure = ar.cause();
                return Future.succeededFuture(split);
              }
              return applyEach(zone, changes, next + 1, split);
            });
  }

  /**
   * The outcome of a refused change set once its names were sent on their own: the names that
   * landed are announced, each refused name gets a Warning, and the key is retried with backoff (a
   * refusal may be a race with another writer, which the next read sees as a conflict).
   */
  private Future<WorkResult> settle(Target t, Set<String> owned, Split split) {
    if (!split.landed.isEmpty()) {
      DnsReports.updated(
          t.cluster(),
          t.service(),
          t.ref(),
          new ChangeSet(
              split.landed.stream().flatMap(c -> c.deletes().stream()).toList(),
              split.landed.stream().flatMap(c -> c.replaces().stream()).toList()));
    }
    if (split.rejected.isEmpty() && split.failure == null) {
      inventory.remember(t.objectKey(), owned);
      return Future.succeededFuture(WorkResult.success());
    }
    split.rejected.forEach(
        (name, e) -> DnsReports.rejected(t.cluster(), t.service(), t.ref(), name, e));
    if (split.failure != null) {
      return Future.failedFuture(split.failure);
    }
    return Future.succeededFuture(WorkResult.retry(RETRY));
  }

  /** The change set cut into one per name, each keeping its deletes before its replaces. */
  static Map<String, ChangeSet> byName(ChangeSet changes) {
    Map<String, List<RecordSet>> deletes = new LinkedHashMap<>();
    Map<String, List<RecordSet>> replaces = new LinkedHashMap<>();
    Set<String> order = new LinkedHashSet<>();
    for (RecordSet d : changes.deletes()) {
      order.add(d.name());
      deletes.computeIfAbsent(d.name(), n -> new ArrayList<>()).add(d);
    }
    for (RecordSet r : changes.replaces()) {
      order.add(r.name());
      replaces.computeIfAbsent(r.name(), n -> new ArrayList<>()).add(r);
    }
    Map<String, ChangeSet> out = new LinkedHashMap<>();
    for (String name : order) {
      out.put(
          name,
          new ChangeSet(
              deletes.getOrDefault(name, List.of()), replaces.getOrDefault(name, List.of())));
    }
    return out;
  }
}
