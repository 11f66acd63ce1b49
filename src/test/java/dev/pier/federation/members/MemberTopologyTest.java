package dev.pier.federation.members;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.publish.DnsOptions;
import dev.pier.dns.publish.DnsPublisher;
import dev.pier.federation.ClusterHealthState;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import dev.pier.nodes.Topology;
import dev.pier.policy.ServiceFilter;
import dev.pier.reconcile.ReconcileFakes.FakeCluster;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A cluster's region is one fact: the region its own DNS names use and the region it reports as a
 * federation member (its status, and the names the federation publishes for it) are the same
 * string, even when its nodes disagree.
 */
class MemberTopologyTest {
  private static Node node(String name, String region, String zone) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(Map.of(Topology.REGION, region, Topology.ZONE, zone))
        .endMetadata()
        .build();
  }

  private static Member member(FakeCluster cluster) {
    ClusterSpec spec =
        new ClusterSpec(
            cluster.name(),
            "",
            null,
            "",
            false,
            "",
            List.of(),
            false,
            FederationRole.MEMBER,
            Map.of());
    return new Member(spec, cluster, new ClusterHealthState(1, 1));
  }

  @Test
  void dnsAndTheFederationSeeTheSameRegionAndZones() {
    FakeCluster cluster = new FakeCluster("m1");
    cluster.nodes.add(node("node-a", "us-east", "us-east-1a"));
    cluster.nodes.add(node("node-b", "EU-West", "EU-West-1b"));
    cluster.nodes.add(node("node-c", "EU-West", "eu-west-1A"));
    DnsPublisher dns =
        new DnsPublisher(
            null, new DnsOptions().setZoneName("example.com"), new ServiceFilter(Set.of()), null);

    ClusterLocation names = dns.locate(cluster);
    Topology reported = member(cluster).topology();

    assertThat(names.region()).isEqualTo("eu-west");
    assertThat(reported.region()).isEqualTo(names.region());
    assertThat(reported.zones()).isEqualTo(names.zones());
  }
}
