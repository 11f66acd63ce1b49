package dev.pier.dns.powerdns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/** The PowerDNS API key. Its value never appears in {@link #toString()}, logs or messages. */
public final class ApiKey {
  private final String value;
  private final String source;

  private ApiKey(String value, String source) {
    this.value = value;
    this.source = source;
  }

  /**
   * The key from {@code file} when set, else from the environment variable {@code envName}.
   *
   * @throws IllegalArgumentException naming the file or variable (never the key) when there is none
   */
  public static ApiKey load(String file, String envName, Function<String, String> env) {
    if (file != null && !file.isEmpty()) {
      String v;
      try {
        v = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("cannot read API key file '" + file + "': " + e);
      }
      if (v.isEmpty()) {
        throw new IllegalArgumentException("API key file '" + file + "' is empty");
      }
      return new ApiKey(v, "file " + file);
    }
    String v = envName == null || envName.isEmpty() ? null : env.apply(envName);
    if (v == null || v.trim().isEmpty()) {
      throw new IllegalArgumentException(
          "no API key: set dns.powerdns.apiKeyFile, or the environment variable '" + envName + "'");
    }
    return new ApiKey(v.trim(), "environment variable " + envName);
  }

  String value() {
    return value;
  }

  /** Where the key came from, for logs. */
  public String source() {
    return source;
  }

  @Override
  public String toString() {
    return "ApiKey(from " + source + ")";
  }
}
