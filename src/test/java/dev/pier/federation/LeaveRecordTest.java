package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeaveRecordTest {
  private static final Instant AT = Instant.parse("2026-12-05T05:00:00Z");

  private static Secret memberSecret() {
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace("pier")
        .withName("member-west")
        .withUid("uid-1")
        .withResourceVersion("7")
        .withFinalizers(FederationKeys.MEMBER_SECRET_FINALIZER)
        .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, "west", "tier", "gold"))
        .withAnnotations(Map.of(FederationKeys.LEAVE_POLICY_ANNOTATION, "delete-copies"))
        .endMetadata()
        .withStringData(Map.of("kubeconfig", "apiVersion: v1\n"))
        .build();
  }

  @Test
  void aRecordCarriesTheMembersCredentialsAndPolicyButNeverJoinsByItself() {
    Secret record = LeaveRecord.of(memberSecret(), "west", AT);

    assertThat(record.getMetadata().getName()).isEqualTo("pier-leaving-west");
    assertThat(record.getMetadata().getNamespace()).isEqualTo("pier");
    assertThat(record.getMetadata().getLabels())
        .containsEntry(FederationKeys.LEAVING_LABEL, "west")
        .containsEntry("tier", "gold")
        .doesNotContainKey(FederationKeys.CLUSTER_SECRET_LABEL);
    // A new object: none of the member Secret's identity or finalizers.
    assertThat(record.getMetadata().getUid()).isNull();
    assertThat(record.getMetadata().getResourceVersion()).isNull();
    assertThat(record.getMetadata().getFinalizers()).isEmpty();
    assertThat(record.getData().get("kubeconfig"))
        .isEqualTo(
            Base64.getEncoder()
                .encodeToString("apiVersion: v1\n".getBytes(StandardCharsets.UTF_8)));
    assertThat(LeaveRecord.member(record)).isEqualTo("west");
    assertThat(LeaveRecord.leaveAt(record)).isEqualTo(AT);
    assertThat(LeavePolicy.of(record.getMetadata().getAnnotations()))
        .isEqualTo(LeavePolicy.DELETE_COPIES);
  }

  @Test
  void readBackItIsTheMemberSecretItWasMadeFrom() {
    Secret back = LeaveRecord.asMemberSecret(LeaveRecord.of(memberSecret(), "west", AT));

    assertThat(back.getMetadata().getLabels())
        .containsEntry(FederationKeys.CLUSTER_SECRET_LABEL, "west")
        .containsEntry("tier", "gold")
        .doesNotContainKey(FederationKeys.LEAVING_LABEL);
  }

  @Test
  void aTimeThatDoesNotParseIsNoTime() {
    Secret record = LeaveRecord.of(memberSecret(), "west", AT);
    record.getMetadata().getAnnotations().put(FederationKeys.LEAVE_AT_ANNOTATION, "soon");
    assertThat(LeaveRecord.leaveAt(record)).isNull();
    assertThat(LeaveRecord.member(new SecretBuilder().withNewMetadata().endMetadata().build()))
        .isNull();
  }
}
