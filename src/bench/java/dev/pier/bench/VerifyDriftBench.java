package dev.pier.bench;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Counts false drift repairs: N load-balanced Services on the local provider (which answers {@code
 * ipMode: Proxy}, dropped by the 1.20 API server), nothing changed, verification every {@code
 * --period} for {@code --minutes}; every {@code RepairedLoadBalancer} Event is a false repair.
 *
 * <pre>scripts/bench/run.sh verify-drift --services 1000 --minutes 30 --period 60s</pre>
 */
public final class VerifyDriftBench {
  private VerifyDriftBench() {}

  public static void main(String[] args) throws Exception {
    int services = 1000;
    int minutes = 30;
    String period = "60s";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--services" -> services = Integer.parseInt(args[i + 1]);
        case "--minutes" -> minutes = Integer.parseInt(args[i + 1]);
        case "--period" -> period = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    try (KubeApiServer kube = KubeApiServer.builder().start()) {
      kube.createReadyNode("bench-node", "127.0.0.1", Map.of());
      String ns = kube.createNamespace("drift");
      KubernetesClient client = kube.client();
      try (InProcessPier pier =
          InProcessPier.start(
              kube,
              Map.of(
                  PierOptions.RECONCILE_VERIFY_PERIOD.envName(),
                  period,
                  // Health checks of 1,000 load balancers at the tests' 300 ms would be the load.
                  PierOptions.LOCAL_HEALTH_CHECK_INTERVAL.envName(),
                  "10s"))) {
        IntStream.range(0, services)
            .parallel()
            .forEach(i -> client.services().inNamespace(ns).resource(service(ns, i)).create());
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        long served = 0;
        while (System.nanoTime() < deadline) {
          served =
              client.services().inNamespace(ns).list().getItems().stream()
                  .filter(VerifyDriftBench::hasIngress)
                  .count();
          if (served == services) {
            break;
          }
          Thread.sleep(1000);
        }
        BenchDriver.log("%d of %d Services served; verifying every %s", served, services, period);
        double start = pier.providerCalls("verify");
        Thread.sleep(Duration.ofMinutes(minutes).toMillis());
        double verified = pier.providerCalls("verify") - start;
        long repairs =
            client.v1().events().inNamespace(ns).list().getItems().stream()
                .filter(e -> "RepairedLoadBalancer".equals(e.getReason()))
                .mapToLong(VerifyDriftBench::count)
                .sum();
        BenchDriver.log(
            "%d minutes, %d Services: %.0f verifications, %d RepairedLoadBalancer Events",
            minutes, services, verified, repairs);
        System.exit(repairs == 0 ? 0 : 1);
      }
    }
  }

  private static long count(Event e) {
    return e.getCount() == null ? 1 : e.getCount();
  }

  private static boolean hasIngress(Service s) {
    return s.getStatus() != null
        && s.getStatus().getLoadBalancer() != null
        && s.getStatus().getLoadBalancer().getIngress() != null
        && !s.getStatus().getLoadBalancer().getIngress().isEmpty();
  }

  private static Service service(String ns, int i) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName("svc-" + i)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }
}
