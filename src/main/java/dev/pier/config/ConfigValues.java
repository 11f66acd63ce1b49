package dev.pier.config;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** Resolved option values (file, then environment, then default) with typed access. */
public final class ConfigValues {
  private final Map<Option<?>, Object> values;
  private final Map<Option<?>, String> origins;
  private final String source;

  ConfigValues(Map<Option<?>, Object> values, Map<Option<?>, String> origins, String source) {
    this.values = Map.copyOf(values);
    this.origins = Map.copyOf(origins);
    this.source = source;
  }

  /**
   * These values with {@code values} over them, {@code origins} naming where each of those came
   * from.
   */
  ConfigValues with(Map<Option<?>, Object> values, Map<Option<?>, String> origins) {
    Map<Option<?>, Object> v = new HashMap<>(this.values);
    v.putAll(values);
    Map<Option<?>, String> o = new HashMap<>(this.origins);
    o.putAll(origins);
    return new ConfigValues(v, o, source);
  }

  /**
   * These values with {@code options} back at their defaults, and {@code source} naming where the
   * values that a part lays over them come from (see {@link ConfigLoader#loadPart}).
   */
  public ConfigValues withDefaults(Collection<Option<?>> options, String source) {
    Map<Option<?>, Object> v = new HashMap<>(values);
    Map<Option<?>, String> o = new HashMap<>(origins);
    options.forEach(
        option -> {
          v.remove(option);
          o.remove(option);
        });
    return new ConfigValues(v, o, source);
  }

  /**
   * Where an option's value came from, for messages about it: "environment variable X (path)",
   * "file: path", or "embedded defaults: path".
   */
  public String describe(Option<?> option) {
    return origins.getOrDefault(option, source + ": " + option.path());
  }

  /** True when the file or the environment gave the option a value (not only its default). */
  public boolean isSet(Option<?> option) {
    return origins.containsKey(option);
  }

  @SuppressWarnings("unchecked")
  public <T> T get(Option<T> option) {
    return (T) values.getOrDefault(option, option.defaultValue());
  }

  /** Where the values came from, for messages: the config file path or "embedded defaults". */
  public String source() {
    return source;
  }
}
