package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FederatedTest {
  private static Service service(
      String namespace, Map<String, String> annotations, List<String> finalizers) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName("web")
        .withAnnotations(annotations)
        .withFinalizers(finalizers)
        .endMetadata()
        .build();
  }

  private static Service annotated(String key, String value) {
    return service("ns", Map.of(key, value), List.of());
  }

  @Test
  void theAnnotationTrueInAnyCaseFederates() {
    assertThat(Federated.isFederated(annotated("pier.dev/federated", "true"), Set.of())).isTrue();
    assertThat(Federated.isFederated(annotated("pier.dev/federated", "TRUE"), Set.of())).isTrue();
    assertThat(Federated.isFederated(annotated("pier.dev/federated", "True "), Set.of())).isTrue();
    assertThat(Federated.isFederated(annotated("pier.dev/federated", "false"), Set.of())).isFalse();
    assertThat(Federated.isFederated(annotated("pier.dev/federated", "yes"), Set.of())).isFalse();
    assertThat(Federated.isFederated(annotated("other", "true"), Set.of())).isFalse();
  }

  @Test
  void aFederatedNamespaceFederatesEveryServiceInIt() {
    Service plain = service("shop", null, null);
    assertThat(Federated.isFederated(plain, Set.of("shop", "web"))).isTrue();
    assertThat(Federated.isFederated(plain, Set.of("web"))).isFalse();
    assertThat(Federated.isFederated(plain, Set.of())).isFalse();
    assertThat(Federated.isFederated(plain, null)).isFalse();
    Service optedOut = service("shop", Map.of("pier.dev/federated", "false"), null);
    assertThat(Federated.isFederated(optedOut, Set.of("shop"))).isTrue();
  }

  @Test
  void orphanByAnnotationOrByTheOrphanFinalizer() {
    assertThat(Federated.orphanOnDelete(annotated("pier.dev/delete-policy", "orphan"))).isTrue();
    assertThat(Federated.orphanOnDelete(annotated("pier.dev/delete-policy", "Orphan"))).isTrue();
    assertThat(Federated.orphanOnDelete(annotated("pier.dev/delete-policy", "delete"))).isFalse();
    assertThat(Federated.orphanOnDelete(service("ns", null, List.of("orphan")))).isTrue();
    assertThat(
            Federated.orphanOnDelete(
                service(
                    "ns",
                    null,
                    List.of("federation.kubernetes.io/delete-from-underlying-clusters"))))
        .isFalse();
    assertThat(Federated.orphanOnDelete(service("ns", null, null))).isFalse();
  }

  @Test
  void hasFinalizerLooksForFederationsOwn() {
    assertThat(
            Federated.hasFinalizer(
                service(
                    "ns",
                    null,
                    List.of("orphan", "federation.kubernetes.io/delete-from-underlying-clusters"))))
        .isTrue();
    assertThat(Federated.hasFinalizer(service("ns", null, List.of("orphan")))).isFalse();
    assertThat(Federated.hasFinalizer(service("ns", null, null))).isFalse();
  }

  @Test
  void keysAreTheDocumentedStrings() {
    assertThat(FederationKeys.FINALIZER)
        .isEqualTo("federation.kubernetes.io/delete-from-underlying-clusters");
    assertThat(FederationKeys.INGRESSES_ANNOTATION)
        .isEqualTo("federation.kubernetes.io/service-ingresses");
    assertThat(FederationKeys.FEDERATION_LABEL).isEqualTo("pier.dev/federation");
  }

  @Test
  void withOptInOnlyListedOrLabelledNamespacesMayFederate() {
    Set<String> labelled = Set.of("team-a");
    assertThat(Federated.allowedFrom("team-a", true, Set.of(), labelled::contains)).isTrue();
    assertThat(Federated.allowedFrom("shop", true, Set.of("shop"), labelled::contains)).isTrue();
    assertThat(Federated.allowedFrom("tenant", true, Set.of("shop"), labelled::contains)).isFalse();
    assertThat(Federated.allowedFrom("tenant", false, Set.of(), labelled::contains)).isTrue();
  }
}
