package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DesiredRecordsTest {
  private static final DnsNames NAMES = new DnsNames("ufp", "example.com");
  private static final String G = "nginx.test.ufp.svc.example.com.";
  private static final String R = "nginx.test.ufp.svc.fooregion.example.com.";
  private static final String ZA = "nginx.test.ufp.svc.za.fooregion.example.com.";
  private static final String ZB = "nginx.test.ufp.svc.zb.fooregion.example.com.";

  private static ServingCluster cluster(boolean healthy, List<String> v4, List<String> v6) {
    return new ServingCluster(
        new ClusterLocation("c1", "fooregion", List.of("za", "zb")), v4, v6, healthy);
  }

  private static Map<String, List<RecordSet>> compute(List<ServingCluster> serving) {
    return DesiredRecords.compute(NAMES, "test", "nginx", serving, 180, "me");
  }

  private static RecordSet a(String name, String... ips) {
    return new RecordSet(name, RecordSet.A, 180, List.of(ips), "me");
  }

  private static RecordSet cname(String name, String target) {
    return new RecordSet(name, RecordSet.CNAME, 180, List.of(target), "me");
  }

  @Test
  void healthyClusterInTwoZonesGetsARecordsAtEveryLevel() {
    var d = compute(List.of(cluster(true, List.of("198.51.100.2", "198.51.100.1"), List.of())));
    assertThat(d.keySet()).containsExactly(ZA, ZB, R, G);
    assertThat(d.get(ZA)).containsExactly(a(ZA, "198.51.100.1", "198.51.100.2"));
    assertThat(d.get(ZB)).containsExactly(a(ZB, "198.51.100.1", "198.51.100.2"));
    assertThat(d.get(R)).containsExactly(a(R, "198.51.100.1", "198.51.100.2"));
    assertThat(d.get(G)).containsExactly(a(G, "198.51.100.1", "198.51.100.2"));
  }

  @Test
  void ipv6AddressesAreAaaaRecords() {
    var d = compute(List.of(cluster(true, List.of("198.51.100.1"), List.of("2001:db8::1"))));
    assertThat(d.get(G))
        .containsExactly(
            a(G, "198.51.100.1"),
            new RecordSet(G, RecordSet.AAAA, 180, List.of("2001:db8::1"), "me"));
  }

  @Test
  void withoutReadyEndpointsZonesAndRegionFallBackAndGlobalGoes() {
    var d = compute(List.of(cluster(false, List.of("198.51.100.1"), List.of())));
    assertThat(d.get(ZA)).containsExactly(cname(ZA, R));
    assertThat(d.get(ZB)).containsExactly(cname(ZB, R));
    assertThat(d.get(R)).containsExactly(cname(R, G));
    assertThat(d.get(G)).isEmpty();
  }

  @Test
  void noServingClusterLeavesOnlyTheGlobalNameToRemove() {
    assertThat(compute(List.of())).containsOnlyKeys(G);
    assertThat(compute(List.of()).get(G)).isEmpty();
    assertThat(compute(List.of(cluster(true, List.of(), List.of())))).containsOnlyKeys(G);
  }

  @Test
  void federationTestExampleWithTwoClusters() {
    // dns_test.go: c1 in fooregion/foozone with an address, c2 in barregion/barzone without.
    ServingCluster c1 =
        new ServingCluster(
            new ClusterLocation("c1", "fooregion", List.of("foozone")),
            List.of("198.51.100.1"),
            List.of(),
            true);
    ServingCluster c2 =
        new ServingCluster(
            new ClusterLocation("c2", "barregion", List.of("barzone")),
            List.of("198.51.100.9"),
            List.of(),
            false);
    var d = compute(List.of(c1, c2));
    String barRegion = "nginx.test.ufp.svc.barregion.example.com.";
    String barZone = "nginx.test.ufp.svc.barzone.barregion.example.com.";
    String fooZone = "nginx.test.ufp.svc.foozone.fooregion.example.com.";
    assertThat(d.get(G)).containsExactly(a(G, "198.51.100.1"));
    assertThat(d.get(R)).containsExactly(a(R, "198.51.100.1"));
    assertThat(d.get(fooZone)).containsExactly(a(fooZone, "198.51.100.1"));
    assertThat(d.get(barRegion)).containsExactly(cname(barRegion, G));
    assertThat(d.get(barZone)).containsExactly(cname(barZone, barRegion));
  }

  @Test
  void aClusterWithoutRegionCountsOnlyGlobally() {
    ServingCluster c =
        new ServingCluster(
            new ClusterLocation("c1", null, List.of()), List.of("198.51.100.1"), List.of(), true);
    var d = compute(List.of(c));
    assertThat(d).containsOnlyKeys(G);
    assertThat(d.get(G)).containsExactly(a(G, "198.51.100.1"));
  }

  @Test
  void aClusterWhoseHostnameDidNotResolveMakesOnlyTheNamesItFeedsUnknown() {
    ServingCluster known =
        new ServingCluster(
            new ClusterLocation("a", "ra", List.of("za")),
            List.of("198.51.100.1"),
            List.of(),
            true);
    ServingCluster unresolved =
        new ServingCluster(
            new ClusterLocation("b", "rb", List.of("zb")),
            List.of(),
            List.of(),
            true,
            List.of("cannot resolve load balancer hostname lb.example: NXDOMAIN"));
    String ra = NAMES.region("test", "nginx", "ra");
    String za = NAMES.zone("test", "nginx", "za", "ra");
    String rb = NAMES.region("test", "nginx", "rb");
    String zb = NAMES.zone("test", "nginx", "zb", "rb");

    assertThat(DesiredRecords.unknown(NAMES, "test", "nginx", List.of(known, unresolved)))
        .containsExactlyInAnyOrder(zb, rb, G);
    assertThat(compute(List.of(known, unresolved)).keySet()).contains(za, ra, zb, rb, G);
    // A cluster without ready endpoints answers nowhere, so its unknown addresses hold nothing.
    ServingCluster down =
        new ServingCluster(
            unresolved.location(), List.of(), List.of(), false, unresolved.unresolved());
    assertThat(DesiredRecords.unknown(NAMES, "test", "nginx", List.of(known, down))).isEmpty();
    assertThat(DesiredRecords.unknown(NAMES, "test", "nginx", List.of(known))).isEmpty();
  }
}
