package dev.pier.kube;

import dev.pier.events.EventSink;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One cluster Pier manages: its client, the informers whose caches reconcilers read (thread-safe
 * stores, like client-go listers), its writers, and the last state of Services deleted without
 * Pier's finalizer. The watch verticle starts the informers.
 */
public final class Cluster implements AutoCloseable {
  private final String name;
  private final KubernetesClient client;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<Node> nodes;
  private final ServiceWriter writer;
  private final EventSink events;
  private final Map<String, Service> deletedServices = new ConcurrentHashMap<>();
  // Only DNS publishing needs Endpoints: created on first use, started by its watcher.
  private volatile SharedIndexInformer<Endpoints> endpoints;

  /**
   * @param instance this Pier process's identity, reported on Events
   */
  public Cluster(
      Vertx vertx, String name, KubernetesClient client, Duration serviceResync, String instance) {
    this.name = name;
    this.client = client;
    this.services =
        client
            .services()
            .inAnyNamespace()
            .runnableInformer(serviceResync.toMillis())
            .itemStore(new TrimmingItemStore<>());
    this.nodes = client.nodes().runnableInformer(0).itemStore(new TrimmingItemStore<>());
    AsyncKubeApi api = new AsyncKubeApi(client);
    this.writer = new ServiceWriter(api);
    this.events = new KubeEventRecorder(vertx, api, instance);
  }

  public String name() {
    return name;
  }

  public KubernetesClient client() {
    return client;
  }

  public SharedIndexInformer<Service> serviceInformer() {
    return services;
  }

  public SharedIndexInformer<Node> nodeInformer() {
    return nodes;
  }

  /** The cached Service, or null. */
  public Service service(String namespace, String name) {
    return services.getStore().getByKey(namespace + "/" + name);
  }

  public List<Service> services() {
    return services.getStore().list();
  }

  public List<Node> nodes() {
    return nodes.getStore().list();
  }

  /** The Endpoints informer, created on first call (not started). */
  public synchronized SharedIndexInformer<Endpoints> endpointsInformer() {
    if (endpoints == null) {
      endpoints = client.endpoints().inAnyNamespace().runnableInformer(0);
    }
    return endpoints;
  }

  /** The cached Endpoints of a Service, or null (also when no Endpoints informer runs). */
  public Endpoints endpoints(String namespace, String name) {
    SharedIndexInformer<Endpoints> e = endpoints;
    return e == null ? null : e.getStore().getByKey(namespace + "/" + name);
  }

  public ServiceWriter writer() {
    return writer;
  }

  public EventSink events() {
    return events;
  }

  /** Last seen state of Services deleted without the finalizer, by {@code namespace/name}. */
  public Map<String, Service> deletedServices() {
    return deletedServices;
  }

  public boolean synced() {
    return services.hasSynced() && nodes.hasSynced();
  }

  @Override
  public void close() {
    services.stop();
    nodes.stop();
    if (endpoints != null) {
      endpoints.stop();
    }
    client.close();
  }
}
