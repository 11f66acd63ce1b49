package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.nodes.Topology;
import dev.pier.testkit.EndpointSlices;
import dev.pier.testkit.ExternalDnsWebhookServer;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * DNS publishing run with the identity of the shipped ServiceAccount, bound by the base {@code
 * rbac.yaml} plus the DNS add-on {@code rbac-dns.yaml} and nothing else: names appear when the
 * Service's endpoints turn ready and go with the Service. The audit log then shows that nothing was
 * denied, that Pier used nothing beyond the two files and every permission they grant.
 */
@RealKubeApiServer(
    auditLog = true,
    users =
        @RealKubeApiServer.User(
            token = DnsRbacTest.TOKEN,
            name = DnsRbacTest.USER,
            groups = {"system:serviceaccounts", "system:serviceaccounts:pier"}))
class DnsRbacTest {
  static final String TOKEN = "pier-dns-service-account-token";
  static final String USER = "system:serviceaccount:pier:pier";
  private static final String ZONE = "rbac.example";
  private static final Path BASE = Manifests.DIR.resolve("rbac.yaml");
  private static final Path DNS = Manifests.DIR.resolve("rbac-dns.yaml");

  @Test
  void baseAndDnsAddOnAreEnoughForDnsPublishingAndGrantNothingUnused(KubeApiServer kube)
      throws IOException {
    Kubectl kubectl = new Kubectl(kube);
    kubectl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
    kubectl.check("apply", "-f", BASE.toString(), "-f", DNS.toString());
    kube.createReadyNode(
        "node-dns-rbac", "127.0.0.1", Map.of(Topology.REGION, "r1", Topology.ZONE, "z1"));
    KubernetesClient admin = kube.client();
    String ns = kube.createNamespace("dnsrbac");
    String global = "web." + ns + ".pier.svc." + ZONE;
    Set<String> granted = RbacAudit.granted(BASE, DNS);

    try (ExternalDnsWebhookServer dns = ExternalDnsWebhookServer.start(List.of(ZONE), List.of());
        InProcessPier pier = InProcessPier.start(kube, env(kube, dns))) {
      admin
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "web", 8080, kube.freeNodePort()))
          .create();
      String ip = Services.awaitIngress(admin, ns, "web");
      // Ready endpoints, as the endpoints controller would write them: the global name appears.
      EndpointSlices.write(admin, ns, "web", true);
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(() -> assertThat(dns.targets(global, "A")).containsExactly(ip));

      // A port change repeats the EnsuringLoadBalancer Event: Pier counts it with a patch.
      Services.edit(
          admin,
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editSpec()
                  .editFirstPort()
                  .withPort(9090)
                  .endPort()
                  .endSpec()
                  .build());
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Services.eventCount(admin, ns, "web", "EnsuringLoadBalancer") >= 2);

      admin.services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> admin.services().inNamespace(ns).withName("web").get() == null);
      await().atMost(InProcessPier.CONVERGE).until(() -> dns.targets(global, "A") == null);
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(() -> assertThat(RbacAudit.used(kube, USER)).containsAll(granted));
    }

    assertThat(RbacAudit.denied(kube, USER)).as("requests RBAC denied to Pier").isEmpty();
    assertThat(RbacAudit.deprecated(kube, USER)).as("Pier's requests of deprecated APIs").isEmpty();
    Set<String> used = RbacAudit.used(kube, USER);
    assertThat(granted).as("what rbac.yaml and rbac-dns.yaml grant").containsAll(used);
    assertThat(used).as("what Pier did").containsAll(granted);
  }

  private static Map<String, String> env(KubeApiServer kube, ExternalDnsWebhookServer dns) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), kube.kubeconfigFor(TOKEN).toString());
    env.put(PierOptions.LOCAL_POOLS.envName(), "127.243.1.0/24");
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "true");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), "pier");
    env.put(PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(), "4s");
    env.put(PierOptions.LEADER_ELECTION_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.LEADER_ELECTION_RETRY_PERIOD.envName(), "500ms");
    env.put(PierOptions.DNS_ENABLED.envName(), "true");
    env.put(PierOptions.DNS_PROVIDER.envName(), "externaldns");
    env.put(PierOptions.DNS_EXTERNAL_DNS_URL.envName(), dns.url());
    env.put(PierOptions.DNS_ZONE_NAME.envName(), ZONE);
    return env;
  }
}
