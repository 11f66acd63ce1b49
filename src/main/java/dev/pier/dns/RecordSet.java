package dev.pier.dns;

import java.util.List;
import java.util.Objects;

/**
 * All records of one name and type (an rrset).
 *
 * @param name canonical name, lower case with a trailing dot
 * @param type A, AAAA, CNAME, or any other type found in the zone
 * @param ttl seconds
 * @param records record contents, sorted and without duplicates (CNAME targets end with a dot)
 * @param owner the owner mark on the rrset ({@link #ownerMark}, or an owner id alone from before
 *     marks carried the cluster), or null when it carries none
 */
public record RecordSet(String name, String type, long ttl, List<String> records, String owner) {
  public static final String A = "A";
  public static final String AAAA = "AAAA";
  public static final String CNAME = "CNAME";

  /**
   * PowerDNS's LUA records: each record is {@code <type> "<code>"}, evaluated per query (weighted
   * and views answers).
   */
  public static final String LUA = "LUA";

  public RecordSet {
    name = DnsNames.canonical(name);
    Objects.requireNonNull(type, "type");
    records = records == null ? List.of() : records.stream().distinct().sorted().toList();
  }

  /**
   * The owner mark Pier puts on its rrsets: {@code <ownerId>;cluster=<uid>}, the configured owner
   * id and the cluster's identity (the uid of its kube-system namespace). Marks of the old scheme
   * are the owner id alone.
   */
  public static String ownerMark(String ownerId, String clusterUid) {
    return ownerId + CLUSTER_MARK + clusterUid;
  }

  /** What separates the owner id from the cluster uid in an owner mark. */
  public static final String CLUSTER_MARK = ";cluster=";

  public boolean ownedBy(String ownerId) {
    return ownerId.equals(owner);
  }

  /** A, AAAA or CNAME: the types Pier writes, and so the ones that can be in its way. */
  public boolean isAddressOrAlias() {
    return type.equals(A) || type.equals(AAAA) || type.equals(CNAME);
  }

  /** A, AAAA, CNAME or LUA: the types whose records at a name answer address queries there. */
  public boolean answersAddresses() {
    return isAddressOrAlias() || type.equals(LUA);
  }

  /** {@code name TYPE} for messages. */
  public String label() {
    return name + " " + type;
  }
}
