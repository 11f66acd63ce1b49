package dev.pier.dns;

/**
 * A DNS operation failed. Retryable failures (server down, 5xx, timeouts, conflicts with a
 * concurrent writer) are retried with the key's backoff; the others (a request the server rejects
 * as invalid, an ambiguous zone) wait for a change.
 */
public final class DnsException extends RuntimeException {
  private final boolean retryable;

  private DnsException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  public static DnsException retry(String message) {
    return new DnsException(message, true, null);
  }

  public static DnsException retry(String message, Throwable cause) {
    return new DnsException(message, true, cause);
  }

  public static DnsException invalid(String message) {
    return new DnsException(message, false, null);
  }

  public boolean retryable() {
    return retryable;
  }
}
