package dev.pier.kube;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One request whose answer is read chunk by chunk up to a limit: an answer announced (its {@code
 * Content-Length}) or found longer is cut off there, its request reset, and what came is dropped,
 * so that a server never makes Pier hold more than the limit. Chunks arrive one at a time on the
 * HTTP client's thread; an abandonment may come from another, and only completes the answer and
 * resets the request, neither of which waits for anything.
 */
final class LimitedRead implements AsyncBody.Consumer<List<ByteBuffer>> {
  private final int maxBytes;
  private final CompletableFuture<AsyncKubeApi.LimitedAnswer> answer = new CompletableFuture<>();
  private final ByteArrayOutputStream read = new ByteArrayOutputStream();
  private volatile int code;
  private volatile AsyncBody body;

  LimitedRead(int maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** Sends the request; the answer completes once its body ended, was cut off or failed. */
  CompletableFuture<AsyncKubeApi.LimitedAnswer> send(HttpClient http, HttpRequest request) {
    http.consumeBytes(request, this).whenComplete(this::answered);
    return answer;
  }

  /** Ends the read now, with {@code why}, unless it ended already. */
  void abandon(Throwable why) {
    AsyncBody started = body;
    if (answer.completeExceptionally(why) && started != null) {
      started.cancel();
    }
  }

  private void answered(HttpResponse<AsyncBody> response, Throwable failure) {
    if (failure != null) {
      answer.completeExceptionally(failure);
      return;
    }
    code = response.code();
    body = response.body();
    // Abandoned while the headers were on their way: the body is not read at all.
    if (answer.isDone() || announcedTooLong(response)) {
      cutOff();
      return;
    }
    body.done()
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                answer.completeExceptionally(e);
              } else {
                answer.complete(
                    new AsyncKubeApi.LimitedAnswer(
                        code, read.toString(StandardCharsets.UTF_8), false));
              }
            });
    body.consume();
  }

  @Override
  public void consume(List<ByteBuffer> chunks, AsyncBody asyncBody) {
    if (answer.isDone()) {
      return;
    }
    for (ByteBuffer chunk : chunks) {
      if (read.size() + chunk.remaining() > maxBytes) {
        cutOff();
        return;
      }
      byte[] bytes = new byte[chunk.remaining()];
      chunk.get(bytes);
      read.writeBytes(bytes);
    }
    asyncBody.consume();
  }

  /** Whether the answer's {@code Content-Length} (its name in any case) says it is too long. */
  private boolean announcedTooLong(HttpResponse<?> response) {
    for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
      if (!header.getKey().equalsIgnoreCase("Content-Length")) {
        continue;
      }
      for (String value : header.getValue()) {
        try {
          if (Long.parseLong(value.trim()) > maxBytes) {
            return true;
          }
        } catch (NumberFormatException e) {
          // Not a length: the read finds out.
        }
      }
    }
    return false;
  }

  private void cutOff() {
    read.reset();
    answer.complete(new AsyncKubeApi.LimitedAnswer(code, "", true));
    body.cancel();
  }
}
