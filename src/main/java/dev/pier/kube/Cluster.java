package dev.pier.kube;

import dev.pier.events.EventSink;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;

/**
 * One cluster Pier manages: its client, the informers whose caches reconcilers read (thread-safe
 * stores, like client-go listers), its Service writes and its Event sink. The watch verticles start
 * the informers.
 */
public final class Cluster implements ClusterAccess, AutoCloseable {
  private final String name;
  private final KubernetesClient client;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<Node> nodes;
  private final ServiceWrites writer;
  private final EventSink events;
  // Only DNS publishing needs Endpoints: created on first use, started by its watcher.
  private volatile SharedIndexInformer<Endpoints> endpoints;

  public Cluster(
      String name,
      KubernetesClient client,
      Duration serviceResync,
      ServiceWrites writer,
      EventSink events) {
    this.name = name;
    this.client = client;
    this.services =
        client
            .services()
            .inAnyNamespace()
            .runnableInformer(serviceResync.toMillis())
            .itemStore(new TrimmingItemStore<>());
    this.nodes = client.nodes().runnableInformer(0).itemStore(new TrimmingItemStore<>());
    this.writer = writer;
    this.events = events;
  }

  @Override
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

  @Override
  public Service service(String namespace, String name) {
    return services.getStore().getByKey(namespace + "/" + name);
  }

  @Override
  public List<Service> services() {
    return services.getStore().list();
  }

  @Override
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

  @Override
  public Endpoints endpoints(String namespace, String name) {
    SharedIndexInformer<Endpoints> e = endpoints;
    return e == null ? null : e.getStore().getByKey(namespace + "/" + name);
  }

  @Override
  public ServiceWrites writer() {
    return writer;
  }

  @Override
  public EventSink events() {
    return events;
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
