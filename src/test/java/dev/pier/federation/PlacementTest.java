package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlacementTest {
  private static final List<MemberInfo> MEMBERS =
      List.of(
          new MemberInfo("c3", Map.of("region", "us", "tier", "gold")),
          new MemberInfo("c1", Map.of("region", "eu", "tier", "gold")),
          new MemberInfo("c2", Map.of("region", "eu")),
          new MemberInfo("c4", null));

  private static Service host(String clusters, String selector) {
    Map<String, String> annotations = new LinkedHashMap<>();
    if (clusters != null) {
      annotations.put(FederationKeys.CLUSTERS_ANNOTATION, clusters);
    }
    if (selector != null) {
      annotations.put(FederationKeys.CLUSTER_SELECTOR_ANNOTATION, selector);
    }
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("web")
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  @Test
  void everyMemberByDefaultSortedByName() {
    Placement.Result r = Placement.of(host(null, null), MEMBERS);
    assertThat(r.clusters()).containsExactly("c1", "c2", "c3", "c4");
    assertThat(r.problem()).isNull();
  }

  @Test
  void noAnnotationsAtAll() {
    Service bare = new ServiceBuilder().withNewMetadata().withName("web").endMetadata().build();
    assertThat(Placement.of(bare, MEMBERS).clusters()).containsExactly("c1", "c2", "c3", "c4");
  }

  @Test
  void blankAnnotationsCountAsAbsent() {
    assertThat(Placement.of(host(" ", ""), MEMBERS).clusters())
        .containsExactly("c1", "c2", "c3", "c4");
  }

  @Test
  void noMembersNoClusters() {
    Placement.Result r = Placement.of(host(null, null), List.of());
    assertThat(r.clusters()).isEmpty();
    assertThat(r.problem()).isNull();
  }

  @Test
  void namedMembersOnlyAndUnknownNamesSelectNothing() {
    assertThat(Placement.of(host("c3, c1", null), MEMBERS).clusters()).containsExactly("c1", "c3");
    assertThat(Placement.of(host("c2,nope", null), MEMBERS).clusters()).containsExactly("c2");
    Placement.Result unknown = Placement.of(host("nope", null), MEMBERS);
    assertThat(unknown.clusters()).isEmpty();
    assertThat(unknown.problem()).isNull();
  }

  @Test
  void selectorPicksByMemberLabels() {
    assertThat(Placement.of(host(null, "region=eu"), MEMBERS).clusters())
        .containsExactly("c1", "c2");
    assertThat(Placement.of(host(null, "tier"), MEMBERS).clusters()).containsExactly("c1", "c3");
    assertThat(Placement.of(host(null, "!region"), MEMBERS).clusters()).containsExactly("c4");
    assertThat(Placement.of(host(null, "region notin (eu)"), MEMBERS).clusters())
        .containsExactly("c3", "c4");
  }

  @Test
  void bothGivenMeansTheIntersection() {
    assertThat(Placement.of(host("c1,c3", "region=eu"), MEMBERS).clusters()).containsExactly("c1");
    assertThat(Placement.of(host("c2,c3", "tier=gold"), MEMBERS).clusters()).containsExactly("c3");
    assertThat(Placement.of(host("c2", "tier=gold"), MEMBERS).clusters()).isEmpty();
  }

  @Test
  void aBadSelectorPlacesNowhereAndSaysWhy() {
    Placement.Result r = Placement.of(host("c1", "region in eu"), MEMBERS);
    assertThat(r.clusters()).isEmpty();
    assertThat(r.problem())
        .startsWith("annotation pier.dev/cluster-selector='region in eu' is not a label selector:")
        .contains("expected '(' after 'in'");
  }
}
