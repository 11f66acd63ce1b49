package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.Ipv6Loopback;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * A dual-stack Service end to end: Pier as it is started, a real API server with a service range of
 * each family, an IPv4 and an IPv6 pool, real traffic to both addresses.
 */
@RealKubeApiServer(flags = "--service-cluster-ip-range=10.96.0.0/16,fd00:10:96::/112")
class LocalProviderDualStackEndToEndTest {

  private static final String POOLS = "127.253.0.0/24," + Ipv6Loopback.TEST_POOL;

  @Test
  void aPreferDualStackServiceGetsAnIngressPerFamily(KubeApiServer kube) throws Exception {
    Ipv6Loopback.ensure(Ipv6Loopback.TEST_POOL);
    KubernetesClient client = kube.client();
    kube.createReadyNode("node-dual", "127.0.0.1", Map.of());
    String ns = kube.createNamespace("dualstack");
    int nodePort = kube.freeNodePort();
    try (TestBackend backend = TestBackend.start("node-dual", "127.0.0.1", nodePort);
        InProcessPier pier =
            InProcessPier.start(kube, Map.of(PierOptions.LOCAL_POOLS.envName(), POOLS))) {
      Service s = Services.loadBalancer(ns, "web", 8080, nodePort);
      s.getSpec().setIpFamilyPolicy("PreferDualStack");
      s.getSpec().setIpFamilies(List.of("IPv6", "IPv4"));
      client.services().inNamespace(ns).resource(s).create();

      await().atMost(InProcessPier.CONVERGE).until(() -> ingressIps(client, ns, "web").size() == 2);
      List<String> ips = ingressIps(client, ns, "web");
      assertThat(ips.get(0)).startsWith("fd00:7069:6572:");
      assertThat(ips.get(1)).startsWith("127.253.0.");
      for (String ip : ips) {
        await()
            .atMost(InProcessPier.CONVERGE)
            .until(() -> Objects.toString(Traffic.get(ip, 8080), "").contains("node-dual"));
      }
    }
  }

  private static List<String> ingressIps(KubernetesClient client, String ns, String name) {
    Service s = client.services().inNamespace(ns).withName(name).get();
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return List.of();
    }
    List<LoadBalancerIngress> ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null ? List.of() : ingress.stream().map(LoadBalancerIngress::getIp).toList();
  }
}
