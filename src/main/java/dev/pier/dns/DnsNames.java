package dev.pier.dns;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
  /** The longest label, in bytes. */
  public static final int MAX_LABEL_BYTES = 63;

  /** The longest name in bytes, written without its trailing dot. */
  public static final int MAX_NAME_BYTES = 253;

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

  /**
   * Why {@code name} cannot be a DNS name, or empty when it can: every label is 1 to {@value
   * #MAX_LABEL_BYTES} bytes and the whole name, without its trailing dot, at most {@value
   * #MAX_NAME_BYTES} bytes (RFC 1035's 255 bytes on the wire). A Service name, namespace, region or
   * zone that is a valid label on its own can still make a name too long.
   */
  public static Optional<String> nameProblem(String name) {
    String c = canonical(name);
    String bare = c.substring(0, c.length() - 1);
    for (String label : bare.split("\\.", -1)) {
      int bytes = label.getBytes(StandardCharsets.UTF_8).length;
      if (bytes == 0) {
        return Optional.of("empty label in '" + bare + "'");
      }
      if (bytes > MAX_LABEL_BYTES) {
        return Optional.of(
            "label '"
                + label
                + "' is "
                + bytes
                + " bytes, over the "
                + MAX_LABEL_BYTES
                + "-byte limit of a DNS label");
      }
    }
    int bytes = bare.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      return Optional.of(
          "the name is "
              + bytes
              + " bytes, over the "
              + MAX_NAME_BYTES
              + "-byte limit of a DNS name");
    }
    return Optional.empty();
  }

  /** True when {@link #nameProblem} finds nothing. */
  public static boolean isValidName(String name) {
    return nameProblem(name).isEmpty();
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
