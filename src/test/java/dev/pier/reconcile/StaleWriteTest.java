package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.events.EventSink;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.FederationWrites;
import dev.pier.kube.KubeApiException;
import dev.pier.kube.ServiceWriter;
import dev.pier.kube.ServiceWrites;
import dev.pier.leader.LeaderGate;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.nodes.PushedNodeSets;
import dev.pier.policy.NodeEligibility;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkItem;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import dev.pier.reconcile.ReconcileFakes.Events;
import dev.pier.reconcile.ReconcileFakes.FakeProvider;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Service writes carry the resourceVersion of the Service they were decided on: against a real API
 * server a write from a stale view gets a 409 and changes nothing, and a reconcile treats it as
 * "reconcile again", not as an error to report.
 */
@RealKubeApiServer
class StaleWriteTest {
  private static final LbStatus STATUS = new LbStatus(List.of(LbIngress.ip("10.9.0.1")));

  private static KubernetesClient client;
  private static Vertx vertx;
  private static Context ctx;
  private static ServiceWriter writer;

  @BeforeAll
  static void setUp(KubeApiServer kube) {
    client = kube.client();
    vertx = Vertx.vertx();
    ctx = vertx.getOrCreateContext();
    writer = new ServiceWriter(new AsyncKubeApi(client));
  }

  @AfterAll
  static void tearDown() {
    vertx.close();
  }

  /** Creates a Service and returns it as read, then changes it behind the reader's back. */
  private static Service staleCopy(String ns, String name, List<String> finalizers) {
    Service svc = Services.loadBalancer(ns, name, 80, 0);
    svc.getMetadata().setFinalizers(finalizers);
    Service read = client.services().inNamespace(ns).resource(svc).create();
    Services.edit(
        client,
        ns,
        name,
        s -> {
          s.getMetadata().setAnnotations(Map.of("edited", "by someone else"));
          return s;
        });
    return read;
  }

  private static Throwable failure(io.vertx.core.Future<?> f) throws Exception {
    try {
      f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      return null;
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void writesFromAStaleVersionGetAConflictAndChangeNothing(KubeApiServer kube) throws Exception {
    String ns = kube.createNamespace("stale");
    Service read = staleCopy(ns, "web", List.of());
    ServiceKey key = new ServiceKey("c1", ns, "web");
    String stale = read.getMetadata().getResourceVersion();

    Throwable status = failure(writer.patchStatus(ctx, key, STATUS, stale));
    Throwable finalizer = failure(writer.addFinalizer(ctx, key, stale));

    assertThat(status).isInstanceOf(KubeApiException.class);
    assertThat(((KubeApiException) status).code()).isEqualTo(409);
    assertThat(finalizer).isInstanceOf(KubeApiException.class);
    assertThat(((KubeApiException) finalizer).code()).isEqualTo(409);
    Service now = client.services().inNamespace(ns).withName("web").get();
    assertThat(now.getStatus().getLoadBalancer().getIngress()).isEmpty();
    assertThat(now.getMetadata().getFinalizers()).isEmpty();

    // From the current version, each write answers with the version the next one is based on.
    String current = now.getMetadata().getResourceVersion();
    String afterFinalizer =
        writer.addFinalizer(ctx, key, current).toCompletionStage().toCompletableFuture().get();
    ServiceWrites.StatusWritten written =
        writer
            .patchStatus(ctx, key, STATUS, afterFinalizer)
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    // The server keeps what was written, ipMode defaulted to VIP for an ip without one.
    assertThat(written.status().shows(STATUS)).as(written.status().toString()).isTrue();
    assertThat(written.status().ingress()).extracting(LbIngress::ipMode).containsOnly("VIP");
    assertThat(failure(writer.removeFinalizer(ctx, key, afterFinalizer)))
        .as("removing the finalizer from the version before the status write")
        .isInstanceOf(KubeApiException.class);
    writer
        .removeFinalizer(ctx, key, written.resourceVersion())
        .toCompletionStage()
        .toCompletableFuture()
        .get();
    assertThat(
            client.services().inNamespace(ns).withName("web").get().getMetadata().getFinalizers())
        .isEmpty();
  }

  @Test
  void aReconcileFromAStaleCacheIsReconciledAgainWithoutAnErrorEvent(KubeApiServer kube)
      throws Exception {
    String ns = kube.createNamespace("stale-run");
    Service read = staleCopy(ns, "web", List.of(ServiceFilter.LB_CLEANUP_FINALIZER));
    Events events = new Events();
    ClusterAccess stale = new StaleCluster(read, writer, events);
    LeaderGate gate = LeaderGate.alwaysOpen();
    ServiceReconciler reconciler =
        new ServiceReconciler(
            ctx,
            name -> stale,
            new FakeProvider(),
            new ServiceFilter(Set.of()),
            NodeEligibility.STABLE,
            new PushedNodeSets(),
            new DeletedServices(),
            null,
            gate);
    ServiceKey key = new ServiceKey("c1", ns, "web");

    WorkResult r =
        io.vertx.core.Future.<WorkResult>future(
                p ->
                    ctx.runOnContext(
                        v ->
                            reconciler
                                .reconcile(new WorkItem<>(key, Set.of(WorkKind.RECONCILE), 0))
                                .onComplete(p)))
            .toCompletionStage()
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);

    assertThat(r.outcome()).isEqualTo(WorkResult.Outcome.RETRY);
    assertThat(events.recorded).containsExactly("Normal EnsuringLoadBalancer");
    Service now = client.services().inNamespace(ns).withName("web").get();
    assertThat(now.getStatus().getLoadBalancer().getIngress())
        .as("the status write from the stale version changed nothing")
        .isEmpty();
  }

  /** A cluster whose cache holds one Service as it was read, before someone else changed it. */
  private record StaleCluster(Service cached, ServiceWrites writes, Events sink)
      implements ClusterAccess {
    @Override
    public ServiceWrites writer() {
      return writes;
    }

    @Override
    public FederationWrites federationWrites() {
      return null;
    }

    @Override
    public String name() {
      return "c1";
    }

    @Override
    public ClusterIdentity identity() {
      return new ClusterIdentity("c1", "uid-of-c1");
    }

    @Override
    public Service service(String namespace, String name) {
      return cached;
    }

    @Override
    public List<Service> services() {
      return List.of(cached);
    }

    @Override
    public boolean servicesSynced() {
      return true;
    }

    @Override
    public List<Node> nodes() {
      return List.of(ReconcileFakes.node("n1", "192.0.2.1"));
    }

    @Override
    public boolean hasReadyEndpoints(String namespace, String name) {
      return false;
    }

    @Override
    public EventSink events() {
      return sink;
    }
  }
}
