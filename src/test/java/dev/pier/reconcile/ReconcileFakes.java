package dev.pier.reconcile;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.VerifyResult;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.FederationWrites;
import dev.pier.kube.ServiceWrites;
import dev.pier.kube.ServiceWrites.StatusWritten;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Small in-memory fakes of what a reconcile talks to: cache, writes, Events and a provider. The
 * cluster and its Events are public: the federation's runs are tested on them too.
 */
public final class ReconcileFakes {
  private ReconcileFakes() {}

  static Node node(String name, String ip) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress(ip)
        .endAddress()
        .endStatus()
        .build();
  }

  /**
   * A cluster whose cache is a map, whose writes are recorded and whose Events are kept. Its
   * federation writes are whatever a test sets.
   */
  public static final class FakeCluster implements ClusterAccess {
    public final Map<String, Service> services = new HashMap<>();
    public final List<Node> nodes = new ArrayList<>();
    final FakeWrites writes = new FakeWrites();
    public final Events events = new Events();
    public FederationWrites federationWrites;
    public boolean servicesSynced = true;
    // Namespaces read on their own that could not be listed, with why.
    public final Map<String, String> unreadable = new HashMap<>();

    private final String name;
    ClusterIdentity identity;

    FakeCluster() {
      this("c1");
    }

    public FakeCluster(String name) {
      this.name = name;
      this.identity = new ClusterIdentity(name, "uid-of-" + name);
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public ClusterIdentity identity() {
      return identity;
    }

    @Override
    public Service service(String namespace, String name) {
      return services.get(namespace + "/" + name);
    }

    @Override
    public List<Service> services() {
      return List.copyOf(services.values());
    }

    @Override
    public boolean servicesSynced() {
      return servicesSynced && unreadable.isEmpty();
    }

    @Override
    public boolean servicesSynced(String namespace) {
      return servicesSynced && !unreadable.containsKey(namespace);
    }

    @Override
    public String servicesUnreadable(String namespace) {
      return unreadable.get(namespace);
    }

    @Override
    public List<Node> nodes() {
      return List.copyOf(nodes);
    }

    @Override
    public boolean hasReadyEndpoints(String namespace, String name) {
      return false;
    }

    @Override
    public ServiceWrites writer() {
      return writes;
    }

    @Override
    public FederationWrites federationWrites() {
      return federationWrites;
    }

    @Override
    public EventSink events() {
      return events;
    }

    public void put(Service svc) {
      services.put(svc.getMetadata().getNamespace() + "/" + svc.getMetadata().getName(), svc);
    }
  }

  /**
   * Records every write as "op ns/name" and the resourceVersion it was based on; each write answers
   * with the next version. A failure can be set per operation.
   */
  static final class FakeWrites implements ServiceWrites {
    final List<String> calls = new ArrayList<>();
    final List<String> preconditions = new ArrayList<>();
    final Map<String, Throwable> failures = new HashMap<>();
    Function<LbStatus, LbStatus> stored = s -> s;
    private int version = 1000;

    private <T> Future<T> call(String op, ServiceKey key, String resourceVersion, T value) {
      calls.add(op + " " + key.objectKey());
      preconditions.add(op + " " + resourceVersion);
      Throwable f = failures.get(op);
      return f == null ? Future.succeededFuture(value) : Future.failedFuture(f);
    }

    private String next() {
      return Integer.toString(++version);
    }

    @Override
    public Future<String> addFinalizer(Context ctx, ServiceKey key, String resourceVersion) {
      return call("addFinalizer", key, resourceVersion, next());
    }

    @Override
    public Future<String> removeFinalizer(Context ctx, ServiceKey key, String resourceVersion) {
      return call("removeFinalizer", key, resourceVersion, next());
    }

    @Override
    public Future<StatusWritten> patchStatus(
        Context ctx, ServiceKey key, LbStatus status, String resourceVersion) {
      return call(
          "patchStatus", key, resourceVersion, new StatusWritten(stored.apply(status), next()));
    }

    @Override
    public Future<String> clearStatus(Context ctx, ServiceKey key, String resourceVersion) {
      return call("clearStatus", key, resourceVersion, next());
    }
  }

  /** Keeps Events as "Type Reason". */
  public static final class Events implements EventSink {
    public final List<String> recorded = new ArrayList<>();

    @Override
    public void record(ObjectRef ref, String type, String reason, String message) {
      recorded.add(type + " " + reason);
    }
  }

  /** A provider that answers from fields and records calls as "op ns/name". */
  static final class FakeProvider implements LoadBalancerProvider {
    final List<String> calls = new ArrayList<>();
    Future<EnsureResult> ensureAnswer =
        Future.succeededFuture(EnsureResult.of(new LbStatus(List.of(ingress("10.0.0.1")))));
    Future<Void> updateAnswer = Future.succeededFuture();
    Future<Void> deleteAnswer = Future.succeededFuture();
    Optional<LbStatus> existing = Optional.empty();
    List<LbNode> lastNodes = List.of();
    List<String> repairs = List.of();

    static dev.pier.model.LbIngress ingress(String ip) {
      return dev.pier.model.LbIngress.ip(ip);
    }

    @Override
    public String name() {
      return "fake";
    }

    @Override
    public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
      calls.add("get " + service.key().objectKey());
      return Future.succeededFuture(existing);
    }

    @Override
    public String loadBalancerName(String clusterName, LbService service) {
      return service.defaultLoadBalancerName();
    }

    @Override
    public Future<EnsureResult> ensureLoadBalancer(
        String clusterName, LbService service, List<LbNode> nodes) {
      calls.add("ensure " + service.key().objectKey());
      lastNodes = nodes;
      return ensureAnswer;
    }

    @Override
    public Future<VerifyResult> verifyLoadBalancer(
        String clusterName, LbService service, List<LbNode> nodes) {
      calls.add("verify " + service.key().objectKey());
      lastNodes = nodes;
      return ensureAnswer.map(r -> new VerifyResult(r, repairs));
    }

    @Override
    public Future<Void> updateLoadBalancerHosts(
        String clusterName, LbService service, List<LbNode> nodes) {
      calls.add("updateHosts " + service.key().objectKey());
      lastNodes = nodes;
      return updateAnswer;
    }

    @Override
    public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
      calls.add("delete " + service.key().objectKey() + " " + service.uid());
      return deleteAnswer;
    }
  }
}
