package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.ForwardingLoadBalancerProvider;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Success is rate-limited: a Service whose annotations flap gets a bounded number of provider
 * ensures, while a change of its spec is ensured at once and the last state is ensured in the end.
 */
@RealKubeApiServer
class EnsureRateLimitTest {
  private static final Logger log = LoggerFactory.getLogger(EnsureRateLimitTest.class);
  private static final Duration MIN_INTERVAL = Duration.ofSeconds(2);
  private static final Duration FLAPPING = Duration.ofSeconds(5);
  private static final Duration PATCH_EVERY = Duration.ofMillis(200);

  private static KubeApiServer kube;
  private static KubernetesClient client;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    kube = server;
    client = kube.client();
    kube.createReadyNode("rate-a", "127.0.0.7", Map.of());
  }

  /** One provider ensure: when, and the Service as the provider saw it. */
  record Ensure(long nanos, LbService service) {}

  /** Counts the provider's ensures and keeps what each one saw. */
  static final class CountingEnsures extends ForwardingLoadBalancerProvider {
    final List<Ensure> ensures = new CopyOnWriteArrayList<>();

    CountingEnsures(LoadBalancerProvider delegate) {
      super(delegate);
    }

    @Override
    public Future<EnsureResult> ensureLoadBalancer(
        String clusterName, LbService service, List<LbNode> nodes) {
      ensures.add(new Ensure(System.nanoTime(), service));
      return delegate.ensureLoadBalancer(clusterName, service, nodes);
    }

    long since(long nanos) {
      return ensures.stream().filter(e -> e.nanos() >= nanos).count();
    }

    Ensure last() {
      return ensures.get(ensures.size() - 1);
    }
  }

  @Test
  void flappingAnnotationsGetBoundedEnsuresWhileASpecChangeIsEnsuredAtOnce() throws Exception {
    String ns = kube.createNamespace("rate");
    int nodePort = kube.freeNodePort();
    int secondNodePort = kube.freeNodePort();
    CountingEnsures[] provider = new CountingEnsures[1];
    try (InProcessPier pier =
        InProcessPier.start(
            kube,
            Map.of(
                PierOptions.LOCAL_POOLS.envName(),
                "127.248.0.0/24",
                "PIER_RECONCILE_MIN_ENSURE_INTERVAL",
                MIN_INTERVAL.toMillis() + "ms"),
            p -> provider[0] = new CountingEnsures(p))) {
      CountingEnsures ensures = provider[0];
      client
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "flap", 8095, nodePort))
          .create();
      Services.awaitIngress(client, ns, "flap");
      assertThat(ensures.ensures).hasSize(1);

      long start = System.nanoTime();
      long portAddedAt = 0;
      int patches = 0;
      String lastStamp = null;
      while (System.nanoTime() - start < FLAPPING.toNanos()) {
        lastStamp = Long.toString(System.nanoTime());
        String stamp = lastStamp;
        Services.edit(
            client,
            ns,
            "flap",
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .addToAnnotations("example.com/stamp", stamp)
                    .endMetadata()
                    .build());
        patches++;
        if (portAddedAt == 0 && System.nanoTime() - start > FLAPPING.toNanos() / 2) {
          portAddedAt = System.nanoTime();
          Services.edit(
              client,
              ns,
              "flap",
              s ->
                  new ServiceBuilder(s)
                      .editSpec()
                      .addNewPort()
                      .withName("second")
                      .withProtocol("TCP")
                      .withPort(8096)
                      .withNodePort(secondNodePort)
                      .endPort()
                      .endSpec()
                      .build());
          long added = portAddedAt;
          // A spec change is never held back: it is ensured at once, flapping or not.
          await()
              .atMost(Duration.ofSeconds(2))
              .until(
                  () ->
                      ensures.ensures.stream()
                          .anyMatch(e -> e.nanos() >= added && e.service().ports().size() == 2));
        }
        Thread.sleep(PATCH_EVERY.toMillis());
      }
      long flapped = System.nanoTime() - start;

      // The latest state is ensured once the interval ends: deferred, not lost.
      String finalStamp = lastStamp;
      await()
          .atMost(MIN_INTERVAL.multipliedBy(3))
          .until(
              () ->
                  finalStamp.equals(ensures.last().service().annotations().get("example.com/stamp"))
                      && ensures.last().service().ports().size() == 2);
      long during = ensures.since(start);
      log.info(
          "{} annotation patches and one port added in {} ms: {} provider ensures",
          patches,
          flapped / 1_000_000,
          during);
      // One ensure per interval for the annotations (plus the first, at once), one for the port.
      long bound = flapped / MIN_INTERVAL.toNanos() + 2 + 1;
      assertThat(patches).isGreaterThanOrEqualTo(10);
      assertThat(during).isLessThanOrEqualTo(bound);
      Counter throttled =
          pier.pier()
              .metrics()
              .registry()
              .find("pier.reconcile.throttled")
              .tag("reason", "min_interval")
              .counter();
      assertThat(throttled).isNotNull();
      assertThat(throttled.count()).isPositive();

      client.services().inNamespace(ns).withName("flap").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> client.services().inNamespace(ns).withName("flap").get() == null);
    }
  }
}
