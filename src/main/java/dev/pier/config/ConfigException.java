package dev.pier.config;

/** A configuration problem that stops Pier at startup; the message names the source and key. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
