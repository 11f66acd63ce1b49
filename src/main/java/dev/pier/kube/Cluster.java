package dev.pier.kube;

import dev.pier.events.EventSink;
import dev.pier.model.ClusterIdentity;
import dev.pier.policy.EndpointReadiness;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cluster Pier manages: its client, the informers whose caches reconcilers read (thread-safe
 * stores, like client-go listers), its Service writes and its Event sink. The watch verticles start
 * the informers. Its identity (the uid of its {@code kube-system} namespace) is read once at
 * startup by {@link #loadIdentity}, before anything else runs against it.
 */
public final class Cluster implements ClusterAccess, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Cluster.class);

  /**
   * Services per page of the Service informer's list: one page is what a list holds in memory at
   * once before the cache cuts each Service down, and a Service may carry 256 KiB of annotations.
   */
  static final long SERVICE_LIST_PAGE = 100;

  /** Relists of the Service informer are at least this far apart. */
  static final Duration MIN_RELIST_INTERVAL = Duration.ofSeconds(60);

  private final String name;
  private final KubernetesClient client;
  private final Duration serviceResync;
  // Replaced (list and watch again) when it is shown to have missed events; see relistServices.
  private volatile ScopedInformer<Service> services;
  // The store of the informer over every namespace (of the first namespace's when scoped).
  private volatile TrimmingItemStore<Service> serviceItems;
  private final Set<String> wholeNamespaces;
  // Empty: every namespace; else only these, each by its own informer (a Role per namespace).
  private final Set<String> scope;
  private static final String BY_SERVICE = "service";
  private final List<ResourceEventHandler<Service>> serviceHandlers = new CopyOnWriteArrayList<>();
  private long lastRelistNanos;
  private boolean relisting;
  private final AtomicLong relists = new AtomicLong();
  private final SharedIndexInformer<Node> nodes;
  private final ServiceWrites writer;
  private final FederationWrites federationWrites;
  private final AsyncKubeApi federationApi;
  private final EventSink events;
  private final AsyncKubeApi api;
  private volatile ClusterIdentity identity;
  private volatile boolean forbiddenIsFatal = true;
  // Only DNS publishing needs EndpointSlices: created on first use, started by its watcher.
  private volatile ScopedInformer<EndpointSlice> endpointSlices;
  // The load-balancer watchers and the federation may both need an informer: started once.
  private CompletionStage<Void> servicesStarted;
  private CompletionStage<Void> nodesStarted;

  public Cluster(
      String name,
      KubernetesClient client,
      Duration serviceResync,
      ServiceWrites writer,
      EventSink events,
      AsyncKubeApi api) {
    this(name, client, serviceResync, writer, events, api, Set.of());
  }

  /**
   * @param wholeNamespaces namespaces whose every Service is federated: their Services are cached
   *     whole, where others that Pier neither serves nor federates are stubs ({@link
   *     TrimmingItemStore})
   */
  public Cluster(
      String name,
      KubernetesClient client,
      Duration serviceResync,
      ServiceWrites writer,
      EventSink events,
      AsyncKubeApi api,
      Set<String> wholeNamespaces) {
    this(name, client, serviceResync, writer, events, api, api, wholeNamespaces);
  }

  /**
   * @param federationApi the async API of the federation's writes in this cluster (its copies, the
   *     host's aggregate, the member Secrets): with scale-out, fenced by the cluster-wide shard,
   *     where {@code api} fences each request by the term of the run that sends it
   */
  public Cluster(
      String name,
      KubernetesClient client,
      Duration serviceResync,
      ServiceWrites writer,
      EventSink events,
      AsyncKubeApi api,
      AsyncKubeApi federationApi,
      Set<String> wholeNamespaces) {
    this(
        name, client, serviceResync, writer, events, api, federationApi, wholeNamespaces, Set.of());
  }

  /**
   * @param scope the only namespaces Pier may read and write in this cluster, each read by its own
   *     informer (a federation member with a Role per namespace); empty: every namespace
   */
  public Cluster(
      String name,
      KubernetesClient client,
      Duration serviceResync,
      ServiceWrites writer,
      EventSink events,
      AsyncKubeApi api,
      AsyncKubeApi federationApi,
      Set<String> wholeNamespaces,
      Set<String> scope) {
    this.name = name;
    this.scope = Set.copyOf(scope);
    this.federationApi = federationApi;
    this.wholeNamespaces = Set.copyOf(wholeNamespaces);
    this.api = api;
    this.client = client;
    this.serviceResync = serviceResync;
    List<TrimmingItemStore<Service>> stores = new ArrayList<>();
    this.services = newServiceInformer(stores);
    this.serviceItems = stores.get(0);
    this.nodes = client.nodes().runnableInformer(0).itemStore(new TrimmingItemStore<>());
    this.writer = writer;
    this.federationWrites =
        new FederationWriter(federationApi, client.getKubernetesSerialization());
    this.events = events;
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * The cluster's identity, read by {@link #loadIdentity}.
   *
   * @throws IllegalStateException before it was read
   */
  @Override
  public ClusterIdentity identity() {
    ClusterIdentity id = identity;
    if (id == null) {
      throw new IllegalStateException("cluster " + name + ": identity not read yet");
    }
    return id;
  }

  /**
   * Reads the uid of the {@code kube-system} namespace without blocking; fails with a message that
   * names what could not be read and, when the API server refused, the permission that is missing.
   */
  public Future<ClusterIdentity> loadIdentity(Context ctx) {
    String path = "/api/v1/namespaces/" + ClusterIdentity.NAMESPACE;
    return api.get(ctx, path)
        .transform(
            ar -> {
              String uid = ar.succeeded() ? uid(ar.result()) : null;
              if (uid == null || uid.isBlank()) {
                return Future.failedFuture(
                    new IllegalStateException(identityFailure(name, ar.cause())));
              }
              ClusterIdentity id = new ClusterIdentity(name, uid);
              identity = id;
              return Future.succeededFuture(id);
            });
  }

  private static String uid(JsonObject namespace) {
    JsonObject metadata = namespace.getJsonObject("metadata");
    return metadata == null ? null : metadata.getString("uid");
  }

  /** Why the identity of cluster {@code name} could not be read. */
  static String identityFailure(String name, Throwable cause) {
    String what =
        "cluster "
            + name
            + ": cannot read its identity, the metadata.uid of namespace "
            + ClusterIdentity.NAMESPACE;
    if (cause == null) {
      return what + ": the namespace has no uid";
    }
    if (cause instanceof KubeApiException k && (k.code() == 401 || k.code() == 403)) {
      return what
          + ": "
          + cause.getMessage()
          + "; Pier's RBAC must allow get on namespaces, resourceNames ["
          + ClusterIdentity.NAMESPACE
          + "] (a ClusterRole rule; see k8s/rbac.yaml)";
    }
    return what + ": " + cause.getMessage();
  }

  public KubernetesClient client() {
    return client;
  }

  /**
   * Informers of this cluster keep retrying on a 403 instead of failing Pier's start: a federation
   * member that is not needed to start, whose RBAC may be fixed while Pier runs.
   */
  public Cluster retryWhenForbidden() {
    forbiddenIsFatal = false;
    return this;
  }

  /** Whether a 403 before an informer's first list fails it (see {@link #retryWhenForbidden}). */
  public boolean forbiddenIsFatal() {
    return forbiddenIsFatal;
  }

  /** The only namespaces Pier reads and writes here, each on its own; empty: every namespace. */
  public Set<String> scope() {
    return scope;
  }

  /** The manifest that grants what the informers of this cluster list and watch. */
  private String rbac() {
    return scope.isEmpty() ? RbacFiles.BASE : RbacFiles.FEDERATION_MEMBER_NAMESPACED;
  }

  /**
   * Starts the Service informer once; completes on {@code ctx} after its first list (scoped to
   * namespaces and retrying on a 403: after each namespace's first list, or its first failure).
   */
  public Future<Void> startServices(Context ctx) {
    CompletionStage<Void> started;
    synchronized (this) {
      if (servicesStarted == null) {
        servicesStarted = services.start(name, "Service", rbac(), forbiddenIsFatal);
      }
      started = servicesStarted;
    }
    return Future.fromCompletionStage(started, ctx);
  }

  /** Starts the Node informer once; completes on {@code ctx} after its first list. */
  public Future<Void> startNodes(Context ctx) {
    CompletionStage<Void> started;
    synchronized (this) {
      if (nodesStarted == null) {
        nodesStarted = Informers.start(nodes, name, "Node", RbacFiles.BASE, forbiddenIsFatal);
      }
      started = nodesStarted;
    }
    return Future.fromCompletionStage(started, ctx);
  }

  /** The API server's base URL, for log lines. */
  public String url() {
    return client.getConfiguration().getMasterUrl();
  }

  /** The cluster's async API (writes and reads outside informers). */
  public AsyncKubeApi api() {
    return api;
  }

  /** The async API of the federation's writes: fenced by the cluster-wide shard in scale-out. */
  public AsyncKubeApi federationApi() {
    return federationApi;
  }

  public ScopedInformer<Service> serviceInformer() {
    return services;
  }

  /**
   * A Service informer (one per namespace when scoped); its caches' stores go to {@code stores}.
   */
  private ScopedInformer<Service> newServiceInformer(List<TrimmingItemStore<Service>> stores) {
    return ScopedInformer.of(
        scope,
        ns -> {
          TrimmingItemStore<Service> items = new TrimmingItemStore<>(wholeNamespaces);
          stores.add(items);
          return (ns == null
                  ? client.services().inAnyNamespace()
                  : client.services().inNamespace(ns))
              .withLimit(SERVICE_LIST_PAGE)
              .runnableInformer(serviceResync.toMillis())
              .itemStore(items);
        });
  }

  /** The Service cache's own store: tests plant in it what a silent watch leaves behind. */
  TrimmingItemStore<Service> serviceItems() {
    return serviceItems;
  }

  private static Map<String, Service> byKey(List<Service> services) {
    Map<String, Service> m = new HashMap<>();
    services.forEach(svc -> m.put(Cache.metaNamespaceKeyFunc(svc), svc));
    return m;
  }

  /**
   * Adds a handler of Service events; it moves to the Service informer that replaces this one after
   * missed events, where it sees what it missed ({@link RelistedHandler}).
   */
  public void addServiceHandler(ResourceEventHandler<Service> handler) {
    synchronized (this) {
      serviceHandlers.add(handler);
      services.addEventHandler(handler);
    }
  }

  /** How often the Service informer was replaced because it missed events. */
  public long serviceRelists() {
    return relists.get();
  }

  @Override
  public void cacheMissedEvents(String namespace, String name, String resourceVersion) {
    relistServices(
        "Service "
            + namespace
            + "/"
            + name
            + " is still cached at resourceVersion "
            + resourceVersion
            + " although the server answered a write based on it with 409",
        MIN_RELIST_INTERVAL);
  }

  /**
   * Lists and watches the Services again with a new informer, once it has synced: the old one stops
   * and its handlers move to the new one, where they see what was missed as updates and deletions
   * ({@link RelistedHandler}), not every Service anew. A watch can go silent without an error
   * (fabric8 8.0.0, docs/benchmarks.md) and then stays so until the server ends it, up to 10
   * minutes; reconciles in between read a cache that no longer matches the server. At most one
   * relist per {@code minInterval}.
   *
   * @return whether a relist started
   */
  boolean relistServices(String why, Duration minInterval) {
    ScopedInformer<Service> fresh;
    List<TrimmingItemStore<Service>> freshItems = new ArrayList<>();
    synchronized (this) {
      long now = System.nanoTime();
      if (servicesStarted == null
          || relisting
          || (relists.get() > 0 && now - lastRelistNanos < minInterval.toNanos())) {
        return false;
      }
      relisting = true;
      lastRelistNanos = now;
      fresh = newServiceInformer(freshItems);
    }
    relists.incrementAndGet();
    log.warn("Cluster {}: the Service cache missed events ({}): listing Services again", name, why);
    fresh
        .start(name, "Service", rbac(), false)
        .whenComplete(
            (v, t) -> {
              ScopedInformer<Service> old;
              synchronized (this) {
                relisting = false;
                if (t != null) {
                  fresh.stop();
                  log.warn("Cluster {}: listing Services again failed: {}", name, t.toString());
                  return;
                }
                old = services;
                services = fresh;
                serviceItems = freshItems.get(0);
              }
              old.stop();
              Map<String, Service> before = byKey(old.list());
              Map<String, Service> listed = byKey(fresh.list());
              for (ResourceEventHandler<Service> h : serviceHandlers) {
                RelistedHandler<Service> moved = new RelistedHandler<>(h, before);
                fresh.addEventHandler(moved);
                moved.deletedWhileMissed(listed);
              }
              log.info("Cluster {}: Services listed again ({} cached)", name, listed.size());
            });
    return true;
  }

  public SharedIndexInformer<Node> nodeInformer() {
    return nodes;
  }

  @Override
  public Service service(String namespace, String name) {
    return services.get(namespace, name);
  }

  @Override
  public List<Service> services() {
    return services.list();
  }

  @Override
  public boolean servicesSynced() {
    return services.hasSynced();
  }

  @Override
  public boolean servicesSynced(String namespace) {
    return services.hasSynced(namespace);
  }

  @Override
  public String servicesUnreadable(String namespace) {
    return services.unreadable(namespace);
  }

  @Override
  public List<Node> nodes() {
    return nodes.getStore().list();
  }

  /** The EndpointSlice informer, indexed by Service, created on first call (not started). */
  public synchronized ScopedInformer<EndpointSlice> endpointSliceInformer() {
    if (endpointSlices == null) {
      endpointSlices = endpointSliceInformer(client, scope);
    }
    return endpointSlices;
  }

  /** A new EndpointSlice informer over {@code scope}, indexed by Service (not started). */
  public static ScopedInformer<EndpointSlice> endpointSliceInformer(
      KubernetesClient client, Set<String> scope) {
    var slices = client.discovery().v1().endpointSlices();
    ScopedInformer<EndpointSlice> informer =
        ScopedInformer.of(
            scope,
            ns ->
                (ns == null ? slices.inAnyNamespace() : slices.inNamespace(ns))
                    .runnableInformer(0));
    informer.addIndexers(Map.of(BY_SERVICE, EndpointReadiness::serviceKey));
    return informer;
  }

  /** The cached EndpointSlices of a Service, from an informer made by endpointSliceInformer. */
  public static List<EndpointSlice> slicesOf(
      ScopedInformer<EndpointSlice> informer, String namespace, String name) {
    return informer.byIndex(namespace, BY_SERVICE, namespace + "/" + name);
  }

  @Override
  public boolean hasReadyEndpoints(String namespace, String name) {
    ScopedInformer<EndpointSlice> i = endpointSlices;
    return i != null && EndpointReadiness.ready(slicesOf(i, namespace, name));
  }

  @Override
  public ServiceWrites writer() {
    return writer;
  }

  @Override
  public FederationWrites federationWrites() {
    return federationWrites;
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
    synchronized (this) {
      services.stop();
    }
    nodes.stop();
    if (endpointSlices != null) {
      endpointSlices.stop();
    }
    client.close();
  }
}
