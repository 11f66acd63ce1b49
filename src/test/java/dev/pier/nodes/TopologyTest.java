package dev.pier.nodes;

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

  private static Node named(String name, String region, String zone) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(Map.of(Topology.REGION, region, Topology.ZONE, zone))
        .endMetadata()
        .build();
  }

  @Test
  void nodesThatDisagreeGetTheMostCommonRegionLowercased() {
    // The mislabelled node comes first by name, and its region is not the cluster's.
    Topology t =
        Topology.ofNodes(
            List.of(
                named("node-a", "us-east", "us-east-1a"),
                named("node-b", "EU-West", "EU-West-1b"),
                named("node-c", "EU-West", "eu-west-1A")),
            null,
            null);
    assertThat(t.region()).isEqualTo("eu-west");
    assertThat(t.zones()).containsExactly("eu-west-1a", "eu-west-1b", "us-east-1a");
  }

  @Test
  void labelMapsAreReadTheSameWay() {
    Topology t =
        Topology.of(
            List.of(
                Map.of(Topology.REGION, "us-east"),
                Map.of(Topology.BETA_REGION, "EU-West", Topology.BETA_ZONE, "EU-West-1B"),
                Map.of(Topology.REGION, "eu-west")),
            "",
            List.of());
    assertThat(t).isEqualTo(new Topology("eu-west", List.of("eu-west-1b")));
  }

  @Test
  void modernLabels() {
    Topology t =
        Topology.ofNodes(
            List.of(modern("eu", "eu-b"), modern("eu", "eu-a"), modern("eu", "eu-a")), null, null);
    assertThat(t.region()).isEqualTo("eu");
    assertThat(t.zones()).containsExactly("eu-a", "eu-b");
  }

  @Test
  void betaLabels() {
    Topology t = Topology.ofNodes(List.of(beta("us", "us-2"), beta("us", "us-1")), "", List.of());
    assertThat(t.region()).isEqualTo("us");
    assertThat(t.zones()).containsExactly("us-1", "us-2");
  }

  @Test
  void mixedNodesFallBackPerNodeAndPerLabel() {
    Topology t =
        Topology.ofNodes(
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
            Topology.ofNodes(
                    List.of(modern("b", "1"), modern("a", "2"), modern("b", "3")), null, null)
                .region())
        .isEqualTo("b");
    assertThat(Topology.ofNodes(List.of(modern("b", "1"), modern("a", "2")), null, null).region())
        .isEqualTo("a");
    // Counted after lowercasing: "B" and "b" are one region.
    assertThat(
            Topology.ofNodes(
                    List.of(modern("B", "1"), modern("a", "2"), modern("b", "3")), null, null)
                .region())
        .isEqualTo("b");
  }

  @Test
  void nothingLabelledMeansNoRegionAndNoZones() {
    Topology t = Topology.ofNodes(List.of(node(), node("other", "x")), null, null);
    assertThat(t.region()).isNull();
    assertThat(t.zones()).isEmpty();
    assertThat(Topology.ofNodes(List.of(), null, null)).isEqualTo(Topology.UNKNOWN);
    Node noLabels = new NodeBuilder().withNewMetadata().withName("n").endMetadata().build();
    assertThat(Topology.ofNodes(List.of(noLabels), null, null).zones()).isEmpty();
  }

  @Test
  void nonBlankOverridesWinTrimmedAndLowercased() {
    List<Node> nodes = List.of(modern("eu", "eu-a"));
    Topology t = Topology.ofNodes(nodes, " Mars ", List.of("mars-2", " Mars-1"));
    assertThat(t.region()).isEqualTo("mars");
    assertThat(t.zones()).containsExactly("mars-1", "mars-2");
    Topology regionOnly = Topology.ofNodes(nodes, "mars", List.of());
    assertThat(regionOnly.region()).isEqualTo("mars");
    assertThat(regionOnly.zones()).containsExactly("eu-a");
    Topology zonesOnly = Topology.ofNodes(nodes, " ", List.of("z9"));
    assertThat(zonesOnly.region()).isEqualTo("eu");
    assertThat(zonesOnly.zones()).containsExactly("z9");
    Topology blankZones = Topology.ofNodes(nodes, null, Arrays.asList("", null));
    assertThat(blankZones.zones()).containsExactly("eu-a");
  }

  @Test
  void aTopologyIsAlwaysInItsCanonicalForm() {
    assertThat(new Topology(" EU ", List.of("b", "A", "a", " ")))
        .isEqualTo(new Topology("eu", List.of("a", "b")));
    assertThat(new Topology("", null)).isEqualTo(Topology.UNKNOWN);
  }
}
