package dev.pier.bench;

import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.KubeClients;
import dev.pier.testkit.KubeApiServer;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * Reproduces a known defect (not a benchmark): a fabric8 8.0.0 Service informer goes silent in a
 * burst of events and misses them until the server ends the watch (10 minutes later). Per round: a
 * fresh namespace with 1,000 Services, an informer on Pier's request client, then 2 writes to each
 * Service (finalizer, status), 400 in flight, as a cold start makes them; after 30 s the round
 * prints how many Services the informer still holds at an older resourceVersion than their last
 * write. Seen here: stale Services in about 1 of 3 rounds, with the Vert.x and with the JDK
 * transport, over WebSocket and over HTTP watches.
 *
 * <pre>scripts/bench/run.sh informer-stall --rounds 5</pre>
 */
public final class InformerStallRepro {
  private static final int SERVICES = 1000;
  private static final int IN_FLIGHT = 400;

  private InformerStallRepro() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length >= 2 && args[0].equals("--rounds") ? Integer.parseInt(args[1]) : 3;
    int failed = 0;
    Vertx vertx = Vertx.vertx();
    try (KubeApiServer kube = KubeApiServer.builder().start()) {
      for (int r = 1; r <= rounds; r++) {
        int stale = round(vertx, kube);
        BenchDriver.log("round %d: %d of %d Services stale after 30 s", r, stale, SERVICES);
        failed += stale > 0 ? 1 : 0;
      }
    } finally {
      vertx.close().await();
    }
    BenchDriver.log("%d of %d rounds left the informer stale", failed, rounds);
    System.exit(failed > 0 ? 1 : 0);
  }

  private static int round(Vertx vertx, KubeApiServer kube) throws Exception {
    String ns = kube.createNamespace("stall");
    KubernetesClient setup = kube.client();
    IntStream.range(0, SERVICES)
        .parallel()
        .forEach(i -> setup.services().inNamespace(ns).resource(service(ns, i)).create());
    try (KubernetesClient client =
        KubeClients.create(vertx, kube.kubeconfigPath().toString(), null)) {
      SharedIndexInformer<Service> informer = client.services().inNamespace(ns).runnableInformer(0);
      informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
      AsyncKubeApi api = new AsyncKubeApi(client);
      Context ctx = vertx.getOrCreateContext();
      Map<String, String> written = new ConcurrentHashMap<>();
      Promise<Void> done = Promise.promise();
      AtomicInteger next = new AtomicInteger();
      AtomicInteger running = new AtomicInteger();
      ctx.runOnContext(
          v -> {
            for (int k = 0; k < IN_FLIGHT; k++) {
              chain(api, ctx, ns, next, running, written, done);
            }
          });
      done.future().toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      List<String> stale = staleKeys(informer, ns, written);
      while (!stale.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(200);
        stale = staleKeys(informer, ns, written);
      }
      informer.stop();
      return stale.size();
    }
  }

  private static void chain(
      AsyncKubeApi api,
      Context ctx,
      String ns,
      AtomicInteger next,
      AtomicInteger running,
      Map<String, String> written,
      Promise<Void> done) {
    int i = next.getAndIncrement();
    if (i >= SERVICES) {
      if (running.get() == 0) {
        done.tryComplete();
      }
      return;
    }
    running.incrementAndGet();
    String path = AsyncKubeApi.corePath(ns, "services", name(i));
    Future<JsonObject> first =
        api.patch(
            ctx,
            path,
            AsyncKubeApi.STRATEGIC_MERGE_PATCH,
            new JsonObject(
                "{\"metadata\":{\"finalizers\":[\"service.kubernetes.io/load-balancer-cleanup\"]}}"));
    first
        .compose(
            r ->
                api.patch(
                    ctx,
                    path + "/status",
                    AsyncKubeApi.MERGE_PATCH,
                    new JsonObject(
                        "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"10.9."
                            + (i >> 8)
                            + "."
                            + (i & 0xff)
                            + "\"}]}}}")))
        .onComplete(
            ar -> {
              running.decrementAndGet();
              if (ar.succeeded()) {
                written.put(
                    name(i), ar.result().getJsonObject("metadata").getString("resourceVersion"));
              } else {
                done.tryFail(ar.cause());
                return;
              }
              chain(api, ctx, ns, next, running, written, done);
            });
  }

  private static List<String> staleKeys(
      SharedIndexInformer<Service> informer, String ns, Map<String, String> written) {
    List<String> stale = new ArrayList<>();
    written.forEach(
        (name, rv) -> {
          Service cached = informer.getStore().getByKey(ns + "/" + name);
          if (cached == null || !rv.equals(cached.getMetadata().getResourceVersion())) {
            stale.add(name);
          }
        });
    return stale;
  }

  private static String name(int i) {
    return String.format("svc-%05d", i);
  }

  private static Service service(String ns, int i) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name(i))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .addNewPort()
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }
}
