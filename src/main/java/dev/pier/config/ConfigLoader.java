package dev.pier.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads {@code pier.yaml} and {@code PIER_*} environment variables. The environment overrides the
 * file; every value is checked, and any problem fails startup with the source, key and value.
 */
public final class ConfigLoader {
  private final List<Option<?>> options;
  private final Function<String, String> env;

  public ConfigLoader(List<Option<?>> options, Function<String, String> env) {
    this.options = List.copyOf(options);
    this.env = env;
  }

  /** Loads the file (or only defaults and environment when {@code file} is null). */
  public ConfigValues load(Path file) {
    Map<String, Object> fromFile = file == null ? Map.of() : readFile(file);
    String source = file == null ? "embedded defaults" : file.toString();
    Map<Option<?>, Object> values = new HashMap<>();
    Map<Option<?>, String> origins = new HashMap<>();
    parse(fromFile, source, "", "PIER_", values, origins);
    return new ConfigValues(values, origins, source);
  }

  /**
   * Loads a part of the configuration that the file already gave as a mapping, such as one item of
   * a list of sections, over {@code base}: the values of this loader's options that {@code part}
   * (keys are option paths within the part, values as in the file) or the environment sets replace
   * base's. The part's variables are {@code envPrefix} plus the option's path in upper snake case,
   * and messages name its options {@code pathPrefix} plus their path, in the file of {@code base}.
   *
   * @param pathPrefix where the part sits, e.g. {@code clusters[east].}
   * @param envPrefix its variables' prefix in place of {@code PIER_}, e.g. {@code
   *     PIER_CLUSTERS_EAST_}
   */
  public ConfigValues loadPart(
      ConfigValues base, Map<String, Object> part, String pathPrefix, String envPrefix) {
    Map<Option<?>, Object> values = new HashMap<>();
    Map<Option<?>, String> origins = new HashMap<>();
    parse(part, base.source(), pathPrefix, envPrefix, values, origins);
    return base.with(values, origins);
  }

  /** A bad value, the way every configuration message names it. */
  public static String invalid(String where, String value, String allowed) {
    return where + ": invalid value '" + value + "': must be " + allowed;
  }

  private void parse(
      Map<String, Object> fromFile,
      String source,
      String pathPrefix,
      String envPrefix,
      Map<Option<?>, Object> values,
      Map<Option<?>, String> origins) {
    Map<String, Option<?>> byPath = new HashMap<>();
    options.forEach(o -> byPath.put(o.path(), o));
    for (String key : fromFile.keySet()) {
      if (!byPath.containsKey(key)) {
        throw new ConfigException(source + ": unknown option '" + pathPrefix + key + "'");
      }
    }
    List<String> problems = new ArrayList<>();
    for (Option<?> option : options) {
      String envName = envPrefix + Option.envForm(option.path());
      String fromEnv = env.apply(envName);
      Object raw = fromEnv != null ? fromEnv : fromFile.get(option.path());
      if (raw == null) {
        continue;
      }
      String path = pathPrefix + option.path();
      String where = where(envName, path, fromEnv != null, source);
      if (!option.mappingItems() && raw instanceof List<?> l) {
        for (Object item : l) {
          if (!(item instanceof String)) {
            throw new ConfigException(source + ": " + path + ": list items must be plain values");
          }
        }
      }
      origins.put(option, where);
      try {
        values.put(option, option.parse(raw));
      } catch (InvalidItemException e) {
        problems.add(
            invalid(
                where(envName, path + e.subPath(), fromEnv != null, source),
                e.value(),
                e.allowed()));
      } catch (IllegalArgumentException e) {
        problems.add(where + ": invalid value '" + display(raw) + "': " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(String.join("\n", problems));
    }
  }

  /** Names an option, or a part of its value, where it was set. */
  private static String where(String envName, String path, boolean fromEnv, String source) {
    return fromEnv ? "environment variable " + envName + " (" + path + ")" : source + ": " + path;
  }

  private static String display(Object raw) {
    return raw instanceof List<?> l
        ? String.join(",", l.stream().map(String::valueOf).toList())
        : String.valueOf(raw);
  }

  private static Map<String, Object> readFile(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e, e);
    }
    JsonNode root;
    try {
      root = new YAMLMapper().readTree(text);
    } catch (JacksonException e) {
      throw new ConfigException(file + ": not valid YAML: " + e.getOriginalMessage(), e);
    }
    Map<String, Object> flat = new LinkedHashMap<>();
    if (root == null || root.isNull() || root.isMissingNode()) {
      return flat;
    }
    if (!root.isObject()) {
      throw new ConfigException(file + ": the top level must be a mapping of options");
    }
    flatten("", root, flat);
    return flat;
  }

  private static void flatten(String prefix, JsonNode node, Map<String, Object> out) {
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      JsonNode v = e.getValue();
      if (v.isObject()) {
        flatten(path, v, out);
      } else if (v.isArray()) {
        // Plain items become strings; mappings and lists stay structured for the options that take
        // them (the others refuse them in load).
        out.put(path, items(v));
      } else if (!v.isNull()) {
        out.put(path, v.asString());
      }
    }
  }

  private static List<Object> items(JsonNode array) {
    List<Object> items = new ArrayList<>();
    for (JsonNode item : array.values()) {
      items.add(structured(item));
    }
    return items;
  }

  /** A value node as its string, a mapping as a Map, a sequence as a List. */
  private static Object structured(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        map.put(e.getKey(), e.getValue().isNull() ? null : structured(e.getValue()));
      }
      return map;
    }
    if (node.isArray()) {
      return items(node);
    }
    return node.asString();
  }
}
