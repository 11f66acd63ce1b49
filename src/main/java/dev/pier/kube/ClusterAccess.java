package dev.pier.kube;

import dev.pier.events.EventSink;
import dev.pier.model.ClusterIdentity;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;

/**
 * What a reconcile needs of one cluster: its cached objects (thread-safe reads, like client-go
 * listers), its Service writes, the federation's writes and its Event sink. {@link Cluster} is the
 * real one; tests use small fakes.
 */
public interface ClusterAccess {
  String name();

  /** The cluster's name and uid: what every mark of ownership Pier leaves outside carries. */
  ClusterIdentity identity();

  /** The cached Service, or null. */
  Service service(String namespace, String name);

  List<Service> services();

  /**
   * Whether the Service cache has had its first list: before it, an absent Service proves nothing.
   */
  boolean servicesSynced();

  /**
   * Whether the Services of one namespace have had their first list: the same as {@link
   * #servicesSynced()} but where each namespace is read on its own.
   */
  default boolean servicesSynced(String namespace) {
    return servicesSynced();
  }

  /**
   * Why the Services of a namespace read on its own could not be listed so far (missing there, or
   * no Role in it), or null.
   */
  default String servicesUnreadable(String namespace) {
    return null;
  }

  List<Node> nodes();

  /**
   * Whether the Service has a ready endpoint in its cached EndpointSlices; false when no
   * EndpointSlice informer runs.
   */
  boolean hasReadyEndpoints(String namespace, String name);

  ServiceWrites writer();

  /** The federation's writes in this cluster: copies in a member, marks and status on the host. */
  FederationWrites federationWrites();

  EventSink events();

  /**
   * The server answered 409 to a write of this Service long ago, and the cache still holds it at
   * {@code resourceVersion}, the version the write was based on: the cache missed events. A cluster
   * that can, lists its Services again. Default: nothing.
   */
  default void cacheMissedEvents(String namespace, String name, String resourceVersion) {}
}
