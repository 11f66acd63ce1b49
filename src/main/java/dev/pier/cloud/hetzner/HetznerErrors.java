package dev.pier.cloud.hetzner;

import dev.pier.cloud.ProviderException;
import java.time.Duration;
import java.util.Map;

/**
 * Maps Hetzner API errors onto the SPI's failure kinds.
 *
 * <ul>
 *   <li>{@code rate_limit_exceeded} (429) left after waiting: {@code RetryAfter} the reset.
 *   <li>{@code resource_limit_exceeded} (a quota, such as targets per lb11): {@code RetryAfter} a
 *       long delay; it clears when the quota is raised, not when the Service changes.
 *   <li>{@code invalid_input} on a field that comes from the Service: {@code InvalidInput} naming
 *       the annotation and value.
 *   <li>everything else ({@code locked}, {@code conflict}, {@code uniqueness_error}, {@code
 *       server_error}, {@code unavailable}, {@code timeout}, failed Actions, ...): {@code Retry}
 *       with the key's backoff.
 * </ul>
 */
final class HetznerErrors {
  static final Duration QUOTA_RETRY = Duration.ofMinutes(5);

  /** A request field and the Service setting it came from. */
  record Source(String annotation, String value) {}

  private HetznerErrors() {}

  static Throwable map(Throwable e, Map<String, Source> fields) {
    if (e instanceof ProviderException) {
      return e;
    }
    if (!(e instanceof HetznerApiException h)) {
      return new ProviderException.Retry("Hetzner API: " + e.getMessage(), e);
    }
    switch (h.code()) {
      case "rate_limit_exceeded":
        return new ProviderException.RetryAfter(
            h.getMessage(), h.retryAfter() == null ? Duration.ofSeconds(1) : h.retryAfter());
      case "resource_limit_exceeded":
        return new ProviderException.RetryAfter(h.getMessage(), QUOTA_RETRY);
      case "invalid_input":
        for (String name : h.invalidFields()) {
          Source s = fields.get(name);
          if (s != null) {
            String field = "metadata.annotations[" + s.annotation() + "]";
            return new ProviderException.InvalidInput(
                field, s.value(), field + "=" + s.value() + ": " + h.getMessage());
          }
        }
        return new ProviderException.Retry(h.getMessage(), h);
      case "unauthorized":
        return new ProviderException.Retry(
            "Hetzner API rejected the token (unauthorized): check hetzner.tokenFile", h);
      default:
        return new ProviderException.Retry(h.getMessage(), h);
    }
  }
}
