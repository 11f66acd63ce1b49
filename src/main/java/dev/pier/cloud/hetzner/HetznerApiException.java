package dev.pier.cloud.hetzner;

import java.time.Duration;
import java.util.List;

/**
 * An error answer of the Hetzner Cloud API ({@code {"error": {"code", "message", "details"}}}) or a
 * failed Action ({@code action.error}); {@code status} is 0 for the latter.
 */
final class HetznerApiException extends RuntimeException {
  private final int status;
  private final String code;
  private final List<String> invalidFields;
  private final Duration retryAfter;

  HetznerApiException(
      int status, String code, String message, List<String> invalidFields, Duration retryAfter) {
    super(message, null, false, false);
    this.status = status;
    this.code = code == null ? "unknown_error" : code;
    this.invalidFields = invalidFields == null ? List.of() : invalidFields;
    this.retryAfter = retryAfter;
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }

  /** The request fields named by {@code details.fields[].name}, in order. */
  List<String> invalidFields() {
    return invalidFields;
  }

  /** How long the rate limit asks to wait, or null. */
  Duration retryAfter() {
    return retryAfter;
  }

  boolean isNotFound() {
    return "not_found".equals(code) || status == 404;
  }
}
