package dev.pier.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeEligibilityTest {

  private static NodeBuilder node(boolean ready) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n1")
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus();
  }

  @Test
  void stableIgnoresReadinessAndSchedulability() {
    Node notReady = node(false).editSpec().withUnschedulable(true).endSpec().build();
    assertThat(NodeEligibility.STABLE.test(notReady)).isTrue();
    assertThat(NodeEligibility.LEGACY.test(notReady)).isFalse();
    assertThat(NodeEligibility.LEGACY.test(node(true).build())).isTrue();
  }

  @Test
  void excludeLabelExcludesUnlessItParsesAsFalse() {
    for (String value : new String[] {"", "true", "yes", "1", "anything"}) {
      Node n =
          node(true)
              .editMetadata()
              .withLabels(Map.of(NodeEligibility.EXCLUDE_LABEL, value))
              .endMetadata()
              .build();
      assertThat(NodeEligibility.STABLE.test(n)).as(value).isFalse();
    }
    for (String value : new String[] {"false", "False", "FALSE", "0", "f", "F"}) {
      Node n =
          node(true)
              .editMetadata()
              .withLabels(Map.of(NodeEligibility.EXCLUDE_LABEL, value))
              .endMetadata()
              .build();
      assertThat(NodeEligibility.STABLE.test(n)).as(value).isTrue();
    }
  }

  @Test
  void deletingAndAutoscalerTaintedNodesAreExcluded() {
    assertThat(
            NodeEligibility.STABLE.test(
                node(true)
                    .editMetadata()
                    .withDeletionTimestamp("2026-01-01T00:00:00Z")
                    .endMetadata()
                    .build()))
        .isFalse();
    assertThat(
            NodeEligibility.STABLE.test(
                node(true)
                    .editSpec()
                    .addNewTaint()
                    .withKey(NodeEligibility.AUTOSCALER_TAINT)
                    .withEffect("NoSchedule")
                    .endTaint()
                    .endSpec()
                    .build()))
        .isFalse();
  }

  @Test
  void legacyExcludesMastersAndNodesWithoutConditions() {
    assertThat(
            NodeEligibility.LEGACY.test(
                node(true)
                    .editMetadata()
                    .withLabels(Map.of(NodeEligibility.MASTER_LABEL, ""))
                    .endMetadata()
                    .build()))
        .isFalse();
    assertThat(
            NodeEligibility.LEGACY.test(
                new NodeBuilder().withNewMetadata().withName("x").endMetadata().build()))
        .isFalse();
    assertThat(
            NodeEligibility.STABLE.test(
                new NodeBuilder().withNewMetadata().withName("x").endMetadata().build()))
        .isTrue();
  }
}
