package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.events.EventReasons;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * A local load balancer's limit, end to end: Pier as it is started, a real API server, real
 * traffic. The Warning reaches the Service and the counts reach Pier's metrics.
 */
@RealKubeApiServer
class LocalProviderLimitsEventTest {

  private static final String POOL = "127.249.1.0/24";

  @Test
  void aConnectionOverTheLimitIsAWarningEventOnTheServiceAndCounted(KubeApiServer kube)
      throws Exception {
    KubernetesClient client = kube.client();
    kube.createReadyNode("node-limits", "127.0.0.1", Map.of());
    String ns = kube.createNamespace("limits");
    int nodePort = kube.freeNodePort();
    try (TestBackend backend = TestBackend.start("node-limits", "127.0.0.1", nodePort);
        InProcessPier pier =
            InProcessPier.start(
                kube,
                Map.of(
                    PierOptions.LOCAL_POOLS.envName(),
                    POOL,
                    PierOptions.LOCAL_MAX_CONNECTIONS_PER_LOAD_BALANCER.envName(),
                    "1"))) {
      client
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "web", 8080, nodePort))
          .create();
      String ip = Services.awaitIngress(client, ns, "web");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ip, 8080), "").contains("node-limits"));
      MeterRegistry registry = pier.pier().metrics().registry();

      try (Socket held = connect(ip, 8080)) {
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> gauge(registry, ns, "pier.local.connections") == 1.0);
        try (Socket refused = connect(ip, 8080)) {
          assertThat(closedByPeer(refused)).isTrue();
        }
        // The connection within the limit still works.
        held.getOutputStream()
            .write(
                ("GET / HTTP/1.0\r\nHost: " + ip + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(held.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
            .contains("node-limits");
      }

      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  Services.events(client, ns, "web").stream()
                      .anyMatch(e -> e.getReason().equals(EventReasons.LIMIT_REACHED)));
      List<Event> warnings =
          Services.events(client, ns, "web").stream()
              .filter(e -> e.getReason().equals(EventReasons.LIMIT_REACHED))
              .toList();
      assertThat(warnings)
          .singleElement()
          .satisfies(e -> assertThat(e.getType()).isEqualTo("Warning"));
      assertThat(warnings.get(0).getMessage())
          .contains("refused a connection from 127.0.0.1 on " + ip + ":8080/TCP")
          .contains("local.maxConnectionsPerLoadBalancer");
      Counter refusals =
          registry
              .find("pier.local.connections.refused")
              .tags("namespace", ns, "service", "web", "limit", "load_balancer")
              .counter();
      assertThat(refusals).isNotNull();
      assertThat(refusals.count()).isEqualTo(1.0);
    }
  }

  private static Socket connect(String ip, int port) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress(ip, port), 2000);
    s.setSoTimeout(5000);
    return s;
  }

  /** Whether the peer closed the connection without a byte: end of stream or a reset. */
  private static boolean closedByPeer(Socket s) {
    try {
      InputStream in = s.getInputStream();
      return in.read() == -1;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private static double gauge(MeterRegistry registry, String ns, String name) {
    Gauge g = registry.find(name).tags("namespace", ns, "service", "web").gauge();
    return g == null ? -1 : g.value();
  }
}
