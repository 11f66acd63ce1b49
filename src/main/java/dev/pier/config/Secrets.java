package dev.pier.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads secrets (API tokens and keys) from a file or an environment variable, the one way all of
 * Pier's do it. Values are trimmed; a secret's value never appears in a message.
 */
public final class Secrets {
  private Secrets() {}

  /** A secret and where it came from ("file F" or "environment variable V"), for messages. */
  public record Secret(String value, String source) {
    @Override
    public String toString() {
      return "Secret(from " + source + ")";
    }
  }

  /**
   * The secret in {@code file} when it is set, else in the environment variable {@code envName}
   * when that is set and not blank, else empty.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or is empty
   */
  public static Optional<Secret> fromFileOrEnv(
      String file, String envName, Function<String, String> env) {
    if (file != null && !file.isEmpty()) {
      return Optional.of(fromFile(file));
    }
    String v = envName == null || envName.isEmpty() ? null : env.apply(envName);
    if (v == null || v.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(new Secret(v.trim(), "environment variable " + envName));
  }

  /**
   * @throws IllegalArgumentException naming the file when it cannot be read or is empty
   */
  public static Secret fromFile(String file) {
    String v;
    try {
      v = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read '" + file + "': " + e, e);
    }
    if (v.isEmpty()) {
      throw new IllegalArgumentException("'" + file + "' is empty");
    }
    return new Secret(v, "file " + file);
  }
}
