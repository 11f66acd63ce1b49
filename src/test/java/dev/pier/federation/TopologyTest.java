package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopologyTest {
  private static Node node(String... keyValues) {
    Map<String, String> labels = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      labels.put(keyValues[i], keyValues[i + 1]);
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n")
        .withLabels(labels)
        .endMetadata()
        .build();
  }

  private static Node modern(String region, String zone) {
    return node(Topology.REGION, region, Topology.ZONE, zone);
  }

  private static Node beta(String region, String zone) {
    return node(Topology.BETA_REGION, region, Topology.BETA_ZONE, zone);
  }

  @Test
  void modernLabels() {
    Topology t =
        Topology.of(
            List.of(modern("eu", "eu-b"), modern("eu", "eu-a"), modern("eu", "eu-a")), null, null);
    assertThat(t.region()).isEqualTo("eu");
    assertThat(t.zones()).containsExactly("eu-a", "eu-b");
  }

  @Test
  void betaLabels() {
    Topology t = Topology.of(List.of(beta("us", "us-2"), beta("us", "us-1")), "", List.of());
    assertThat(t.region()).isEqualTo("us");
    assertThat(t.zones()).containsExactly("us-1", "us-2");
  }

  @Test
  void mixedNodesFallBackPerNodeAndPerLabel() {
    Topology t =
        Topology.of(
            List.of(
                modern("new", "new-1"),
                beta("old", "old-1"),
                beta("old", "old-2"),
                // the modern region wins over the beta one on the same node; the zone falls back
                node(Topology.REGION, "new", Topology.BETA_REGION, "old", Topology.BETA_ZONE, "z"),
                node(Topology.REGION, "", Topology.BETA_REGION, "old", Topology.ZONE, "")),
            null,
            null);
    assertThat(t.region()).isEqualTo("old");
    assertThat(t.zones()).containsExactly("new-1", "old-1", "old-2", "z");
  }

  @Test
  void theMostCommonRegionWinsAndTiesGoToTheSmallest() {
    assertThat(
            Topology.of(List.of(modern("b", "1"), modern("a", "2"), modern("b", "3")), null, null)
                .region())
        .isEqualTo("b");
    assertThat(Topology.of(List.of(modern("b", "1"), modern("a", "2")), null, null).region())
        .isEqualTo("a");
  }

  @Test
  void nothingLabelledMeansNoRegionAndNoZones() {
    Topology t = Topology.of(List.of(node(), node("other", "x")), null, null);
    assertThat(t.region()).isNull();
    assertThat(t.zones()).isEmpty();
    assertThat(Topology.of(List.of(), null, null)).isEqualTo(new Topology(null, List.of()));
    Node noLabels = new NodeBuilder().withNewMetadata().withName("n").endMetadata().build();
    assertThat(Topology.of(List.of(noLabels), null, null).zones()).isEmpty();
  }

  @Test
  void overridesWin() {
    List<Node> nodes = List.of(modern("eu", "eu-a"));
    Topology t = Topology.of(nodes, "mars", List.of("mars-2", "mars-1"));
    assertThat(t.region()).isEqualTo("mars");
    assertThat(t.zones()).containsExactly("mars-2", "mars-1");
    Topology regionOnly = Topology.of(nodes, "mars", List.of());
    assertThat(regionOnly.region()).isEqualTo("mars");
    assertThat(regionOnly.zones()).containsExactly("eu-a");
    Topology zonesOnly = Topology.of(nodes, " ", List.of("z9"));
    assertThat(zonesOnly.region()).isEqualTo("eu");
    assertThat(zonesOnly.zones()).containsExactly("z9");
    Topology blankZones = Topology.of(nodes, null, Arrays.asList("", null));
    assertThat(blankZones.zones()).containsExactly("eu-a");
  }
}
