package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.FederationKeys;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeavePolicyTest {
  private static Map<String, String> policy(String value) {
    return Map.of(FederationKeys.LEAVE_POLICY_ANNOTATION, value);
  }

  @Test
  void copiesAreOrphanedUnlessTheSecretChoseDeletion() {
    assertThat(LeavePolicy.of(null)).isEqualTo(LeavePolicy.ORPHAN);
    assertThat(LeavePolicy.of(Map.of())).isEqualTo(LeavePolicy.ORPHAN);
    assertThat(LeavePolicy.of(policy("orphan"))).isEqualTo(LeavePolicy.ORPHAN);
    assertThat(LeavePolicy.of(policy("delete-copies"))).isEqualTo(LeavePolicy.DELETE_COPIES);
    // A typo never deletes.
    assertThat(LeavePolicy.of(policy("delete"))).isEqualTo(LeavePolicy.ORPHAN);
  }

  @Test
  void aValueItDoesNotKnowIsNamedWithWhatIsAllowed() {
    assertThat(LeavePolicy.problem(policy("delete-copies"))).isNull();
    assertThat(LeavePolicy.problem(Map.of())).isNull();
    assertThat(LeavePolicy.problem(policy("delete")))
        .isEqualTo(
            "annotation pier.dev/leave-policy: invalid value 'delete': must be orphan or"
                + " delete-copies (leaving orphans the copies until it is fixed)");
  }
}
