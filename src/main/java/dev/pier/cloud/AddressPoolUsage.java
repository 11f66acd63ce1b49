package dev.pier.cloud;

import java.util.List;

/**
 * How many addresses one address pool of a provider has and how many of them Services hold.
 *
 * @param pool the pool's name, or its one CIDR or range when it has no name
 * @param addresses the addresses Services may take from it (as a double: an IPv6 pool may hold up
 *     to 2^64 - 1)
 * @param inUse the addresses Services hold
 */
public record AddressPoolUsage(String pool, double addresses, long inUse) {

  /** A provider that hands out addresses from pools; safe to call from any thread. */
  public interface Source {
    /** Every pool, in the order configured. */
    List<AddressPoolUsage> addressPools();
  }
}
