package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.LbNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopologyTest {
  private static LbNode node(String name, Map<String, String> labels) {
    return new LbNode(name, "", "10.0.0.1", null, labels);
  }

  @Test
  void everyZoneOfTheNodesAndTheRegionFromTheTopologyLabels() {
    ClusterLocation l =
        Topology.locate(
            "c1",
            List.of(
                node("b", Map.of(Topology.REGION, "eu-west", Topology.ZONE, "eu-west-b")),
                node("a", Map.of(Topology.REGION, "eu-west", Topology.ZONE, "eu-west-a")),
                node("c", Map.of(Topology.REGION, "eu-west", Topology.ZONE, "eu-west-a"))),
            "",
            List.of());
    assertThat(l.region()).isEqualTo("eu-west");
    assertThat(l.zones()).containsExactly("eu-west-a", "eu-west-b");
  }

  @Test
  void betaLabelsAreTheFallback() {
    ClusterLocation l =
        Topology.locate(
            "c1",
            List.of(
                node("a", Map.of(Topology.BETA_REGION, "old", Topology.BETA_ZONE, "old-1")),
                node("b", Map.of(Topology.REGION, "new", Topology.ZONE, "new-1"))),
            "",
            List.of());
    assertThat(l.region()).isEqualTo("old");
    assertThat(l.zones()).containsExactly("new-1", "old-1");
  }

  @Test
  void configOverridesTheLabels() {
    ClusterLocation l =
        Topology.locate(
            "c1",
            List.of(node("a", Map.of(Topology.REGION, "r", Topology.ZONE, "z"))),
            "R2",
            List.of("z9"));
    assertThat(l.region()).isEqualTo("r2");
    assertThat(l.zones()).containsExactly("z9");
  }

  @Test
  void noRegionMeansNoZones() {
    ClusterLocation l =
        Topology.locate("c1", List.of(node("a", Map.of(Topology.ZONE, "z"))), "", List.of());
    assertThat(l.region()).isNull();
    assertThat(l.zones()).isEmpty();
  }
}
