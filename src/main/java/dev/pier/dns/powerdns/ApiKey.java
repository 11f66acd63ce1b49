package dev.pier.dns.powerdns;

/** The PowerDNS API key. Its value never appears in {@link #toString()}, logs or messages. */
public final class ApiKey {
  private final String value;
  private final String source;

  private ApiKey(String value, String source) {
    this.value = value;
    this.source = source;
  }

  /**
   * @param source where the key came from ("file F", "environment variable V"), for logs
   */
  public static ApiKey of(String value, String source) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("empty API key from " + source);
    }
    return new ApiKey(value, source);
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
