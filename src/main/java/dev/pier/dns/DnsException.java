package dev.pier.dns;

/**
 * A DNS operation failed. Retryable failures (server down, 5xx, timeouts, conflicts with a
 * concurrent writer) are retried with the key's backoff; the others (a request the server rejects
 * as malformed, an ambiguous zone) wait for a change.
 *
 * <p>A {@linkplain #rejected() rejected} change is one the server refused for what it holds or what
 * it thinks of a name (PowerDNS's 422: a record of another writer in the way, a name it does not
 * take). It is retryable, but it says nothing about the other names of the same change set, which
 * the publisher then sends one by one.
 */
public final class DnsException extends RuntimeException {
  private final boolean retryable;
  private final boolean rejected;

  private DnsException(String message, boolean retryable, boolean rejected, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
    this.rejected = rejected;
  }

  public static DnsException retry(String message) {
    return new DnsException(message, true, false, null);
  }

  public static DnsException retry(String message, Throwable cause) {
    return new DnsException(message, true, false, cause);
  }

  public static DnsException invalid(String message) {
    return new DnsException(message, false, false, null);
  }

  /** The server refused a change set for the names or records in it; retryable. */
  public static DnsException rejected(String message) {
    return new DnsException(message, true, true, null);
  }

  /** True when the server refused the change set's content, not the request or its own state. */
  public boolean rejected() {
    return rejected;
  }

  public boolean retryable() {
    return retryable;
  }
}
