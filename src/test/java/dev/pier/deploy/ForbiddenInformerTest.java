package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.ExternalDnsWebhookServer;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A permission an informer needs, missing at startup, is a startup error naming the cluster, the
 * resource, the verbs and the manifest that grants them, not a Pier that runs unready and retries
 * forever.
 */
@RealKubeApiServer(
    users = {
      @RealKubeApiServer.User(
          token = ForbiddenInformerTest.TOKEN,
          name = ForbiddenInformerTest.USER),
      @RealKubeApiServer.User(
          token = ForbiddenInformerTest.BASE_ONLY_TOKEN,
          name = ForbiddenInformerTest.BASE_ONLY_USER)
    })
class ForbiddenInformerTest {
  static final String TOKEN = "pier-without-nodes-token";
  static final String USER = "pier-without-nodes";
  static final String BASE_ONLY_TOKEN = "pier-base-rbac-only-token";
  static final String BASE_ONLY_USER = "pier-base-rbac-only";

  @Test
  void withoutListOnNodesPierDoesNotStartAndNamesTheResourceAndVerb(KubeApiServer kube) {
    ClusterRole shipped = Manifests.one(Manifests.DIR.resolve("rbac.yaml"), ClusterRole.class);
    List<PolicyRule> rules =
        shipped.getRules().stream().filter(r -> !r.getResources().contains("nodes")).toList();
    bind(kube, USER, rules);
    long t0 = System.nanoTime();
    assertThatThrownBy(
            () ->
                InProcessPier.start(
                        kube,
                        Map.of(
                            PierOptions.CLUSTER_KUBECONFIG.envName(),
                            kube.kubeconfigFor(TOKEN).toString(),
                            PierOptions.LOCAL_POOLS.envName(),
                            "127.247.0.0/24"))
                    .close())
        .hasMessageContaining("cluster kubernetes: cannot list/watch nodes: forbidden")
        .hasMessageContaining("Pier's RBAC must allow list and watch on nodes")
        .hasMessageContaining("(see k8s/rbac.yaml)");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
  }

  /** DNS publishing needs the DNS add-on: the base alone fails the start, naming the add-on. */
  @Test
  void withDnsOnAndOnlyTheBaseRbacPierDoesNotStartAndNamesEndpointSlicesAndTheDnsAddOn(
      KubeApiServer kube) {
    bind(
        kube,
        BASE_ONLY_USER,
        Manifests.one(Manifests.DIR.resolve("rbac.yaml"), ClusterRole.class).getRules());
    long t0 = System.nanoTime();
    try (ExternalDnsWebhookServer dns =
        ExternalDnsWebhookServer.start(List.of("forbidden.example"), List.of())) {
      assertThatThrownBy(
              () ->
                  InProcessPier.start(
                          kube,
                          Map.of(
                              PierOptions.CLUSTER_KUBECONFIG.envName(),
                              kube.kubeconfigFor(BASE_ONLY_TOKEN).toString(),
                              PierOptions.LOCAL_POOLS.envName(),
                              "127.247.1.0/24",
                              PierOptions.DNS_ENABLED.envName(),
                              "true",
                              PierOptions.DNS_PROVIDER.envName(),
                              "externaldns",
                              PierOptions.DNS_EXTERNAL_DNS_URL.envName(),
                              dns.url(),
                              PierOptions.DNS_ZONE_NAME.envName(),
                              "forbidden.example"))
                      .close())
          .hasMessageContaining("cluster kubernetes: cannot list/watch endpointslices: forbidden")
          .hasMessageContaining(
              "Pier's RBAC must allow list and watch on endpointslices in API group"
                  + " discovery.k8s.io")
          .hasMessageContaining("(see k8s/rbac-dns.yaml)");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
  }

  /** A ClusterRole named {@code user} with {@code rules}, bound to the token-file user. */
  private static void bind(KubeApiServer kube, String user, List<PolicyRule> rules) {
    KubernetesClient admin = kube.client();
    admin
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName(user)
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
                .withName(user)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", user)
                .addNewSubject()
                .withKind("User")
                .withApiGroup("rbac.authorization.k8s.io")
                .withName(user)
                .endSubject()
                .build())
        .create();
  }
}
