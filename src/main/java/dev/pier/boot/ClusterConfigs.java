package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.config.InvalidItemException;
import dev.pier.config.Option;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The clusters Pier serves: the single {@code cluster:} section, or the items of {@code clusters:}
 * with their {@code PIER_CLUSTERS_<NAME>_<FIELD>} environment overrides, each with the option
 * values that hold for it.
 */
public final class ClusterConfigs {

  /** What {@code clusters} takes, completing "must be ...". */
  static final String ITEMS_ALLOWED =
      "a list of clusters {name, kubeconfig, context, inCluster, region, zones, loadBalancers,"
          + " federation, labels, provider sections}, written in the file (variables"
          + " PIER_CLUSTERS_<NAME>_<FIELD> override their fields)";

  private static final String ITEM_ALLOWED =
      "a mapping {name, kubeconfig, context, inCluster, region, zones, loadBalancers, federation,"
          + " labels, provider sections}";
  private static final String NAME_ALLOWED =
      "a DNS label (lower case letters, digits, '-'), unique among the clusters";
  private static final String KEYS_ALLOWED =
      "absent: a cluster has the keys name, kubeconfig, context, inCluster, region, zones,"
          + " loadBalancers, federation, labels and the provider sections provider, local,"
          + " hetzner, webhook, benchmark";
  private static final String LABEL_KEY_ALLOWED =
      "a label key: an optional DNS subdomain prefix and '/', then a name of up to 63 letters,"
          + " digits, '-', '_' or '.' that starts and ends with a letter or digit";
  private static final String LABEL_VALUE_ALLOWED =
      "a label value: empty, or up to 63 letters, digits, '-', '_' or '.' that starts and ends"
          + " with a letter or digit";

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern LABEL_NAME =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /**
   * One item of {@code clusters} as the file gives it, checked.
   *
   * @param spec the cluster (no inline credentials)
   * @param provider its provider sections by option path ({@code local.pools}), values as written
   */
  public record Item(ClusterSpec spec, Map<String, Object> provider) {
    public Item {
      provider = Collections.unmodifiableMap(new LinkedHashMap<>(provider));
    }
  }

  /** The fields of a cluster item besides its name, as written and in the environment. */
  enum Field {
    KUBECONFIG("kubeconfig", "a file path"),
    CONTEXT("context", "a context name"),
    IN_CLUSTER("inCluster", "true or false"),
    REGION("region", "a region name"),
    ZONES("zones", "a list of zone names"),
    LOAD_BALANCERS("loadBalancers", "true or false"),
    FEDERATION(
        "federation",
        "one of "
            + Arrays.stream(FederationRole.values()).map(FederationRole::configName).toList()),
    LABELS("labels", "a mapping of label keys to label values");

    final String key;
    final String allowed;

    Field(String key, String allowed) {
      this.key = key;
      this.allowed = allowed;
    }

    static Field of(String key) {
      for (Field f : values()) {
        if (f.key.equals(key)) {
          return f;
        }
      }
      return null;
    }
  }

  private ClusterConfigs() {}

  /**
   * The clusters to serve. Without {@code clusters} items: the single cluster section with the
   * top-level values, as always. With items: one setup per item, in the file's order, its fields
   * and provider options overridden by {@code PIER_CLUSTERS_<NAME>_<FIELD>} variables.
   *
   * @param env the environment, for the per-cluster overrides
   * @throws ConfigException naming the file or variable, the path, the value and what is allowed:
   *     for the cluster section and items together, a bad override or provider option of a cluster,
   *     kubeconfig with inCluster, more than one host, members without a host
   */
  public static List<ClusterSetup> of(ConfigValues config, Function<String, String> env) {
    List<Item> items = config.get(PierOptions.CLUSTERS);
    if (items.isEmpty()) {
      return List.of(
          new ClusterSetup(
              ClusterSpec.single(
                  config.get(PierOptions.CLUSTER_NAME),
                  config.get(PierOptions.CLUSTER_KUBECONFIG),
                  config.get(PierOptions.CLUSTER_CONTEXT)),
              config,
              config.describe(PierOptions.CLUSTER_KUBECONFIG)));
    }
    for (Option<?> o :
        List.of(
            PierOptions.CLUSTER_NAME,
            PierOptions.CLUSTER_KUBECONFIG,
            PierOptions.CLUSTER_CONTEXT)) {
      if (config.isSet(o)) {
        throw new ConfigException(
            config.describe(o)
                + ": not allowed together with clusters ("
                + config.describe(PierOptions.CLUSTERS)
                + "): use the cluster section for one cluster or clusters for several, not both");
      }
    }
    ConfigLoader loader = new ConfigLoader(PierOptions.PROVIDER_OPTIONS, env);
    List<ClusterSetup> setups = new ArrayList<>();
    Map<String, String> federationOrigins = new HashMap<>();
    for (Item item : items) {
      String name = item.spec().name();
      String path = "clusters[" + name + "]";
      String envPrefix = envPrefix(name);
      Fields fields = Fields.of(item.spec());
      Map<Field, String> origins = new EnumMap<>(Field.class);
      for (Field field : Field.values()) {
        String var = envPrefix + Option.envForm(field.key);
        String value = env.apply(var);
        if (value == null) {
          origins.put(field, config.source() + ": " + path + "." + field.key);
          continue;
        }
        try {
          fields.set(field, value, "[" + name + "]." + field.key);
        } catch (InvalidItemException e) {
          throw new ConfigException(
              ConfigLoader.invalid(
                  "environment variable " + var + " (clusters" + e.subPath() + ")",
                  e.value(),
                  e.allowed()));
        }
        origins.put(field, "environment variable " + var + " (" + path + "." + field.key + ")");
      }
      if (fields.inCluster && !fields.kubeconfig.isEmpty()) {
        throw new ConfigException(
            ConfigLoader.invalid(
                origins.get(Field.IN_CLUSTER),
                "true",
                "false when kubeconfig is set ("
                    + origins.get(Field.KUBECONFIG)
                    + "): the cluster is reached through one or the other"));
      }
      ConfigValues values = loader.loadPart(config, item.provider(), path + ".", envPrefix);
      ClusterSpec spec = fields.spec(name);
      federationOrigins.put(name, origins.get(Field.FEDERATION));
      setups.add(new ClusterSetup(spec, values, origins.get(Field.KUBECONFIG)));
    }
    checkFederation(setups, federationOrigins);
    return List.copyOf(setups);
  }

  /** {@code PIER_CLUSTERS_} plus the cluster's name in upper snake case, plus {@code _}. */
  public static String envPrefix(String clusterName) {
    return "PIER_CLUSTERS_" + Option.envForm(clusterName) + "_";
  }

  private static void checkFederation(List<ClusterSetup> setups, Map<String, String> origins) {
    String host = null;
    String member = null;
    for (ClusterSetup s : setups) {
      String name = s.spec().name();
      switch (s.spec().federation()) {
        case HOST -> {
          if (host != null) {
            throw new ConfigException(
                ConfigLoader.invalid(
                    origins.get(name),
                    FederationRole.HOST.configName(),
                    "member or none: clusters["
                        + host
                        + "] is the host already ("
                        + origins.get(host)
                        + "), and a federation has one"));
          }
          host = name;
        }
        case MEMBER -> member = member == null ? name : member;
        case NONE -> {}
      }
    }
    if (member != null && host == null) {
      throw new ConfigException(
          ConfigLoader.invalid(
              origins.get(member),
              FederationRole.MEMBER.configName(),
              "host or none: members need a host, and no cluster has federation: host"));
    }
  }

  /**
   * Parses the raw value of {@code clusters}: a list of mappings from the file (the environment
   * only overrides fields of listed clusters, or gives an empty value).
   *
   * @throws InvalidItemException naming the item ({@code [east]}, or {@code [2]} before its name is
   *     known) and key
   */
  static List<Item> parseItems(Object raw) {
    if (raw instanceof String s) {
      if (s.isBlank()) {
        return List.of();
      }
      throw new IllegalArgumentException("list the clusters in the file");
    }
    List<?> list = (List<?>) raw;
    List<Item> items = new ArrayList<>(list.size());
    Map<String, Integer> names = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      if (!(list.get(i) instanceof Map<?, ?> m)) {
        throw new InvalidItemException("[" + i + "]", String.valueOf(list.get(i)), ITEM_ALLOWED);
      }
      Object n = m.get("name");
      if (!(n instanceof String name) || !DNS_LABEL.matcher(name).matches()) {
        throw new InvalidItemException("[" + i + "].name", String.valueOf(n), NAME_ALLOWED);
      }
      Integer earlier = names.putIfAbsent(name, i);
      if (earlier != null) {
        throw new InvalidItemException(
            "[" + i + "].name", name, NAME_ALLOWED + "; clusters[" + earlier + "] has it already");
      }
      items.add(item(name, m));
    }
    return List.copyOf(items);
  }

  private static Item item(String name, Map<?, ?> m) {
    String at = "[" + name + "]";
    Fields fields = new Fields();
    Map<String, Object> provider = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      String key = String.valueOf(e.getKey());
      Object value = e.getValue();
      Field field = Field.of(key);
      if (key.equals("name")) {
        continue;
      } else if (field != null) {
        if (value != null) {
          fields.set(field, value, at + "." + key);
        }
      } else if (key.equals("provider") || PierOptions.PROVIDER_SECTIONS.contains(key)) {
        flatten(at, key, value, provider);
      } else {
        throw new InvalidItemException(at + "." + key, display(value), KEYS_ALLOWED);
      }
    }
    return new Item(fields.spec(name), provider);
  }

  /** Puts a provider section's values under their option paths, refusing unknown keys. */
  private static void flatten(String at, String path, Object value, Map<String, Object> out) {
    if (value == null) {
      return;
    }
    if (value instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        flatten(at, path + "." + e.getKey(), e.getValue(), out);
      }
      return;
    }
    if (PierOptions.PROVIDER_OPTIONS.stream().noneMatch(o -> o.path().equals(path))) {
      String section = path.contains(".") ? path.substring(0, path.indexOf('.')) : path;
      String options =
          PierOptions.PROVIDER_OPTIONS.stream()
              .map(Option::path)
              .filter(p -> p.startsWith(section + "."))
              .collect(Collectors.joining(", "));
      throw new InvalidItemException(
          at + "." + path,
          display(value),
          options.isEmpty()
              ? KEYS_ALLOWED
              : "absent: the options of a cluster's " + section + " section are " + options);
    }
    out.put(path, value);
  }

  private static String display(Object value) {
    return String.valueOf(value);
  }

  /** A cluster's fields while they are read and overridden. */
  private static final class Fields {
    String kubeconfig = "";
    String context = "";
    boolean inCluster;
    String region = "";
    List<String> zones = List.of();
    boolean loadBalancers = true;
    FederationRole federation = FederationRole.NONE;
    Map<String, String> labels = Map.of();

    static Fields of(ClusterSpec s) {
      Fields f = new Fields();
      f.kubeconfig = s.kubeconfig();
      f.context = s.context();
      f.inCluster = s.inCluster();
      f.region = s.region();
      f.zones = s.zones();
      f.loadBalancers = s.loadBalancers();
      f.federation = s.federation();
      f.labels = s.labels();
      return f;
    }

    ClusterSpec spec(String name) {
      return new ClusterSpec(
          name,
          kubeconfig,
          null,
          context,
          inCluster,
          region,
          zones,
          loadBalancers,
          federation,
          labels);
    }

    /**
     * Sets a field from its value in the file (a string, list or mapping) or the environment (a
     * string: lists comma-separated, labels {@code key=value,...}).
     *
     * @param at where the value is, for messages: {@code [east].zones}
     */
    void set(Field field, Object raw, String at) {
      switch (field) {
        case KUBECONFIG -> kubeconfig = scalar(raw, at, field.allowed);
        case CONTEXT -> context = scalar(raw, at, field.allowed);
        case IN_CLUSTER -> inCluster = bool(raw, at);
        case REGION -> region = scalar(raw, at, field.allowed).trim();
        case ZONES -> zones = zones(raw, at);
        case LOAD_BALANCERS -> loadBalancers = bool(raw, at);
        case FEDERATION -> federation = role(raw, at);
        case LABELS -> labels = labels(raw, at);
      }
    }

    private static String scalar(Object raw, String at, String allowed) {
      if (raw instanceof String s) {
        return s;
      }
      throw new InvalidItemException(at, display(raw), allowed);
    }

    private static boolean bool(Object raw, String at) {
      String s = scalar(raw, at, "true or false").trim().toLowerCase(Locale.ROOT);
      if (!s.equals("true") && !s.equals("false")) {
        throw new InvalidItemException(at, String.valueOf(raw), "true or false");
      }
      return Boolean.parseBoolean(s);
    }

    private static FederationRole role(Object raw, String at) {
      String s = scalar(raw, at, Field.FEDERATION.allowed).trim().toLowerCase(Locale.ROOT);
      for (FederationRole r : FederationRole.values()) {
        if (r.configName().equals(s)) {
          return r;
        }
      }
      throw new InvalidItemException(at, String.valueOf(raw), Field.FEDERATION.allowed);
    }

    private static List<String> zones(Object raw, String at) {
      List<?> items;
      if (raw instanceof String s) {
        items = Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
      } else if (raw instanceof List<?> l) {
        items = l;
      } else {
        throw new InvalidItemException(at, display(raw), Field.ZONES.allowed);
      }
      List<String> zones = new ArrayList<>(items.size());
      for (int i = 0; i < items.size(); i++) {
        if (!(items.get(i) instanceof String z) || z.isBlank()) {
          throw new InvalidItemException(
              at + "[" + i + "]", String.valueOf(items.get(i)), "a zone name");
        }
        zones.add(z.trim());
      }
      return List.copyOf(zones);
    }

    private static Map<String, String> labels(Object raw, String at) {
      Map<String, Object> given = new LinkedHashMap<>();
      if (raw instanceof String s) {
        for (String pair : s.split(",")) {
          if (pair.isBlank()) {
            continue;
          }
          int eq = pair.indexOf('=');
          if (eq < 0) {
            throw new InvalidItemException(at, pair.trim(), "a list of key=value, comma-separated");
          }
          given.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
      } else if (raw instanceof Map<?, ?> m) {
        m.forEach((k, v) -> given.put(String.valueOf(k), v == null ? "" : v));
      } else {
        throw new InvalidItemException(at, display(raw), Field.LABELS.allowed);
      }
      Map<String, String> labels = new LinkedHashMap<>();
      for (Map.Entry<String, Object> e : given.entrySet()) {
        String key = e.getKey();
        if (!labelKey(key)) {
          throw new InvalidItemException(at + "." + key, key, LABEL_KEY_ALLOWED);
        }
        if (!(e.getValue() instanceof String v)
            || !(v.isEmpty() || LABEL_NAME.matcher(v).matches())) {
          throw new InvalidItemException(
              at + "." + key, String.valueOf(e.getValue()), LABEL_VALUE_ALLOWED);
        }
        labels.put(key, v);
      }
      return labels;
    }

    private static boolean labelKey(String key) {
      int slash = key.indexOf('/');
      String name = slash < 0 ? key : key.substring(slash + 1);
      if (slash >= 0) {
        String prefix = key.substring(0, slash);
        if (prefix.isEmpty() || prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
          return false;
        }
      }
      return LABEL_NAME.matcher(name).matches();
    }
  }
}
