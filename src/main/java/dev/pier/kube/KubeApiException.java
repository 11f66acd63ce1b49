package dev.pier.kube;

/** A non-2xx answer of the API server to one of Pier's asynchronous writes. */
public final class KubeApiException extends RuntimeException {
  private final int code;

  public KubeApiException(int code, String message) {
    super(message);
    this.code = code;
  }

  public int code() {
    return code;
  }

  public boolean isNotFound() {
    return code == 404;
  }

  public boolean isConflict() {
    return code == 409;
  }
}
