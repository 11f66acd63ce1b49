package dev.pier.testkit;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.function.UnaryOperator;

/**
 * A test's edit of an object that Pier writes too (a Service, a member Secret, a Lease). The edit
 * is locked to the version it read, so one of Pier's writes in between makes it fail with a
 * conflict; as a person would after kubectl's "the object has been modified", it reads the object
 * again and makes the same change.
 */
public final class Edits {
  private static final int ATTEMPTS = 10;

  private Edits() {}

  public static <T extends HasMetadata> T retrying(Resource<T> resource, UnaryOperator<T> change) {
    return retrying(resource, ATTEMPTS, change);
  }

  /** As {@link #retrying(Resource, UnaryOperator)}, at most {@code attempts} times. */
  public static <T extends HasMetadata> T retrying(
      Resource<T> resource, int attempts, UnaryOperator<T> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        return resource.edit(change);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= attempts) {
          throw e;
        }
      }
    }
  }
}
