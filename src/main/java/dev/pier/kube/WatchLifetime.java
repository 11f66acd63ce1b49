package dev.pier.kube;

import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.cache.Reflector;
import java.lang.reflect.Field;
import java.time.Duration;

/**
 * Bounds how stale any informer's cache can get, whatever the server or the network does: each
 * watch is ended by the client after {@link #MIN} to twice that, and the informer watches again
 * from the last version it saw, so whatever a silent watch missed arrives with the next one (or,
 * when that version is too old, after a fresh list). A watch can go silent without closing:
 * kube-apiserver 1.20.0-1.20.9 and 1.21.0-1.21.3 leave a Service watch open when the watch cache
 * drops it (kubernetes/kubernetes#102464), and a proxy or a NAT can drop a stream's packets without
 * a reset. fabric8 ends watches itself only after 5 to 10 minutes.
 *
 * <p>fabric8 offers no public setting for it; its {@code Reflector} has a public {@code
 * setMinTimeout}, reached here through the informer's private field. A fabric8 that changes this
 * fails Pier's start, and {@code WatchLifetimeTest}, rather than silently losing the bound.
 */
public final class WatchLifetime {
  /** Each watch lives between this and twice this: the staleness bound is under a minute. */
  public static final Duration MIN = Duration.ofSeconds(20);

  private static final Field REFLECTOR = reflectorField();

  private WatchLifetime() {}

  /** Makes {@code informer}'s watches end after {@link #MIN} to twice that. */
  public static void bound(SharedIndexInformer<?> informer) {
    bound(informer, MIN);
  }

  static void bound(SharedIndexInformer<?> informer, Duration min) {
    if (!(informer instanceof DefaultSharedIndexInformer<?, ?>)) {
      throw new IllegalStateException(
          "cannot bound the watch lifetime of a " + informer.getClass().getName());
    }
    try {
      ((Reflector<?, ?>) REFLECTOR.get(informer)).setMinTimeout(min.toSeconds());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot bound the watch lifetime of an informer", e);
    }
  }

  private static Field reflectorField() {
    try {
      Field f = DefaultSharedIndexInformer.class.getDeclaredField("reflector");
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(
          "this fabric8 version has no DefaultSharedIndexInformer.reflector; Pier cannot bound"
              + " its informers' staleness",
          e);
    }
  }
}
