package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FederationScopeTest {
  private static final List<MemberInfo> MEMBERS =
      List.of(new MemberInfo("east", Map.of()), new MemberInfo("west", Map.of()));

  private static Service federated(String ns, Map<String, String> annotations, String deleted) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName("web")
        .addToAnnotations(FederationKeys.FEDERATED_ANNOTATION, "true")
        .addToAnnotations(annotations)
        .withDeletionTimestamp(deleted)
        .endMetadata()
        .build();
  }

  @Test
  void withOptInOnlyListedOrLabelledNamespacesAreAllowedTheRestRefused() {
    FederationOptions options =
        new FederationOptions().setName("fed").setNamespaceOptIn(true).setNamespaces(List.of("a"));
    FederationScope scope = new FederationScope(options, ns -> ns.equals("b"));
    assertThat(scope.refused(federated("a", Map.of(), null))).isFalse();
    assertThat(scope.refused(federated("b", Map.of(), null))).isFalse();
    assertThat(scope.refused(federated("c", Map.of(), null))).isTrue();
    assertThat(scope.refused(federated("c", Map.of(), "2026-03-01T12:00:00Z")))
        .as("a deletion is never refused: its copies go")
        .isFalse();
    assertThat(scope.refused(null)).isFalse();
  }

  @Test
  void aCopyIsWantedWherePlacedUnlessTheServiceIsDeletedOrTheMemberLeaves() {
    FederationScope scope = new FederationScope(new FederationOptions().setName("fed"), ns -> true);
    Service east = federated("a", Map.of(FederationKeys.CLUSTERS_ANNOTATION, "east"), null);
    assertThat(scope.wanted(east, "east", false, MEMBERS)).isTrue();
    assertThat(scope.wanted(east, "west", false, MEMBERS)).isFalse();
    assertThat(scope.wanted(east, "east", true, MEMBERS)).isFalse();
    assertThat(
            scope.wanted(federated("a", Map.of(), "2026-03-01T12:00:00Z"), "east", false, MEMBERS))
        .isFalse();
    assertThat(scope.wanted(null, "east", false, MEMBERS)).isFalse();
  }
}
