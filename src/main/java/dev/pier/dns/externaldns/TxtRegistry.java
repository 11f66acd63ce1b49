package dev.pier.dns.externaldns;

import dev.pier.dns.DnsNames;
import dev.pier.dns.RecordSet;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pier's ownership records over the external-dns webhook protocol, which carries no comments: a TXT
 * record at {@code <prefix><lowercase type>-<name>} per rrset Pier owns, holding {@code
 * "heritage=pier,pier/owner=<ownerId>,pier/cluster=<uid>,pier/resource=service/<ns>/<name>"}. The
 * heritage is never {@code external-dns}, so an external-dns sharing the zone never takes Pier's
 * names for its own (and Pier never takes external-dns's: only {@code heritage=pier} counts).
 */
public final class TxtRegistry {
  static final String HERITAGE = "heritage=pier";
  private static final Pattern VALUE =
      Pattern.compile(
          "heritage=pier,pier/owner=(.+?)(?:,pier/cluster=([^,]*))?(?:,pier/resource=(.*))?");

  private final String prefix;

  public TxtRegistry(String prefix) {
    this.prefix = prefix.toLowerCase(Locale.ROOT);
  }

  /** The canonical name of the registry record of the rrset {@code name type}. */
  public String registryName(String name, String type) {
    return DnsNames.canonical(prefix + type.toLowerCase(Locale.ROOT) + "-" + name);
  }

  /** The rrset {@code [name, TYPE]} a registry name guards (A, AAAA or CNAME), or empty. */
  public Optional<String[]> guarded(String registryName) {
    String n = DnsNames.canonical(registryName);
    if (!n.startsWith(prefix)) {
      return Optional.empty();
    }
    String rest = n.substring(prefix.length());
    int dash = rest.indexOf('-');
    if (dash <= 0 || dash == rest.length() - 1) {
      return Optional.empty();
    }
    String type = rest.substring(0, dash).toUpperCase(Locale.ROOT);
    String guarded = rest.substring(dash + 1);
    if (!new RecordSet(guarded, type, 0, null, null).isAddressOrAlias() || guarded.equals(".")) {
      return Optional.empty();
    }
    return Optional.of(new String[] {guarded, type});
  }

  /**
   * The TXT content for an owner mark ({@code <ownerId>;cluster=<uid>}, or the owner id alone),
   * quoted as external-dns writes TXT targets.
   *
   * @param resource {@code service/<ns>/<name>}, or null to leave the part out
   */
  public static String value(String ownerMark, String resource) {
    int at = ownerMark.indexOf(RecordSet.CLUSTER_MARK);
    StringBuilder v = new StringBuilder("\"").append(HERITAGE).append(",pier/owner=");
    if (at < 0) {
      v.append(ownerMark);
    } else {
      v.append(ownerMark, 0, at)
          .append(",pier/cluster=")
          .append(ownerMark.substring(at + RecordSet.CLUSTER_MARK.length()));
    }
    if (resource != null) {
      v.append(",pier/resource=").append(resource);
    }
    return v.append('"').toString();
  }

  /** The owner mark in a TXT content written by Pier (quoted or not), or empty for any other. */
  public static Optional<String> ownerMark(String txt) {
    String t = txt.trim();
    if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
      t = t.substring(1, t.length() - 1);
    }
    Matcher m = VALUE.matcher(t);
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(
        m.group(2) == null ? m.group(1) : RecordSet.ownerMark(m.group(1), m.group(2)));
  }
}
