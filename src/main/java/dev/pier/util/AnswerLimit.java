package dev.pier.util;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;

/**
 * The most bytes Pier reads of one answer from a cloud or DNS service, and the option that sets
 * them. An answer is read into memory only up to the limit: one that declares a longer {@code
 * Content-Length} fails before its first byte is read, one that goes on past the limit fails as
 * soon as it does; either way the request is reset, which closes its HTTP/1.1 connection, so the
 * rest is never read.
 *
 * @param bytes the limit; an answer of exactly this many bytes is read
 * @param option the option that sets it, for the error message
 */
public record AnswerLimit(long bytes, String option) {
  /** One object's answer: a provider call, a DNS write, a zone's or a name's read. */
  public static final int DEFAULT_BYTES = 1 << 20;

  /**
   * An inventory: a DNS zone's records, a webhook's or Hetzner's list of load balancers. A PowerDNS
   * zone of 10,000 Services, three A records each, is about 8 MB (30,000 rrsets of about 266 bytes
   * with Pier's owner comment); the external-dns listing of the same, with its TXT registry
   * records, about 11.5 MB. 32 MiB holds four times the first, nearly three times the second.
   */
  public static final int DEFAULT_INVENTORY_BYTES = 32 << 20;

  public static final AnswerLimit ANSWER = new AnswerLimit(DEFAULT_BYTES, "http.maxAnswerBytes");
  public static final AnswerLimit INVENTORY =
      new AnswerLimit(DEFAULT_INVENTORY_BYTES, "http.maxInventoryAnswerBytes");

  public AnswerLimit {
    if (bytes < 0) {
      throw new IllegalArgumentException(option + ": must not be negative, not " + bytes);
    }
  }

  /**
   * The body of {@code response}, read up to this limit. Call it in the callback that delivers the
   * response, as for {@link HttpClientResponse#body()}: a short answer may end one hop later.
   *
   * @param what the request, for the error message: "webhook ensure", "PowerDNS read example.org."
   * @return the body, or a failure with {@link Passed} when the answer is longer than the limit
   */
  public Future<Buffer> read(HttpClientResponse response, String what) {
    long declared = declaredLength(response);
    if (declared > bytes) {
      Passed passed = new Passed(this, what, ": Content-Length " + declared);
      response.request().reset(0, passed);
      return Future.failedFuture(passed);
    }
    Promise<Buffer> body = Promise.promise();
    Buffer collected = Buffer.buffer((int) Math.min(Math.max(declared, 0), 64 * 1024));
    response.exceptionHandler(body::tryFail);
    response.handler(
        chunk -> {
          if (body.future().isComplete()) {
            return;
          }
          if (collected.length() + (long) chunk.length() > bytes) {
            Passed passed = new Passed(this, what, "");
            // Reads stop here, whenever the reset's close of the connection takes effect.
            response.pause();
            body.tryFail(passed);
            response.request().reset(0, passed);
            return;
          }
          collected.appendBuffer(chunk);
        });
    response.endHandler(v -> body.tryComplete(collected));
    return body.future();
  }

  private static long declaredLength(HttpClientResponse response) {
    String header = response.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (header == null) {
      return -1;
    }
    try {
      return Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      // Not a length the limit can judge: the bytes are counted as they come.
      return -1;
    }
  }

  /** An answer longer than its limit: the call fails with it, the connection is closed. */
  public static final class Passed extends RuntimeException {
    private final AnswerLimit limit;

    Passed(AnswerLimit limit, String what, String detail) {
      super(
          "the answer of "
              + what
              + " passed its limit of "
              + limit.bytes()
              + " bytes ("
              + limit.option()
              + ")"
              + detail,
          null,
          false,
          false);
      this.limit = limit;
    }

    public AnswerLimit limit() {
      return limit;
    }
  }
}
