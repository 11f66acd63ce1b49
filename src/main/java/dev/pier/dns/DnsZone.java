package dev.pier.dns;

/**
 * A DNS zone as a provider knows it.
 *
 * @param id the provider's opaque id (PowerDNS: usually the name with its trailing dot)
 * @param name the zone's canonical name, lower case with a trailing dot
 */
public record DnsZone(String id, String name) {
  public DnsZone {
    name = DnsNames.canonical(name);
  }
}
