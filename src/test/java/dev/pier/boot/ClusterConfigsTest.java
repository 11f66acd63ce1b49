package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.local.PoolSpec;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterConfigsTest {
  private static final String THREE =
      """
      provider: local
      local:
        pools: [127.240.0.0/16]
        connectTimeout: 3s
      clusters:
        - name: hub
          inCluster: true
          federation: host
          loadBalancers: false
          labels:
            pier.dev/role: hub
        - name: east
          kubeconfig: conf/east.kubeconfig
          region: us-east
          zones: [us-east-1a, us-east-1b]
          federation: member
          labels: {tier: edge, team: a}
          local:
            pools: [10.10.0.0/24]
            healthCheck:
              interval: 5s
        - name: us-west
          kubeconfig: conf/west.kubeconfig
          context: west-admin
          federation: member
          local:
            pools:
              - name: team-b
                addresses: [10.20.0.0/24]
                namespaces: [team-b]
      """;

  @TempDir Path dir;

  private Path write(String yaml) throws IOException {
    Path f = dir.resolve("pier.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  private static ConfigValues load(Path file, Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(file);
  }

  private static List<ClusterSetup> of(Path file, Map<String, String> env) {
    return ClusterConfigs.of(load(file, env), env::get);
  }

  @Test
  void withoutClustersTheSingleClusterSectionIsTheOneCluster() throws IOException {
    ConfigValues defaults = load(null, Map.of());
    List<ClusterSetup> setups = ClusterConfigs.of(defaults, Map.<String, String>of()::get);
    assertThat(setups)
        .containsExactly(
            new ClusterSetup(
                ClusterSpec.single("kubernetes", "", ""),
                defaults,
                "embedded defaults: cluster.kubeconfig"));

    Path f =
        write(
            """
            cluster:
              name: east
              kubeconfig: k.yaml
              context: admin
            clusters: []
            """);
    ConfigValues config = load(f, Map.of());
    assertThat(ClusterConfigs.of(config, Map.<String, String>of()::get))
        .containsExactly(
            new ClusterSetup(
                ClusterSpec.single("east", "k.yaml", "admin"),
                config,
                config.describe(PierOptions.CLUSTER_KUBECONFIG)));
    assertThat(of(Path.of("conf/pier.yaml"), Map.of()))
        .extracting(ClusterSetup::spec)
        .containsExactly(ClusterSpec.single("kubernetes", "", ""));
  }

  @Test
  void threeClustersBecomeSpecsEachWithItsOwnProviderOptions() throws IOException {
    Path f = write(THREE);
    List<ClusterSetup> setups = of(f, Map.of());
    assertThat(setups)
        .extracting(ClusterSetup::spec)
        .containsExactly(
            new ClusterSpec(
                "hub",
                "",
                null,
                "",
                true,
                "",
                List.of(),
                false,
                FederationRole.HOST,
                Map.of("pier.dev/role", "hub")),
            new ClusterSpec(
                "east",
                "conf/east.kubeconfig",
                null,
                "",
                false,
                "us-east",
                List.of("us-east-1a", "us-east-1b"),
                true,
                FederationRole.MEMBER,
                Map.of("tier", "edge", "team", "a")),
            new ClusterSpec(
                "us-west",
                "conf/west.kubeconfig",
                null,
                "west-admin",
                false,
                "",
                List.of(),
                true,
                FederationRole.MEMBER,
                Map.of()));
    ConfigValues hub = setups.get(0).config();
    ConfigValues east = setups.get(1).config();
    ConfigValues west = setups.get(2).config();
    assertThat(hub.get(PierOptions.LOCAL_POOLS)).containsExactly(PoolSpec.of("127.240.0.0/16"));
    assertThat(east.get(PierOptions.LOCAL_POOLS)).containsExactly(PoolSpec.of("10.10.0.0/24"));
    assertThat(west.get(PierOptions.LOCAL_POOLS))
        .containsExactly(new PoolSpec("team-b", List.of("10.20.0.0/24"), List.of("team-b")));
    // A cluster's section replaces only the options it sets.
    assertThat(east.get(PierOptions.LOCAL_HEALTH_CHECK_INTERVAL)).isEqualTo(Duration.ofSeconds(5));
    assertThat(west.get(PierOptions.LOCAL_HEALTH_CHECK_INTERVAL)).isEqualTo(Duration.ofSeconds(2));
    assertThat(east.get(PierOptions.LOCAL_CONNECT_TIMEOUT)).isEqualTo(Duration.ofSeconds(3));
    assertThat(east.describe(PierOptions.LOCAL_POOLS))
        .isEqualTo(f + ": clusters[east].local.pools");
    assertThat(hub.describe(PierOptions.LOCAL_POOLS)).isEqualTo(f + ": local.pools");
    assertThat(east.source()).isEqualTo(f.toString());
  }

  @Test
  void theEnvironmentOverridesAListedClustersFieldsAndProviderOptions() throws IOException {
    Path f = write(THREE);
    Map<String, String> env =
        Map.of(
            "PIER_CLUSTERS_EAST_KUBECONFIG", "other.kubeconfig",
            "PIER_CLUSTERS_EAST_LOCAL_POOLS", "10.30.0.0/24, 10.31.0.0/24",
            "PIER_CLUSTERS_EAST_ZONES", "us-east-1c,us-east-1d",
            "PIER_CLUSTERS_EAST_LOAD_BALANCERS", "false",
            "PIER_CLUSTERS_EAST_LABELS", "tier=core,zone=x",
            "PIER_CLUSTERS_US_WEST_REGION", "us-west",
            "PIER_CLUSTERS_US_WEST_PROVIDER", "benchmark",
            "PIER_LOCAL_CONNECT_TIMEOUT", "4s");
    List<ClusterSetup> setups = of(f, env);
    ClusterSpec east = setups.get(1).spec();
    assertThat(east.kubeconfig()).isEqualTo("other.kubeconfig");
    assertThat(east.zones()).containsExactly("us-east-1c", "us-east-1d");
    assertThat(east.loadBalancers()).isFalse();
    assertThat(east.labels()).isEqualTo(Map.of("tier", "core", "zone", "x"));
    assertThat(east.region()).isEqualTo("us-east");
    ConfigValues eastConfig = setups.get(1).config();
    assertThat(eastConfig.get(PierOptions.LOCAL_POOLS))
        .containsExactly(PoolSpec.of("10.30.0.0/24"), PoolSpec.of("10.31.0.0/24"));
    assertThat(eastConfig.describe(PierOptions.LOCAL_POOLS))
        .isEqualTo(
            "environment variable PIER_CLUSTERS_EAST_LOCAL_POOLS (clusters[east].local.pools)");
    assertThat(eastConfig.get(PierOptions.LOCAL_CONNECT_TIMEOUT)).isEqualTo(Duration.ofSeconds(4));
    assertThat(setups.get(2).spec().region()).isEqualTo("us-west");
    assertThat(setups.get(2).config().get(PierOptions.PROVIDER)).isEqualTo("benchmark");
    assertThat(setups.get(0).config().get(PierOptions.PROVIDER)).isEqualTo("local");
    assertThat(setups.get(0).spec().kubeconfig()).isEmpty();
  }

  @Test
  void theClusterSectionAndClustersTogetherFailNamingTheSource() throws IOException {
    Path f =
        write(
            """
            cluster:
              name: one
            clusters:
              - name: east
            """);
    assertThatThrownBy(() -> of(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f
                + ": cluster.name: not allowed together with clusters ("
                + f
                + ": clusters): use the cluster section for one cluster or clusters for several,"
                + " not both");
    Path items = write("clusters:\n  - name: east\n");
    assertThatThrownBy(() -> of(items, Map.of("PIER_CLUSTER_KUBECONFIG", "k.yaml")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "environment variable PIER_CLUSTER_KUBECONFIG (cluster.kubeconfig): not allowed"
                + " together with clusters (");
  }

  @Test
  void aSecondHostFailsNamingBoth() throws IOException {
    Path f =
        write(
            """
            clusters:
              - name: a
                federation: host
              - name: b
                federation: member
              - name: c
                federation: host
            """);
    assertThatThrownBy(() -> of(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f
                + ": clusters[c].federation: invalid value 'host': must be member or none:"
                + " clusters[a] is the host already ("
                + f
                + ": clusters[a].federation), and a federation has one");
    assertThatThrownBy(() -> of(write(THREE), Map.of("PIER_CLUSTERS_EAST_FEDERATION", "HOST")))
        .hasMessageStartingWith(
            "environment variable PIER_CLUSTERS_EAST_FEDERATION (clusters[east].federation):"
                + " invalid value 'host': must be member or none: clusters[hub] is the host");
  }

  @Test
  void membersWithoutAHostFail() throws IOException {
    Path f =
        write(
            """
            clusters:
              - name: a
              - name: b
                federation: member
            """);
    assertThatThrownBy(() -> of(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f
                + ": clusters[b].federation: invalid value 'member': must be host or none: members"
                + " need a host, and no cluster has federation: host");
  }

  @Test
  void duplicateAndBadNamesFailAtLoad() throws IOException {
    Path f =
        write(
            """
            clusters:
              - name: east
              - name: west
              - name: east
            """);
    assertThatThrownBy(() -> load(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f
                + ": clusters[2].name: invalid value 'east': must be a DNS label (lower case"
                + " letters, digits, '-'), unique among the clusters; clusters[0] has it already");
    Path bad = write("clusters:\n  - name: East_1\n");
    assertThatThrownBy(() -> load(bad, Map.of()))
        .hasMessage(
            bad
                + ": clusters[0].name: invalid value 'East_1': must be a DNS label (lower case"
                + " letters, digits, '-'), unique among the clusters");
    Path none = write("clusters:\n  - kubeconfig: k.yaml\n");
    assertThatThrownBy(() -> load(none, Map.of()))
        .hasMessageStartingWith(none + ": clusters[0].name: invalid value 'null': must be");
    Path notAMapping = write("clusters:\n  - east\n");
    assertThatThrownBy(() -> load(notAMapping, Map.of()))
        .hasMessageStartingWith(
            notAMapping + ": clusters[0]: invalid value 'east': must be a mapping {name,");
    assertThatThrownBy(() -> load(null, Map.of("PIER_CLUSTERS", "east")))
        .hasMessageStartingWith(
            "environment variable PIER_CLUSTERS (clusters): invalid value 'east': must be a list"
                + " of clusters");
  }

  @Test
  void unknownKeysFailNamingTheClusterAndKey() throws IOException {
    Path f = write("clusters:\n  - name: east\n    regoin: us-east\n");
    assertThatThrownBy(() -> load(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f
                + ": clusters[east].regoin: invalid value 'us-east': must be absent: a cluster has"
                + " the keys name, kubeconfig, context, inCluster, region, zones, loadBalancers,"
                + " federation, labels and the provider sections provider, local, hetzner,"
                + " webhook, benchmark");
    Path section = write("clusters:\n  - name: east\n    local:\n      pool: [10.0.0.0/24]\n");
    assertThatThrownBy(() -> load(section, Map.of()))
        .hasMessageStartingWith(
            section
                + ": clusters[east].local.pool: invalid value '[10.0.0.0/24]': must be absent:"
                + " the options of a cluster's local section are local.pools,");
    Path other = write("clusters:\n  - name: east\n    dns:\n      enabled: true\n");
    assertThatThrownBy(() -> load(other, Map.of()))
        .hasMessageStartingWith(
            other + ": clusters[east].dns: invalid value '{enabled=true}': must be absent");
  }

  @Test
  void kubeconfigAndInClusterTogetherFail() throws IOException {
    Path f = write("clusters:\n  - name: east\n    kubeconfig: k.yaml\n    inCluster: true\n");
    assertThatThrownBy(() -> of(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f
                + ": clusters[east].inCluster: invalid value 'true': must be false when"
                + " kubeconfig is set ("
                + f
                + ": clusters[east].kubeconfig): the cluster is reached through one or the other");
    Path inCluster = write("clusters:\n  - name: east\n    inCluster: true\n");
    assertThatThrownBy(() -> of(inCluster, Map.of("PIER_CLUSTERS_EAST_KUBECONFIG", "k.yaml")))
        .hasMessageContaining(
            "(environment variable PIER_CLUSTERS_EAST_KUBECONFIG (clusters[east].kubeconfig))");
  }

  @Test
  void badFieldValuesNameThePathTheValueAndWhatIsAllowed() throws IOException {
    Path role = write("clusters:\n  - name: east\n    federation: boss\n");
    assertThatThrownBy(() -> load(role, Map.of()))
        .hasMessage(
            role
                + ": clusters[east].federation: invalid value 'boss': must be one of [host,"
                + " member, none]");
    Path label = write("clusters:\n  - name: east\n    labels:\n      -bad: x\n");
    assertThatThrownBy(() -> load(label, Map.of()))
        .hasMessageStartingWith(
            label + ": clusters[east].labels.-bad: invalid value '-bad': must be a label key");
    Path value = write("clusters:\n  - name: east\n    labels:\n      tier: 'a b'\n");
    assertThatThrownBy(() -> load(value, Map.of()))
        .hasMessageStartingWith(
            value + ": clusters[east].labels.tier: invalid value 'a b': must be a label value");
    Path zones = write("clusters:\n  - name: east\n    zones: [us-east-1a, {b: c}]\n");
    assertThatThrownBy(() -> load(zones, Map.of()))
        .hasMessage(
            zones + ": clusters[east].zones[1]: invalid value '{b=c}': must be a zone name");
    Path labels = write("clusters:\n  - name: east\n    labels: [a]\n");
    assertThatThrownBy(() -> load(labels, Map.of()))
        .hasMessage(
            labels
                + ": clusters[east].labels: invalid value '[a]': must be a mapping of label keys"
                + " to label values");
    Path ok = write("clusters:\n  - name: east\n");
    assertThatThrownBy(() -> of(ok, Map.of("PIER_CLUSTERS_EAST_LOAD_BALANCERS", "maybe")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "environment variable PIER_CLUSTERS_EAST_LOAD_BALANCERS"
                + " (clusters[east].loadBalancers): invalid value 'maybe': must be true or false");
  }

  @Test
  void aClustersBadProviderOptionNamesItsPathInTheFileOrVariable() throws IOException {
    Path f =
        write(
            """
            clusters:
              - name: east
                local:
                  pools: [10.0.0.300/24]
            """);
    assertThatThrownBy(() -> of(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            f + ": clusters[east].local.pools[0]: invalid value '10.0.0.300/24': must be a CIDR");
    Path ok = write("clusters:\n  - name: east\n    hetzner:\n      type: ''\n");
    assertThatThrownBy(() -> of(ok, Map.of()))
        .hasMessage(
            ok
                + ": clusters[east].hetzner.type: invalid value '': must be a load balancer type"
                + " name");
    Path plain = write("clusters:\n  - name: east\n");
    assertThatThrownBy(() -> of(plain, Map.of("PIER_CLUSTERS_EAST_LOCAL_POOLS", "nowhere")))
        .hasMessageStartingWith(
            "environment variable PIER_CLUSTERS_EAST_LOCAL_POOLS (clusters[east].local.pools[0]):"
                + " invalid value 'nowhere': must be a CIDR");
  }

  @Test
  void theExampleInTheShippedFileIsAHostAndTwoMembersWithTheirOwnPools() throws IOException {
    List<String> lines = Files.readAllLines(Path.of("conf/pier.yaml"));
    int start = lines.indexOf("#   clusters:");
    assertThat(start).as("the example in conf/pier.yaml").isPositive();
    StringBuilder example = new StringBuilder();
    for (int i = start; i < lines.size() && lines.get(i).startsWith("#   "); i++) {
      example.append(lines.get(i).substring(4)).append('\n');
    }
    List<ClusterSetup> setups = of(write(example.toString()), Map.of());
    assertThat(setups)
        .extracting(s -> s.spec().federation())
        .containsExactly(FederationRole.HOST, FederationRole.MEMBER, FederationRole.MEMBER);
    assertThat(setups.get(1).config().get(PierOptions.LOCAL_POOLS))
        .isNotEqualTo(setups.get(2).config().get(PierOptions.LOCAL_POOLS));
  }
}
