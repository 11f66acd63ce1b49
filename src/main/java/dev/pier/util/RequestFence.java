package dev.pier.util;

/**
 * Fences the requests a call sends out of the process (to a cloud or a DNS backend) by the
 * leadership term the call started in: each request, retries and requests that waited for a
 * connection included, asks right before it is sent, and goes only while that term is still the
 * current one and open. A leader that was frozen or cut off and lost its Lease meanwhile sends
 * nothing more for the calls it had in flight, so it cannot undo what the new leader did.
 *
 * <p>Providers capture {@link #term()} when a call starts and pass it to {@link #refusal} before
 * each request.
 */
public interface RequestFence {
  /** Lets everything through: a process without leader election. */
  RequestFence OPEN =
      new RequestFence() {
        @Override
        public long term() {
          return 0;
        }

        @Override
        public RuntimeException refusal(long term, String what) {
          return null;
        }
      };

  /** The term a call that starts now belongs to. */
  long term();

  /**
   * Null when a request of a call that started in {@code term} may be sent now; else the exception
   * the request fails with (the call is abandoned, not retried).
   */
  RuntimeException refusal(long term, String what);
}
