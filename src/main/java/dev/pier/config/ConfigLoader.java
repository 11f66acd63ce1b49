package dev.pier.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads {@code pier.yaml} and {@code PIER_*} environment variables. The environment overrides the
 * file; every value is checked, and any problem fails startup with the source, key and value.
 */
public final class ConfigLoader {
  /** Refuses a key that a mapping gives twice, rather than keeping the last. */
  private static final YAMLMapper YAML =
      YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private final List<Option<?>> options;
  private final Function<String, String> env;

  public ConfigLoader(List<Option<?>> options, Function<String, String> env) {
    this.options = List.copyOf(options);
    this.env = env;
  }

  /** Loads the file (or only defaults and environment when {@code file} is null). */
  public ConfigValues load(Path file) {
    Map<String, Object> fromFile = file == null ? Map.of() : readFile(file, paths());
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

  private Set<String> paths() {
    return options.stream().map(Option::path).collect(Collectors.toSet());
  }

  private static Map<String, Object> readFile(Path file, Set<String> optionPaths) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e, e);
    }
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (StreamReadException e) {
      String duplicate = duplicateKey(e);
      if (duplicate != null) {
        throw new ConfigException(file + ": " + duplicate + ": given twice" + line(e), e);
      }
      throw new ConfigException(file + ": not valid YAML: " + firstLine(e) + line(e), e);
    } catch (JacksonException e) {
      throw new ConfigException(file + ": not valid YAML: " + firstLine(e) + line(e), e);
    }
    Map<String, Object> flat = new LinkedHashMap<>();
    if (root == null || root.isNull() || root.isMissingNode()) {
      return flat;
    }
    if (!root.isObject()) {
      throw new ConfigException(file + ": the top level must be a mapping of options");
    }
    flatten("", root, optionPaths, flat);
    return flat;
  }

  /**
   * The key path of a key that a mapping of the file gives twice ({@code clusters[1].local.pools}),
   * or null when {@code e} is about something else.
   */
  private static String duplicateKey(StreamReadException e) {
    JsonParser parser = e.processor();
    if (parser == null
        || e.getOriginalMessage() == null
        || !e.getOriginalMessage().startsWith("Duplicate ")) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    for (TokenStreamContext c = parser.streamReadContext(); c != null; c = c.getParent()) {
      if (c.inObject() && c.currentName() != null) {
        parts.add(0, "." + c.currentName());
      } else if (c.inArray()) {
        parts.add(0, "[" + Math.max(c.getCurrentIndex(), 0) + "]");
      }
    }
    String path = String.join("", parts);
    return path.startsWith(".") ? path.substring(1) : path;
  }

  /** A YAML problem on one line: the parser's first line of it, without the excerpt it quotes. */
  private static String firstLine(JacksonException e) {
    String message = e.getOriginalMessage() == null ? e.toString() : e.getOriginalMessage();
    List<String> lines = message.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    // SnakeYAML: "while parsing X", " in reader, line..", the excerpt, "^", then the problem,
    // followed by its own " in reader" line.
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (lines.get(i + 1).startsWith("in reader") && !lines.get(i).startsWith("while ")) {
        return lines.get(i);
      }
    }
    return lines.isEmpty() ? message : lines.get(0);
  }

  private static String line(JacksonException e) {
    TokenStreamLocation at = e.getLocation();
    return at == null || at.getLineNr() <= 0
        ? ""
        : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
  }

  private static void flatten(
      String prefix, JsonNode node, Set<String> optionPaths, Map<String, Object> out) {
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      JsonNode v = e.getValue();
      if (v.isObject() && optionPaths.contains(path)) {
        // A mapping where an option's value belongs: the option refuses it, naming its value.
        out.put(path, structured(v));
      } else if (v.isObject()) {
        flatten(path, v, optionPaths, out);
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
