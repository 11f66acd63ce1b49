package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.Edits;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pier run with the identity of the shipped ServiceAccount, bound by the shipped RBAC, completes
 * the whole LoadBalancer life cycle with leader election on; the audit log then shows that every
 * granted verb was used and none was denied: the RBAC is sufficient and minimal.
 */
@RealKubeApiServer(
    auditLog = true,
    users = {
      @RealKubeApiServer.User(
          token = RbacTest.TOKEN,
          name = RbacTest.USER,
          groups = {"system:serviceaccounts", "system:serviceaccounts:pier"}),
      @RealKubeApiServer.User(token = RbacTest.NO_IDENTITY_TOKEN, name = RbacTest.NO_IDENTITY_USER)
    })
class RbacTest {
  private static KubeApiServer kube;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    kube = server;
  }

  static final String TOKEN = "pier-service-account-token";
  // The user name RBAC matches for the ServiceAccount subject pier/pier.
  static final String USER = "system:serviceaccount:pier:pier";
  private static final String POOL = "127.243.0.0/24";
  // A user with the shipped ClusterRole's rules except get on kube-system.
  static final String NO_IDENTITY_TOKEN = "pier-without-identity-token";
  static final String NO_IDENTITY_USER = "pier-without-identity";

  @Test
  void withoutGetOnKubeSystemPierDoesNotStartAndNamesTheMissingPermission() {
    KubernetesClient admin = kube.client();
    ClusterRole shipped = Manifests.one(Manifests.DIR.resolve("rbac.yaml"), ClusterRole.class);
    List<PolicyRule> rules =
        shipped.getRules().stream().filter(r -> !r.getResources().contains("namespaces")).toList();
    assertThat(rules).hasSize(shipped.getRules().size() - 1);
    admin
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("pier-without-identity")
                .endMetadata()
                .withRules(rules)
                .build())
        .create();
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("pier-without-identity")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "pier-without-identity")
                .addNewSubject()
                .withKind("User")
                .withApiGroup("rbac.authorization.k8s.io")
                .withName(NO_IDENTITY_USER)
                .endSubject()
                .build())
        .create();
    assertThatThrownBy(
            () ->
                InProcessPier.start(
                        kube,
                        Map.of(
                            PierOptions.CLUSTER_KUBECONFIG.envName(),
                            kube.kubeconfigFor(NO_IDENTITY_TOKEN).toString(),
                            PierOptions.LOCAL_POOLS.envName(),
                            "127.244.0.0/24"))
                    .close())
        .hasMessageContaining("cannot read its identity")
        .hasMessageContaining("namespace kube-system")
        .hasMessageContaining("get on namespaces, resourceNames [kube-system]");
  }

  @Test
  void shippedRbacIsEnoughForTheWholeLifecycleAndGrantsNothingUnused() throws IOException {
    Kubectl kubectl = new Kubectl(kube);
    kubectl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
    kubectl.check("apply", "-f", Manifests.DIR.resolve("rbac.yaml").toString());
    kube.createReadyNode("node-rbac", "127.0.0.1", Map.of());
    KubernetesClient admin = kube.client();
    String ns = kube.createNamespace("rbac");
    int nodePort = kube.freeNodePort();

    try (TestBackend backend = TestBackend.start("node-rbac", "127.0.0.1", nodePort);
        InProcessPier pier =
            InProcessPier.start(
                kube,
                Map.of(
                    PierOptions.CLUSTER_KUBECONFIG.envName(),
                    kube.kubeconfigFor(TOKEN).toString(),
                    PierOptions.LOCAL_POOLS.envName(),
                    POOL,
                    PierOptions.LEADER_ELECTION_ENABLED.envName(),
                    "true",
                    PierOptions.LEADER_ELECTION_NAMESPACE.envName(),
                    "pier",
                    PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(),
                    "4s",
                    PierOptions.LEADER_ELECTION_RENEW_DEADLINE.envName(),
                    "3s",
                    PierOptions.LEADER_ELECTION_RETRY_PERIOD.envName(),
                    "500ms"))) {
      admin.services().inNamespace(ns).resource(service(ns, "web", 8080, nodePort)).create();
      await().atMost(InProcessPier.CONVERGE).until(() -> ingressIp(admin, ns, "web") != null);
      String ip = ingressIp(admin, ns, "web");
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> Objects.toString(Traffic.get(ip, 8080), "").contains("hello"));

      // A port change repeats the EnsuringLoadBalancer event: Pier counts it with a patch.
      Edits.retrying(
          admin.services().inNamespace(ns).withName("web"),
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
          .until(() -> Objects.toString(Traffic.get(ip, 9090), "").contains("hello"));

      admin.services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> admin.services().inNamespace(ns).withName("web").get() == null);
      assertThat(Traffic.refused(ip, 9090)).isTrue();
      await()
          .atMost(InProcessPier.CONVERGE)
          .untilAsserted(
              () ->
                  assertThat(RbacAudit.used(kube, USER))
                      .containsAll(RbacAudit.granted(Manifests.DIR.resolve("rbac.yaml"))));
    }

    Set<String> granted = RbacAudit.granted(Manifests.DIR.resolve("rbac.yaml"));
    assertThat(RbacAudit.denied(kube, USER)).as("requests RBAC denied to Pier").isEmpty();
    assertThat(RbacAudit.deprecated(kube, USER)).as("Pier's requests of deprecated APIs").isEmpty();
    assertThat(RbacAudit.used(kube, USER)).as("what Pier did").containsAll(granted);
    assertThat(granted).as("what the shipped RBAC grants").containsAll(RbacAudit.used(kube, USER));
  }

  private static Service service(String ns, String name, int port, int nodePort) {
    return Services.loadBalancer(ns, name, port, nodePort);
  }

  private static String ingressIp(KubernetesClient client, String ns, String name) {
    Service s = client.services().inNamespace(ns).withName(name).get();
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return null;
    }
    var ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null || ingress.isEmpty() ? null : ingress.get(0).getIp();
  }
}
