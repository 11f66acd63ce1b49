package dev.pier.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.nodes.Topology;
import dev.pier.testkit.EndpointSlices;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PowerDnsServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** pier_dns_names_owned follows the names Pier writes into a real PowerDNS zone. */
@RealKubeApiServer
class DnsMetricsTest {
  private static final String ZONE = "metrics.test";

  @Test
  void ownedNamesCountTheServicesNamesInTheZone(KubeApiServer kube) throws Exception {
    kube.createReadyNode(
        "node-dns", "127.0.0.1", Map.of(Topology.REGION, "region-1", Topology.ZONE, "zone-a"));
    KubernetesClient client = kube.client();
    String ns = kube.createNamespace("dnsmet");
    try (PowerDnsServer pdns = PowerDnsServer.create()) {
      Map<String, String> env = new HashMap<>();
      env.put(PierOptions.LOCAL_POOLS.envName(), "127.246.2.0/29");
      env.putAll(pdns.pierEnv(ZONE, "pier-metrics"));
      try (InProcessPier pier = InProcessPier.start(kube, env)) {
        int port = pier.pier().adminPort();
        assertThat(MetricsExpositionTest.scrape(port)).contains("\npier_dns_names_owned 0.0");
        client
            .services()
            .inNamespace(ns)
            .resource(Services.loadBalancer(ns, "web", 80, kube.freeNodePort()))
            .create();
        Services.awaitIngress(client, ns, "web");
        EndpointSlices.write(client, ns, "web", true);
        await()
            .atMost(InProcessPier.CONVERGE)
            .untilAsserted(
                () -> {
                  Set<String> names = namesOf(pdns, ns);
                  assertThat(names).isNotEmpty();
                  assertThat(MetricsExpositionTest.scrape(port))
                      .contains("\npier_dns_names_owned " + names.size() + ".0\n");
                });
        client.services().inNamespace(ns).withName("web").delete();
        await()
            .atMost(InProcessPier.CONVERGE)
            .untilAsserted(
                () ->
                    assertThat(MetricsExpositionTest.scrape(port))
                        .contains("\npier_dns_names_owned 0.0\n"));
        assertThat(namesOf(pdns, ns)).isEmpty();
      }
    }
  }

  /** Names in the zone that belong to a Service of {@code ns}. */
  private static Set<String> namesOf(PowerDnsServer pdns, String ns) {
    return new JsonObject(pdns.zoneJson(ZONE + "."))
        .getJsonArray("rrsets").stream()
            .map(o -> ((JsonObject) o).getString("name"))
            .filter(n -> n.contains("." + ns + ".pier.svc."))
            .collect(Collectors.toSet());
  }
}
