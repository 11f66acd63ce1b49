package dev.pier.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The Prometheus text of a running Pier that has reconciled a load balancer. */
@RealKubeApiServer
class MetricsExpositionTest {
  private static final String POOL = "127.246.0.0/29";

  @Test
  void everyPierFamilyHasHelpTextAndHistogramsHaveFewBuckets(KubeApiServer kube) throws Exception {
    kube.createReadyNode("node-exp", "127.0.0.1", Map.of());
    String ns = kube.createNamespace("exp");
    int nodePort = kube.freeNodePort();
    try (TestBackend backend = TestBackend.start("node-exp", "127.0.0.1", nodePort);
        InProcessPier pier =
            InProcessPier.start(kube, Map.of(PierOptions.LOCAL_POOLS.envName(), POOL))) {
      kube.client()
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "web", 8087, nodePort))
          .create();
      Services.awaitIngress(kube.client(), ns, "web");
      String text = scrape(pier.pier().adminPort());

      Map<String, String> help = help(text);
      Set<String> families = pierFamilies(text);
      assertThat(families).contains("pier_reconciles_total", "pier_reconcile_duration_seconds");
      assertThat(text).contains("\npier_service_cache_relists_total{cluster=\"kubernetes\"} 0.0");
      assertThat(families)
          .as("pier_* families without a # HELP text")
          .allSatisfy(f -> assertThat(help.getOrDefault(f, "")).as(f).isNotBlank());
      Map<String, Integer> buckets = bucketsPerSeries(text);
      assertThat(buckets).containsKey("pier_reconcile_duration_seconds");
      assertThat(buckets)
          .as("buckets per series of each histogram")
          .allSatisfy((family, n) -> assertThat(n).as(family).isLessThanOrEqualTo(16));
      assertThat(text).contains("\nprocess_cpu_seconds_total ").doesNotContain("_ns_total");
    }
  }

  static String scrape(int port) throws Exception {
    // HTTP/1.1 as Prometheus scrapes, and a deadline on the whole exchange: the request timeout
    // alone once let a scrape wait ten minutes.
    HttpResponse<String> response =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .get(15, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  /** Family name to HELP text. */
  static Map<String, String> help(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# HELP ")) {
        String[] parts = line.substring(7).split(" ", 2);
        out.put(parts[0], parts.length > 1 ? parts[1] : "");
      }
    }
    return out;
  }

  /** Every family named pier_* that has a sample or a TYPE line. */
  static Set<String> pierFamilies(String text) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE pier_")) {
        out.add(line.split(" ")[2]);
      }
    }
    return out;
  }

  /** The most buckets one series of each histogram family has, for pier_* and upstream ones. */
  static Map<String, Integer> bucketsPerSeries(String text) {
    Map<String, Integer> perSeries = new TreeMap<>();
    for (String line : text.split("\n")) {
      int at = line.indexOf("_bucket{");
      if (line.startsWith("#") || at < 0) {
        continue;
      }
      String family = line.substring(0, at);
      if (!family.startsWith("pier_") && !family.startsWith("service_controller_")) {
        continue;
      }
      String labels = line.substring(at, line.indexOf('}')).replaceAll(",?le=\"[^\"]*\"", "");
      perSeries.merge(family + labels, 1, Integer::sum);
    }
    Map<String, Integer> out = new TreeMap<>();
    perSeries.forEach(
        (series, n) -> out.merge(series.substring(0, series.indexOf("_bucket{")), n, Math::max));
    return out;
  }

  static List<String> lines(String text, String prefix) {
    return text.lines().filter(l -> l.startsWith(prefix)).toList();
  }
}
