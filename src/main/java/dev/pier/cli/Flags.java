package dev.pier.cli;

import dev.pier.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A command's flags, parsed the way kubectl users write them ({@code --flag value}, {@code
 * --flag=value}, a switch alone), with every error naming the flag and the value.
 */
public final class Flags {
  static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern LABEL_NAME =
      Pattern.compile("([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");

  private final Map<String, String> values = new LinkedHashMap<>();
  private final List<String> positional = new ArrayList<>();

  private Flags() {}

  /**
   * @param valued flags that take a value
   * @param switches flags that take none
   */
  public static Flags parse(List<String> args, Set<String> valued, Set<String> switches) {
    Flags f = new Flags();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (!a.startsWith("-") || a.equals("-")) {
        f.positional.add(a);
        continue;
      }
      String name = a;
      String value = null;
      int eq = a.indexOf('=');
      if (eq > 0) {
        name = a.substring(0, eq);
        value = a.substring(eq + 1);
      }
      if (switches.contains(name)) {
        if (value != null && !value.equals("true") && !value.equals("false")) {
          throw CliException.usage("flag " + name + ": invalid value '" + value + "'");
        }
        f.values.put(name, value == null ? "true" : value);
      } else if (valued.contains(name)) {
        if (value == null) {
          if (i + 1 >= args.size()) {
            throw CliException.usage("flag " + name + " needs a value");
          }
          value = args.get(++i);
        }
        f.values.put(name, value);
      } else {
        throw CliException.usage(
            "unknown flag "
                + name
                + " (known: "
                + String.join(", ", known(valued, switches))
                + ")");
      }
    }
    return f;
  }

  private static List<String> known(Set<String> valued, Set<String> switches) {
    List<String> all = new ArrayList<>(valued);
    all.addAll(switches);
    all.sort(null);
    return all;
  }

  public List<String> positional() {
    return positional;
  }

  /** The one positional argument NAME, a DNS label. */
  public String name(String what) {
    if (positional.isEmpty()) {
      throw CliException.usage("missing " + what);
    }
    if (positional.size() > 1) {
      throw CliException.usage("unexpected argument '" + positional.get(1) + "'");
    }
    String name = positional.get(0);
    if (name.length() > 63 || !DNS_LABEL.matcher(name).matches()) {
      throw CliException.usage(
          "invalid "
              + what
              + " '"
              + name
              + "': must be a DNS label (lower case letters, digits,"
              + " '-')");
    }
    return name;
  }

  public boolean has(String flag) {
    return values.containsKey(flag);
  }

  public boolean on(String flag) {
    return "true".equals(values.get(flag));
  }

  public String string(String flag, String fallback) {
    return values.getOrDefault(flag, fallback);
  }

  public Duration duration(String flag, Duration fallback) {
    String v = values.get(flag);
    if (v == null) {
      return fallback;
    }
    if (v.trim().equals("0")) {
      return Duration.ZERO;
    }
    try {
      Duration d = Durations.parse(v);
      if (d.isNegative()) {
        throw new IllegalArgumentException();
      }
      return d;
    } catch (RuntimeException e) {
      throw CliException.usage(
          "flag " + flag + ": invalid value '" + v + "': not a duration (e.g. 90s, 30m, 8760h)");
    }
  }

  /** A comma-separated list of DNS labels (zones); empty when not given. */
  public List<String> labels(String flag) {
    String v = values.get(flag);
    if (v == null || v.isBlank()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String z : Arrays.stream(v.split(",")).map(String::trim).toList()) {
      if (z.isEmpty() || !LABEL_VALUE.matcher(z).matches() || z.length() > 63) {
        throw CliException.usage(
            "flag " + flag + ": invalid value '" + v + "': '" + z + "' is not a valid name");
      }
      out.add(z);
    }
    return out;
  }

  /** {@code k=v,k2=v2} as Kubernetes labels; empty when not given. */
  public Map<String, String> keyValues(String flag) {
    String v = values.get(flag);
    Map<String, String> out = new TreeMap<>();
    if (v == null || v.isBlank()) {
      return out;
    }
    for (String pair : v.split(",")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair.trim() : pair.substring(0, eq).trim();
      String value = eq < 0 ? null : pair.substring(eq + 1).trim();
      if (value == null
          || !LABEL_NAME.matcher(key).matches()
          || key.length() > 316
          || !LABEL_VALUE.matcher(value).matches()
          || value.length() > 63) {
        throw CliException.usage(
            "flag "
                + flag
                + ": invalid value '"
                + v
                + "': '"
                + pair
                + "' is not a label key=value");
      }
      out.put(key, value);
    }
    return out;
  }
}
