package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.boot.PierOptions;
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
 * resource and the verbs, not a Pier that runs unready and retries forever.
 */
@RealKubeApiServer(
    users =
        @RealKubeApiServer.User(
            token = ForbiddenInformerTest.TOKEN,
            name = ForbiddenInformerTest.USER))
class ForbiddenInformerTest {
  static final String TOKEN = "pier-without-nodes-token";
  static final String USER = "pier-without-nodes";

  @Test
  void withoutListOnNodesPierDoesNotStartAndNamesTheResourceAndVerb(KubeApiServer kube) {
    KubernetesClient admin = kube.client();
    ClusterRole shipped = Manifests.one(Manifests.DIR.resolve("rbac.yaml"), ClusterRole.class);
    List<PolicyRule> rules =
        shipped.getRules().stream().filter(r -> !r.getResources().contains("nodes")).toList();
    admin
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName(USER)
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
                .withName(USER)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", USER)
                .addNewSubject()
                .withKind("User")
                .withApiGroup("rbac.authorization.k8s.io")
                .withName(USER)
                .endSubject()
                .build())
        .create();
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
        .hasMessageContaining("k8s/rbac.yaml");
    org.assertj.core.api.Assertions.assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isLessThan(Duration.ofSeconds(30));
  }
}
