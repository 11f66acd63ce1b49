package dev.pier.kube;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Map;
import java.util.Queue;
import java.util.WeakHashMap;

/**
 * How many of Pier's requests one API server client has in flight. A request waits here, never in
 * the HTTP client: the client's own queue (beyond the server's 100 HTTP/2 streams per connection)
 * sits after the leadership fence, so a request that waited there, through a freeze or a lost
 * Lease, went out without being asked again. Here the fence is asked as a request leaves the queue,
 * right before it goes.
 */
final class RequestSlots {
  /** Below kube-apiserver's default of 100 concurrent streams per HTTP/2 connection. */
  static final int PER_CLIENT = 64;

  private static final Map<HttpClient, RequestSlots> BY_CLIENT =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final int capacity;
  private final Queue<Waiter> waiting = new ArrayDeque<>();
  private int taken;

  private record Waiter(Context context, Promise<Void> promise) {}

  RequestSlots(int capacity) {
    this.capacity = capacity;
  }

  /** The slots of one HTTP client, shared by every {@link AsyncKubeApi} over it. */
  static RequestSlots of(HttpClient client) {
    return BY_CLIENT.computeIfAbsent(client, c -> new RequestSlots(PER_CLIENT));
  }

  /** Completes on {@code ctx} once a slot is this request's; it must {@link #release} it. */
  Future<Void> acquire(Context ctx) {
    synchronized (this) {
      if (taken < capacity) {
        taken++;
        return Future.succeededFuture();
      }
      Promise<Void> p = Promise.promise();
      waiting.add(new Waiter(ctx, p));
      return p.future();
    }
  }

  /** Gives a slot back: to the request that waited longest, on its own context. */
  void release() {
    Waiter next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        taken--;
        return;
      }
    }
    next.context().runOnContext(v -> next.promise().complete());
  }

  synchronized int waiting() {
    return waiting.size();
  }
}
