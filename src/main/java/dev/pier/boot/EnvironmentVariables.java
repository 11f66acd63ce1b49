package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.Option;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks the {@code PIER_*} environment variables: one that matches no option is most likely a typo
 * that would otherwise be ignored without a word.
 */
public final class EnvironmentVariables {
  /** The variables Pier reads that are not options, with what they do (for {@code --help}). */
  public static final Map<String, String> OWN;

  /** The variables besides options and {@link #OWN} that Pier reads, with what they do. */
  public static final Map<String, String> OTHERS;

  static {
    Map<String, String> own = new LinkedHashMap<>();
    own.put(
        "PIER_LOG_LEVEL", "level of the root logger: TRACE, DEBUG, INFO (default), WARN, ERROR");
    OWN = Collections.unmodifiableMap(own);
    Map<String, String> others = new LinkedHashMap<>();
    others.put(
        "POD_NAME", "leader election identity (plus the process id); k8s/deployment.yaml sets it");
    others.put("HOSTNAME", "the identity when POD_NAME is unset");
    others.put(
        "KUBECONFIG",
        "kubeconfig file when cluster.kubeconfig is empty (with fabric8's other KUBERNETES_*"
            + " settings)");
    others.put(
        "HCLOUD_TOKEN",
        "Hetzner Cloud API token when hetzner.tokenFile is empty; hetzner.tokenEnv names another");
    others.put(
        "PDNS_API_KEY",
        "PowerDNS API key when dns.powerdns.apiKeyFile is empty; dns.powerdns.apiKeyEnv names"
            + " another");
    OTHERS = Collections.unmodifiableMap(others);
  }

  /**
   * The variables a kubelet injects for each Service of the pod's namespace (unless the pod spec
   * sets enableServiceLinks: false): for Services named pier or pier-*, they start with PIER_.
   */
  private static final Pattern SERVICE_LINK =
      Pattern.compile(
          "PIER(_[A-Z0-9_]+)?_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?"
              + "|PORT_[0-9]+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)");

  private static final Pattern SERVICE_LINK_PORT = Pattern.compile("PIER(_[A-Z0-9_]+)?_PORT");
  private static final Pattern SERVICE_LINK_PORT_VALUE =
      Pattern.compile("(tcp|udp|sctp)://\\S+:[0-9]+");

  private EnvironmentVariables() {}

  /**
   * Warnings for {@code env}'s PIER_* variables that match nothing Pier reads, or, when {@code
   * config.strictEnvironment} is true, a ConfigException naming them.
   *
   * @throws ConfigException when there are such variables and the strict switch is on
   */
  public static List<String> check(ConfigValues config, Map<String, String> env) {
    List<String> unknown = unknown(config, env);
    if (!unknown.isEmpty() && config.get(PierOptions.CONFIG_STRICT_ENVIRONMENT)) {
      throw new ConfigException(
          String.join("\n", unknown)
              + " ("
              + config.describe(PierOptions.CONFIG_STRICT_ENVIRONMENT)
              + " is true)");
    }
    return unknown;
  }

  /**
   * One message per PIER_* variable of {@code env} that is none of: an option's variable, a field
   * or provider option of a cluster of {@code clusters}, a variable of {@link #OWN}, a variable
   * that hetzner.tokenEnv or dns.powerdns.apiKeyEnv names, a Kubernetes service link variable.
   */
  public static List<String> unknown(ConfigValues config, Map<String, String> env) {
    Set<String> known = new HashSet<>(OWN.keySet());
    List<String> suggestions = new ArrayList<>();
    PierOptions.ALL.forEach(o -> suggestions.add(o.envName()));
    for (ClusterConfigs.Item item : config.get(PierOptions.CLUSTERS)) {
      String prefix = ClusterConfigs.envPrefix(item.spec().name());
      for (ClusterConfigs.Field field : ClusterConfigs.Field.values()) {
        suggestions.add(prefix + Option.envForm(field.key));
      }
      for (Option<?> o : PierOptions.PROVIDER_OPTIONS) {
        suggestions.add(prefix + Option.envForm(o.path()));
      }
      if (item.provider().get(PierOptions.HETZNER_TOKEN_ENV.path()) instanceof String s) {
        known.add(s);
      }
    }
    known.addAll(suggestions);
    known.add(config.get(PierOptions.HETZNER_TOKEN_ENV));
    known.add(config.get(PierOptions.DNS_POWERDNS_API_KEY_ENV));
    List<String> out = new ArrayList<>();
    env.keySet().stream()
        .filter(name -> name.startsWith("PIER_"))
        .filter(name -> !known.contains(name))
        .filter(name -> !serviceLink(name, env.get(name)))
        .sorted()
        .forEach(name -> out.add(message(name, suggestions)));
    return out;
  }

  private static boolean serviceLink(String name, String value) {
    return SERVICE_LINK.matcher(name).matches()
        || (SERVICE_LINK_PORT.matcher(name).matches()
            && value != null
            && SERVICE_LINK_PORT_VALUE.matcher(value).matches());
  }

  private static String message(String name, List<String> candidates) {
    String nearest = null;
    int best = Integer.MAX_VALUE;
    for (String c : candidates) {
      int d = distance(name, c);
      if (d < best) {
        best = d;
        nearest = c;
      }
    }
    String hint =
        nearest != null && best <= Math.max(2, name.length() / 8)
            ? " (did you mean " + nearest + "?)"
            : "";
    return "environment variable " + name + " matches no option" + hint;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
