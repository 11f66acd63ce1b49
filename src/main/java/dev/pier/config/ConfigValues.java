package dev.pier.config;

import java.util.Map;

/** Resolved option values (file, then environment, then default) with typed access. */
public final class ConfigValues {
  private final Map<Option<?>, Object> values;
  private final String source;

  ConfigValues(Map<Option<?>, Object> values, String source) {
    this.values = Map.copyOf(values);
    this.source = source;
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
