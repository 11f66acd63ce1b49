package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code pier join} applies in a member, with and without Pier's load balancers there. */
class PackagedManifestsTest {

  private static List<String> names(List<HasMetadata> objects) {
    return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
  }

  @Test
  void aMemberThatRunsPiersLoadBalancersGetsTheBaseRoleBoundToTheFederationIdentity() {
    List<HasMetadata> objects = PackagedManifests.member(true);
    ClusterRoleBinding binding =
        objects.stream()
            .filter(o -> o instanceof ClusterRoleBinding)
            .map(ClusterRoleBinding.class::cast)
            .filter(b -> b.getMetadata().getName().equals("pier-federation-load-balancers"))
            .findFirst()
            .orElseThrow();
    assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
    assertThat(binding.getRoleRef().getName()).isEqualTo("pier");
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getNamespace() + "/" + s.getName()).isEqualTo("pier/pier-federation");
            });
    // The ClusterRole it binds is applied with it.
    assertThat(names(objects)).contains("ClusterRole/pier");
  }

  @Test
  void aMemberWithoutThemGetsNeitherTheBaseRoleNorTheBinding() {
    assertThat(names(PackagedManifests.member(false)))
        .doesNotContain("ClusterRole/pier", "ClusterRoleBinding/pier-federation-load-balancers")
        .contains("ClusterRole/pier-federation-member");
  }

  @Test
  void aMemberScopedToNamespacesGetsARoleInEachAndNoClusterWideMemberRole() {
    List<HasMetadata> objects = PackagedManifests.memberInNamespaces(List.of("shop", "api"), false);
    List<String> names = names(objects);
    assertThat(names)
        .contains(
            "Namespace/pier",
            "ServiceAccount/pier-federation",
            "ClusterRole/pier-federation-member-probe",
            "Namespace/shop",
            "Namespace/api")
        .doesNotContain("ClusterRole/pier-federation-member", "ClusterRole/pier");
    assertThat(
            objects.stream()
                .filter(o -> o.getKind().equals("Role") || o.getKind().equals("RoleBinding"))
                .map(o -> o.getKind() + "/" + o.getMetadata().getNamespace()))
        .containsExactlyInAnyOrder("Role/shop", "RoleBinding/shop", "Role/api", "RoleBinding/api");
    // The packaged file's example namespace is not applied.
    assertThat(objects).noneMatch(o -> "default".equals(o.getMetadata().getNamespace()));
    assertThat(names(PackagedManifests.memberInNamespaces(List.of("shop"), true)))
        .contains("ClusterRole/pier", "ClusterRoleBinding/pier-federation-load-balancers");
  }
}
