package dev.pier.dns;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Federation v1's names of a Service, all canonical (lower case, trailing dot):
 *
 * <ul>
 *   <li>global {@code <svc>.<ns>.<federation>.svc.<suffix>}
 *   <li>region {@code <svc>.<ns>.<federation>.svc.<region>.<suffix>}
 *   <li>zone {@code <svc>.<ns>.<federation>.svc.<zone>.<region>.<suffix>}
 * </ul>
 */
public record DnsNames(String federation, String suffix) {
  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  public DnsNames {
    federation = federation.toLowerCase(Locale.ROOT);
    suffix = canonical(suffix);
  }

  /** Lower case with exactly one trailing dot. */
  public static String canonical(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    while (n.endsWith(".")) {
      n = n.substring(0, n.length() - 1);
    }
    return n + ".";
  }

  /** True for a label usable in a name: letters, digits and inner '-', at most 63. */
  public static boolean isLabel(String s) {
    return s != null && LABEL.matcher(s).matches();
  }

  /** True when every dot-separated part of {@code name} is a label. */
  public static boolean isDomain(String name) {
    String c = canonical(name);
    if (c.equals(".")) {
      return false;
    }
    return List.of(c.substring(0, c.length() - 1).split("\\.", -1)).stream()
        .allMatch(DnsNames::isLabel);
  }

  /** True when {@code name} is {@code domain} or below it. */
  public static boolean within(String name, String domain) {
    String n = canonical(name);
    String d = canonical(domain);
    return n.equals(d) || n.endsWith("." + d);
  }

  /** {@code <svc>.<ns>.<federation>.svc.}: the start of every name of the Service. */
  public String prefix(String namespace, String service) {
    return service + "." + namespace + "." + federation + ".svc.";
  }

  public String global(String namespace, String service) {
    return prefix(namespace, service) + suffix;
  }

  public String region(String namespace, String service, String region) {
    return prefix(namespace, service) + region + "." + suffix;
  }

  public String zone(String namespace, String service, String zone, String region) {
    return prefix(namespace, service) + zone + "." + region + "." + suffix;
  }

  /** True when {@code name} is one of the Service's names at any level. */
  public boolean isNameOf(String name, String namespace, String service) {
    String n = canonical(name);
    return n.startsWith(prefix(namespace, service)) && within(n, suffix);
  }
}
