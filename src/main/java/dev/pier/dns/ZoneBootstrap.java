package dev.pier.dns;

import io.vertx.core.Future;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the zone Pier publishes in, by name and/or id, as federation v1 did: no match creates it
 * (when a name is known), one match is used, several are an error asking for the id.
 */
public final class ZoneBootstrap {
  private static final Logger log = LoggerFactory.getLogger(ZoneBootstrap.class);

  private ZoneBootstrap() {}

  /** The zones matching the configured name (empty: any) and id (empty: any). */
  public static List<DnsZone> matching(List<DnsZone> zones, String name, String id) {
    String n = name == null || name.isEmpty() ? null : DnsNames.canonical(name);
    String i = id == null || id.isEmpty() ? null : id;
    return zones.stream()
        .filter(z -> n == null || z.name().equals(n))
        .filter(z -> i == null || z.id().equals(i))
        .toList();
  }

  public static Future<DnsZone> findOrCreate(DnsProvider provider, String name, String id) {
    return provider
        .zones()
        .compose(
            zones -> {
              List<DnsZone> found = matching(zones, name, id);
              if (found.size() == 1) {
                log.info("DNS zone {} (id {}) found", found.get(0).name(), found.get(0).id());
                return Future.succeededFuture(found.get(0));
              }
              if (found.size() > 1) {
                return Future.failedFuture(
                    DnsException.invalid(
                        "DNS zone name '"
                            + name
                            + "' matches "
                            + found.size()
                            + " zones (ids "
                            + found.stream().map(DnsZone::id).collect(Collectors.joining(", "))
                            + "): set dns.zone.id"));
              }
              if (name == null || name.isEmpty()) {
                return Future.failedFuture(
                    DnsException.invalid("no DNS zone with id '" + id + "' (dns.zone.id)"));
              }
              return provider
                  .createZone(DnsNames.canonical(name))
                  .onSuccess(
                      z ->
                          log.warn(
                              "DNS zone {} did not exist and was created (id {}): its parent zone"
                                  + " must delegate {} to this server (NS records) before the names"
                                  + " resolve publicly",
                              z.name(),
                              z.id(),
                              z.name()));
            });
  }
}
