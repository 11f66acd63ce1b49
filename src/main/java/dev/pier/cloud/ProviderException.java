package dev.pier.cloud;

import java.time.Duration;

/** The kinds of failure a provider reports; the reconciler reacts to each kind differently. */
public abstract sealed class ProviderException extends RuntimeException
    permits ProviderException.Retry,
        ProviderException.RetryAfter,
        ProviderException.ImplementedElsewhere,
        ProviderException.InvalidInput {

  private ProviderException(String message, Throwable cause) {
    super(message, cause);
  }

  /** A transient failure: retried with the key's exponential backoff. */
  public static final class Retry extends ProviderException {
    public Retry(String message) {
      this(message, null);
    }

    public Retry(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A failure the provider wants retried after a fixed delay (upstream's {@code RetryError}). */
  public static final class RetryAfter extends ProviderException {
    private final Duration delay;

    public RetryAfter(String message, Duration delay) {
      super(message, null);
      this.delay = delay;
    }

    public Duration delay() {
      return delay;
    }
  }

  /** The Service's load balancer is run by another controller: no status is written. */
  public static final class ImplementedElsewhere extends ProviderException {
    public ImplementedElsewhere(String message) {
      super(message, null);
    }
  }

  /**
   * The Service asks for something the provider can never do (an address outside the pools, an
   * unsupported protocol). Reported as a Warning event; retried only when the Service changes.
   */
  public static final class InvalidInput extends ProviderException {
    private final String field;
    private final String value;
    private final String reason;

    public InvalidInput(String field, String value, String message) {
      this(field, value, message, null);
    }

    /**
     * @param reason the CamelCase reason of the Warning event (e.g. {@code LoadBalancerNameTaken}),
     *     or null for the reconcile's generic one
     */
    public InvalidInput(String field, String value, String message, String reason) {
      super(message, null);
      this.field = field;
      this.value = value;
      this.reason = reason;
    }

    /** The Warning event's reason, or null for the generic one. */
    public String reason() {
      return reason;
    }

    public String field() {
      return field;
    }

    public String value() {
      return value;
    }
  }
}
