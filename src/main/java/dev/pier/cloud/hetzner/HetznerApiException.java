package dev.pier.cloud.hetzner;

import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * An error answer of the Hetzner Cloud API ({@code {"error": {"code", "message", "details"}}}) or a
 * failed Action ({@code action.error}); {@code status} is 0 for the latter.
 */
final class HetznerApiException extends RuntimeException {
  private final int status;
  private final String code;
  private final JsonObject details;
  private final Duration retryAfter;

  HetznerApiException(
      int status, String code, String message, JsonObject details, Duration retryAfter) {
    super(message, null, false, false);
    this.status = status;
    this.code = code == null ? "unknown_error" : code;
    this.details = details == null ? new JsonObject() : details;
    this.retryAfter = retryAfter;
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }

  JsonObject details() {
    return details;
  }

  /** How long the rate limit asks to wait, or null. */
  Duration retryAfter() {
    return retryAfter;
  }

  boolean isNotFound() {
    return "not_found".equals(code) || status == 404;
  }
}
