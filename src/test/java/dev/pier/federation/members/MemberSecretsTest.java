package dev.pier.federation.members;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemberSecretsTest {
  private static Secret secret(
      Map<String, String> labels, Map<String, String> annotations, String kubeconfig) {
    SecretBuilder b =
        new SecretBuilder()
            .withNewMetadata()
            .withNamespace("pier")
            .withName("member")
            .withLabels(labels)
            .withAnnotations(annotations)
            .endMetadata();
    if (kubeconfig != null) {
      b.withData(
          Map.of(
              "kubeconfig",
              Base64.getEncoder().encodeToString(kubeconfig.getBytes(StandardCharsets.UTF_8))));
    }
    return b.build();
  }

  @Test
  void aSecretDescribesAMemberWithItsKubeconfigTopologyAndPlacementLabels() {
    ClusterSpec spec =
        MemberSecrets.spec(
            secret(
                Map.of("pier.dev/cluster", "west", "tier", "silver"),
                Map.of("pier.dev/region", "us", "pier.dev/zones", "us-a, us-b"),
                "apiVersion: v1\nkind: Config\n"));
    assertThat(spec.name()).isEqualTo("west");
    assertThat(spec.kubeconfigContent()).isEqualTo("apiVersion: v1\nkind: Config\n");
    assertThat(spec.region()).isEqualTo("us");
    assertThat(spec.zones()).isEqualTo(List.of("us-a", "us-b"));
    assertThat(spec.labels()).isEqualTo(Map.of("tier", "silver"));
    assertThat(spec.federation()).isEqualTo(FederationRole.MEMBER);
    assertThat(spec.loadBalancers()).isFalse();
  }

  @Test
  void aBadSecretIsRefusedNamingTheFieldAndValue() {
    assertThatThrownBy(
            () -> MemberSecrets.spec(secret(Map.of("pier.dev/cluster", "West_1"), Map.of(), "x")))
        .hasMessage(
            "label pier.dev/cluster: invalid value 'West_1': must be a DNS label (lower case"
                + " letters, digits, '-')");
    assertThatThrownBy(
            () -> MemberSecrets.spec(secret(Map.of("pier.dev/cluster", "west"), Map.of(), null)))
        .hasMessage("data.kubeconfig: missing; it must hold a self-contained kubeconfig");
  }
}
