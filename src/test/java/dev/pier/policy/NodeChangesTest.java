package dev.pier.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeChangesTest {
  private static Node node() {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n1")
        .withResourceVersion("1")
        .withLabels(Map.of("team", "a"))
        .endMetadata()
        .withNewSpec()
        .withProviderID("hcloud://1")
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withLastHeartbeatTime("2026-01-01T00:00:00Z")
        .endCondition()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress("10.0.0.1")
        .endAddress()
        .endStatus()
        .build();
  }

  @Test
  void heartbeatsAndUnrelatedLabelsAreNotRelevant() {
    Node heartbeat =
        new NodeBuilder(node())
            .editMetadata()
            .withResourceVersion("2")
            .withLabels(Map.of("team", "b"))
            .endMetadata()
            .editStatus()
            .editFirstCondition()
            .withLastHeartbeatTime("2026-01-01T00:00:10Z")
            .endCondition()
            .endStatus()
            .build();
    assertThat(NodeChanges.relevant(node(), heartbeat)).isFalse();
  }

  @Test
  void eligibilityProviderIdAndAddressChangesAreRelevant() {
    assertThat(
            NodeChanges.relevant(
                node(),
                new NodeBuilder(node())
                    .editMetadata()
                    .addToLabels(NodeEligibility.EXCLUDE_LABEL, "")
                    .endMetadata()
                    .build()))
        .isTrue();
    assertThat(
            NodeChanges.relevant(
                node(),
                new NodeBuilder(node())
                    .editStatus()
                    .editFirstCondition()
                    .withStatus("False")
                    .endCondition()
                    .endStatus()
                    .build()))
        .as("readiness matters to the legacy predicates")
        .isTrue();
    assertThat(
            NodeChanges.relevant(
                node(),
                new NodeBuilder(node()).editSpec().withProviderID("hcloud://2").endSpec().build()))
        .isTrue();
    assertThat(
            NodeChanges.relevant(
                node(),
                new NodeBuilder(node())
                    .editStatus()
                    .editFirstAddress()
                    .withAddress("10.0.0.2")
                    .endAddress()
                    .endStatus()
                    .build()))
        .isTrue();
  }
}
