package dev.pier.federation.members;

import dev.pier.config.Durations;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * Why a member's health probe failed, in words from a fixed vocabulary: a status code, a standard
 * phrase, a kind of network failure. Never what the server answered: whoever writes a member Secret
 * chooses its {@code server}, and the reason lands in the Secret's status, in Events and in logs,
 * where the answer of a host they cannot reach themselves would be theirs to read.
 */
final class ProbeReasons {
  /** The longest answer a health endpoint may give: "ok" is 2 bytes. */
  static final int MAX_ANSWER_BYTES = 4096;

  private static final Map<Integer, String> PHRASES =
      Map.of(
          401, "unauthorized",
          403, "forbidden",
          404, "not found",
          429, "too many requests",
          500, "internal server error",
          502, "bad gateway",
          503, "service unavailable",
          504, "gateway timeout");

  private ProbeReasons() {}

  /**
   * Why an answer is not "ready", or null when it is: a 2xx whose body is {@code ok}.
   *
   * @param tooLong the body was longer than {@link #MAX_ANSWER_BYTES} and was not read
   */
  static String ofAnswer(int code, String body, boolean tooLong) {
    String phrase = PHRASES.get(code);
    String status = "HTTP " + code + (phrase == null ? "" : " " + phrase);
    if (code < 200 || code > 299) {
      return "not ready (" + status + ")";
    }
    if (tooLong) {
      return "not ready (" + status + ", answer longer than " + MAX_ANSWER_BYTES + " bytes)";
    }
    return body.trim().equals("ok") ? null : "not ready (" + status + ", answer not \"ok\")";
  }

  /** Why no answer came: the kind of failure, never its message. */
  static String ofFailure(Throwable failure, Duration timeout) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof TimeoutException) {
        return "no answer within " + Durations.format(timeout);
      }
      if (t instanceof UnknownHostException) {
        return "server name not resolved";
      }
      if (t instanceof ConnectException || t instanceof NoRouteToHostException) {
        return "connection refused or unreachable";
      }
      if (t instanceof SSLException) {
        return "TLS failed (is the server's certificate signed by certificate-authority-data?)";
      }
    }
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return "request failed (" + root.getClass().getSimpleName() + ")";
  }
}
