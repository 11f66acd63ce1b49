package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.IngressAnnotation.ClusterIngresses;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class IngressAnnotationTest {
  /** The seed's example (federation v1, service/ingress). */
  private static final String SEED =
      "{\"items\":[{\"cluster\":\"c1\",\"items\":[{\"ip\":\"198.51.100.1\"}]},"
          + "{\"cluster\":\"c2\",\"items\":[{\"hostname\":\"a9.us-west-2.elb.amazonaws.com\"}]},"
          + "{\"cluster\":\"c3\",\"items\":[]}]}";

  static LoadBalancerIngress ip(String ip) {
    return new LoadBalancerIngressBuilder().withIp(ip).build();
  }

  static LoadBalancerIngress host(String hostname) {
    return new LoadBalancerIngressBuilder().withHostname(hostname).build();
  }

  private static List<ClusterIngresses> seedEntries() {
    return List.of(
        new ClusterIngresses("c3", List.of()),
        new ClusterIngresses("c1", List.of(ip("198.51.100.1"))),
        new ClusterIngresses("c2", List.of(host("a9.us-west-2.elb.amazonaws.com"))));
  }

  @Test
  void jsonIsTheSeedsFormatByteForByte() {
    assertThat(IngressAnnotation.json(seedEntries())).isEqualTo(SEED);
  }

  @Test
  void noClustersIsAnEmptyObject() {
    assertThat(IngressAnnotation.json(List.of())).isEqualTo("{}");
  }

  @Test
  void itemsSortByIpThenHostnameAndCarryOnlyIpAndHostname() {
    LoadBalancerIngress both =
        new LoadBalancerIngressBuilder()
            .withHostname("lb.example.com")
            .withIp("192.0.2.9")
            .withIpMode("VIP")
            .addNewPort()
            .withPort(80)
            .withProtocol("TCP")
            .endPort()
            .build();
    String json =
        IngressAnnotation.json(
            List.of(
                new ClusterIngresses(
                    "b", List.of(ip("192.0.2.10"), both, host("z.example.com"), ip("192.0.2.1"))),
                new ClusterIngresses(
                    "a",
                    List.of(
                        new LoadBalancerIngressBuilder().withIp("").withHostname("h").build()))));
    assertThat(json)
        .isEqualTo(
            "{\"items\":[{\"cluster\":\"a\",\"items\":[{\"hostname\":\"h\"}]},"
                + "{\"cluster\":\"b\",\"items\":[{\"hostname\":\"z.example.com\"},"
                + "{\"ip\":\"192.0.2.1\"},{\"ip\":\"192.0.2.10\"},"
                + "{\"ip\":\"192.0.2.9\",\"hostname\":\"lb.example.com\"}]}]}");
  }

  @Test
  void parseReadsTheSeedsExample() {
    List<ClusterIngresses> parsed = IngressAnnotation.parse(SEED);
    assertThat(parsed).extracting(ClusterIngresses::cluster).containsExactly("c1", "c2", "c3");
    assertThat(parsed.get(0).items()).containsExactly(ip("198.51.100.1"));
    assertThat(parsed.get(1).items()).containsExactly(host("a9.us-west-2.elb.amazonaws.com"));
    assertThat(parsed.get(2).items()).isEmpty();
  }

  @Test
  void roundTrip() {
    assertThat(IngressAnnotation.json(IngressAnnotation.parse(SEED))).isEqualTo(SEED);
    assertThat(IngressAnnotation.parse(IngressAnnotation.json(seedEntries())))
        .containsExactlyElementsOf(IngressAnnotation.parse(SEED));
    assertThat(IngressAnnotation.json(IngressAnnotation.parse("{}"))).isEqualTo("{}");
  }

  @Test
  void parseIsLenient() {
    assertThat(IngressAnnotation.parse(null)).isEmpty();
    assertThat(IngressAnnotation.parse("")).isEmpty();
    assertThat(IngressAnnotation.parse("  ")).isEmpty();
    assertThat(IngressAnnotation.parse("not json")).isEmpty();
    assertThat(IngressAnnotation.parse("{\"items\":")).isEmpty();
    assertThat(IngressAnnotation.parse("[]")).isEmpty();
    assertThat(IngressAnnotation.parse("{\"items\":{}}")).isEmpty();
    assertThat(IngressAnnotation.parse("{}")).isEmpty();
  }

  @Test
  void parseSkipsEntriesWithoutAClusterAndToleratesMissingItems() {
    List<ClusterIngresses> parsed =
        IngressAnnotation.parse(
            "{\"items\":[{\"items\":[{\"ip\":\"192.0.2.1\"}]},{\"cluster\":7},\"x\","
                + "{\"cluster\":\"c1\"},"
                + "{\"cluster\":\"c2\",\"items\":[\"junk\",{\"ip\":\"192.0.2.2\",\"extra\":1}]}]}");
    assertThat(parsed)
        .containsExactly(
            new ClusterIngresses("c1", List.of()),
            new ClusterIngresses("c2", List.of(ip("192.0.2.2"))));
  }
}
