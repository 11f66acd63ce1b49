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
    Map<String, Option<?>> byPath = new HashMap<>();
    options.forEach(o -> byPath.put(o.path(), o));
    for (String key : fromFile.keySet()) {
      if (!byPath.containsKey(key)) {
        throw new ConfigException(source + ": unknown option '" + key + "'");
      }
    }
    Map<Option<?>, Object> values = new HashMap<>();
    Map<Option<?>, String> origins = new HashMap<>();
    List<String> problems = new ArrayList<>();
    for (Option<?> option : options) {
      String fromEnv = env.apply(option.envName());
      Object raw = fromEnv != null ? fromEnv : fromFile.get(option.path());
      if (raw == null) {
        continue;
      }
      String where =
          fromEnv != null
              ? "environment variable " + option.envName() + " (" + option.path() + ")"
              : source + ": " + option.path();
      origins.put(option, where);
      try {
        values.put(option, option.parse(raw));
      } catch (IllegalArgumentException e) {
        problems.add(where + ": invalid value '" + display(raw) + "': " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(String.join("\n", problems));
    }
    return new ConfigValues(values, origins, source);
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
    flatten("", root, flat, file);
    return flat;
  }

  private static void flatten(String prefix, JsonNode node, Map<String, Object> out, Path file) {
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      JsonNode v = e.getValue();
      if (v.isObject()) {
        flatten(path, v, out, file);
      } else if (v.isArray()) {
        List<String> items = new ArrayList<>();
        for (JsonNode item : v.values()) {
          if (!item.isValueNode()) {
            throw new ConfigException(file + ": " + path + ": list items must be plain values");
          }
          items.add(item.asString());
        }
        out.put(path, items);
      } else if (!v.isNull()) {
        out.put(path, v.asString());
      }
    }
  }
}
