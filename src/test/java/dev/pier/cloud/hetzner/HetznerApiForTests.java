package dev.pier.cloud.hetzner;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

/** {@link HetznerApi}, which is package-private, for the tests of other packages. */
public final class HetznerApiForTests implements AutoCloseable {
  private final HetznerApi api;

  public HetznerApiForTests(Vertx vertx, HetznerOptions options) {
    this.api = new HetznerApi(vertx, options);
  }

  /** A GET of {@code path}. */
  public Future<?> get(String path) {
    return api.get(path);
  }

  @Override
  public void close() {
    api.close();
  }
}
