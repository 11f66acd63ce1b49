package dev.pier.testkit;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * An HTTP server on 127.0.0.1 standing in for a cloud or DNS API that answers too much: each
 * request gets the {@link Answer} a function picks for it, a huge one streamed as fast as the
 * client reads it. It counts the bytes of huge and oversized answers it wrote and sees their
 * connections close, so a test can tell a client that stopped reading and closed from one that read
 * on. Runs on a Vert.x instance of its own.
 */
public final class OversizedAnswerServer implements AutoCloseable {
  /** The size of a huge answer: more than any limit a test sets, far more than 8 MiB. */
  public static final long HUGE_BYTES = 64L << 20;

  /**
   * Fewer bytes than this written to a client that fails at its limit (at most 2 MiB in the tests)
   * means it stopped reading and closed, far from the {@link #HUGE_BYTES} it would have read on:
   * the limit plus what the kernel's socket buffers on both ends of a loopback connection take in
   * before anyone reads (seen up to 9 MB on a loaded machine).
   */
  public static final long STOPPED_EARLY_BYTES = 24L << 20;

  private static final Buffer SPACES = Buffer.buffer(" ".repeat(64 * 1024));

  /** What the server answers to one request. */
  public sealed interface Answer permits Huge, Body, Declared {}

  /** 200 with {@code prefix}, then spaces up to {@code bytes} in all, as the client takes them. */
  public record Huge(String prefix, long bytes) implements Answer {
    /** Up to {@link #HUGE_BYTES}. */
    public Huge(String prefix) {
      this(prefix, HUGE_BYTES);
    }
  }

  /** 200 with this body. */
  public record Body(Buffer body) implements Answer {
    public Body(String body) {
      this(Buffer.buffer(body));
    }
  }

  /**
   * 200 declaring a {@code Content-Length} of {@code length}, then 1 KiB of it and nothing more.
   */
  public record Declared(long length) implements Answer {}

  private final Vertx vertx = Vertx.vertx();
  private final Function<HttpServerRequest, Answer> answers;
  private final AtomicLong written = new AtomicLong();
  private final AtomicInteger requests = new AtomicInteger();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final HttpServer server;

  private OversizedAnswerServer(Function<HttpServerRequest, Answer> answers) {
    this.answers = answers;
    this.server = vertx.createHttpServer().requestHandler(this::handle);
  }

  /** Starts a server that answers each request with what {@code answers} picks for it. */
  public static OversizedAnswerServer start(Function<HttpServerRequest, Answer> answers)
      throws TimeoutException {
    OversizedAnswerServer s = new OversizedAnswerServer(answers);
    s.server.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    return s;
  }

  public String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /** Requests received. */
  public int requests() {
    return requests.get();
  }

  /** Bytes of huge and oversized answers written so far (handed to the connection). */
  public long written() {
    return written.get();
  }

  /**
   * Whether a connection that carried a huge or oversized answer was closed within {@code wait}.
   */
  public boolean closedWithin(Duration wait) throws InterruptedException {
    return closed.await(wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void handle(HttpServerRequest req) {
    requests.incrementAndGet();
    Answer answer = answers.apply(req);
    req.body()
        .onSuccess(
            b -> {
              HttpServerResponse resp =
                  req.response().setStatusCode(200).putHeader("Content-Type", "application/json");
              if (answer instanceof Body body) {
                resp.end(body.body());
                return;
              }
              req.connection().closeHandler(v -> closed.countDown());
              if (answer instanceof Huge huge) {
                Buffer prefix = Buffer.buffer(huge.prefix());
                resp.setChunked(true).write(prefix);
                written.addAndGet(prefix.length());
                pump(resp, new long[] {huge.bytes() - prefix.length()});
              } else if (answer instanceof Declared declared) {
                resp.putHeader("Content-Length", Long.toString(declared.length()));
                resp.write(SPACES.slice(0, 1024));
                written.addAndGet(1024);
              }
            });
  }

  /** Writes spaces while the client takes them, until {@code left[0]} are written. */
  private void pump(HttpServerResponse resp, long[] left) {
    while (left[0] > 0 && !resp.closed() && !resp.writeQueueFull()) {
      int n = (int) Math.min(SPACES.length(), left[0]);
      resp.write(n == SPACES.length() ? SPACES : SPACES.slice(0, n));
      left[0] -= n;
      written.addAndGet(n);
    }
    if (resp.closed()) {
      return;
    }
    if (left[0] == 0) {
      resp.end();
      return;
    }
    resp.drainHandler(v -> pump(resp, left));
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
