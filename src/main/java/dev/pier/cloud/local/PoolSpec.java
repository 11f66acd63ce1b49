package dev.pier.cloud.local;

import java.util.List;

/**
 * One address pool of the {@code local} provider as configured: a {@code local.pools} entry.
 *
 * @param name the pool's name for messages, or null for a pool written as a plain CIDR or range
 * @param addresses CIDRs ({@code 10.0.0.0/24}) or inclusive ranges ({@code 10.0.0.10-10.0.0.20})
 * @param namespaces the namespaces whose Services may take addresses from the pool; empty: any
 */
public record PoolSpec(String name, List<String> addresses, List<String> namespaces) {

  public PoolSpec {
    addresses = addresses == null ? List.of() : List.copyOf(addresses);
    namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
  }

  /** A pool written as one CIDR or range, open to every namespace. */
  public static PoolSpec of(String address) {
    return new PoolSpec(null, List.of(address), List.of());
  }

  /** Pools written as CIDRs or ranges, each open to every namespace. */
  public static List<PoolSpec> of(List<String> addresses) {
    return addresses.stream().map(PoolSpec::of).toList();
  }

  /** Whether Services of {@code namespace} may take addresses from this pool. */
  public boolean admits(String namespace) {
    return namespaces.isEmpty() || (namespace != null && namespaces.contains(namespace));
  }

  /** The pool for messages: its name, or its one address when written as a plain string. */
  public String label() {
    return name != null ? name : String.join(", ", addresses);
  }

  /**
   * As written in {@code pier.yaml}: {@code 127.240.0.0/16} for a plain pool, else {@code {name:
   * team-a, addresses: [10.0.0.0/24], namespaces: [team-a]}}.
   */
  @Override
  public String toString() {
    if (name == null && namespaces.isEmpty() && addresses.size() == 1) {
      return addresses.get(0);
    }
    return "{name: "
        + name
        + ", addresses: "
        + addresses
        + (namespaces.isEmpty() ? "" : ", namespaces: " + namespaces)
        + "}";
  }
}
