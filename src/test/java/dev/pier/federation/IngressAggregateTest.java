package dev.pier.federation;

import static dev.pier.federation.IngressAnnotationTest.host;
import static dev.pier.federation.IngressAnnotationTest.ip;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.FederationOptions.UnreadyClusters;
import dev.pier.federation.IngressAggregate.MemberStatus;
import dev.pier.federation.IngressAggregate.Result;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.LoadBalancerStatusBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class IngressAggregateTest {
  private static LoadBalancerStatus withIngress(LoadBalancerIngress... ingress) {
    return new LoadBalancerStatusBuilder().withIngress(ingress).build();
  }

  private static LoadBalancerStatus noIngress() {
    return new LoadBalancerStatus();
  }

  private static final String PREVIOUS =
      "{\"items\":[{\"cluster\":\"c1\",\"items\":[{\"ip\":\"198.51.100.9\"}]},"
          + "{\"cluster\":\"c2\",\"items\":[{\"ip\":\"198.51.100.2\"}]}]}";

  @Test
  void readyMembersWithReadyEndpointsContributeTheirIngresses() {
    Result r =
        IngressAggregate.compute(
            List.of(
                new MemberStatus("c2", true, withIngress(host("a9.elb.example.com")), true),
                new MemberStatus("c1", true, withIngress(ip("198.51.100.1")), true)),
            null,
            UnreadyClusters.KEEP);
    assertThat(r.ingress()).containsExactly(host("a9.elb.example.com"), ip("198.51.100.1"));
    assertThat(r.annotation())
        .isEqualTo(
            "{\"items\":[{\"cluster\":\"c1\",\"items\":[{\"ip\":\"198.51.100.1\"}]},"
                + "{\"cluster\":\"c2\",\"items\":[{\"hostname\":\"a9.elb.example.com\"}]}]}");
  }

  @Test
  void aReadyMemberWithoutReadyEndpointsHasAnEmptyEntryButStaysInTheStatus() {
    Result r =
        IngressAggregate.compute(
            List.of(
                new MemberStatus("c1", true, withIngress(ip("198.51.100.1")), true),
                new MemberStatus("c2", true, withIngress(ip("198.51.100.2")), false)),
            null,
            UnreadyClusters.DROP);
    assertThat(r.ingress()).containsExactly(ip("198.51.100.1"), ip("198.51.100.2"));
    assertThat(r.annotation())
        .isEqualTo(
            "{\"items\":[{\"cluster\":\"c1\",\"items\":[{\"ip\":\"198.51.100.1\"}]},"
                + "{\"cluster\":\"c2\",\"items\":[]}]}");
  }

  @Test
  void aReadyMemberWithoutIngressOrServiceAddsNothing() {
    Result r =
        IngressAggregate.compute(
            List.of(
                new MemberStatus("c1", true, noIngress(), true),
                new MemberStatus("c2", true, null, true),
                new MemberStatus("c3", true, withIngress(), true)),
            PREVIOUS,
            UnreadyClusters.KEEP);
    assertThat(r.ingress()).isEmpty();
    assertThat(r.annotation()).isEqualTo("{}");
  }

  @Test
  void theStatusIsSortedWithoutDuplicates() {
    Result r =
        IngressAggregate.compute(
            List.of(
                new MemberStatus(
                    "c1", true, withIngress(ip("198.51.100.3"), ip("198.51.100.1")), true),
                new MemberStatus("c2", true, withIngress(ip("198.51.100.1")), true)),
            null,
            UnreadyClusters.KEEP);
    assertThat(r.ingress()).containsExactly(ip("198.51.100.1"), ip("198.51.100.3"));
    assertThat(r.annotation())
        .isEqualTo(
            "{\"items\":[{\"cluster\":\"c1\",\"items\":[{\"ip\":\"198.51.100.1\"},"
                + "{\"ip\":\"198.51.100.3\"}]},"
                + "{\"cluster\":\"c2\",\"items\":[{\"ip\":\"198.51.100.1\"}]}]}");
  }

  @Test
  void keepCopiesAnUnreadyMembersPreviousEntryAndKeepsItsCachedIngress() {
    Result r =
        IngressAggregate.compute(
            List.of(
                new MemberStatus("c1", false, withIngress(ip("198.51.100.7")), false),
                new MemberStatus("c3", true, withIngress(ip("198.51.100.3")), true)),
            PREVIOUS,
            UnreadyClusters.KEEP);
    assertThat(r.ingress()).containsExactly(ip("198.51.100.3"), ip("198.51.100.7"));
    // c1's entry is the previous one, not its cached Service's; c2 is no longer a member
    assertThat(r.annotation())
        .isEqualTo(
            "{\"items\":[{\"cluster\":\"c1\",\"items\":[{\"ip\":\"198.51.100.9\"}]},"
                + "{\"cluster\":\"c3\",\"items\":[{\"ip\":\"198.51.100.3\"}]}]}");
  }

  @Test
  void keepAddsNoEntryForAnUnreadyMemberThatHadNone() {
    Result r =
        IngressAggregate.compute(
            List.of(new MemberStatus("c4", false, withIngress(ip("198.51.100.4")), true)),
            PREVIOUS,
            UnreadyClusters.KEEP);
    assertThat(r.ingress()).containsExactly(ip("198.51.100.4"));
    assertThat(r.annotation()).isEqualTo("{}");
  }

  @Test
  void dropEmptiesAnUnreadyMembersEntryAndLeavesItOutOfTheStatus() {
    Result r =
        IngressAggregate.compute(
            List.of(
                new MemberStatus("c1", false, withIngress(ip("198.51.100.7")), true),
                new MemberStatus("c2", true, withIngress(ip("198.51.100.2")), true),
                new MemberStatus("c4", false, withIngress(ip("198.51.100.4")), true)),
            PREVIOUS,
            UnreadyClusters.DROP);
    assertThat(r.ingress()).containsExactly(ip("198.51.100.2"));
    assertThat(r.annotation())
        .isEqualTo(
            "{\"items\":[{\"cluster\":\"c1\",\"items\":[]},"
                + "{\"cluster\":\"c2\",\"items\":[{\"ip\":\"198.51.100.2\"}]}]}");
  }

  @Test
  void aMalformedPreviousAnnotationCountsAsNone() {
    Result r =
        IngressAggregate.compute(
            List.of(new MemberStatus("c1", false, withIngress(ip("198.51.100.7")), true)),
            "{broken",
            UnreadyClusters.KEEP);
    assertThat(r.ingress()).containsExactly(ip("198.51.100.7"));
    assertThat(r.annotation()).isEqualTo("{}");
  }

  @Test
  void theResultDoesNotShareTheCachedObjects() {
    LoadBalancerStatus cached = withIngress(ip("198.51.100.1"));
    Result r =
        IngressAggregate.compute(
            List.of(new MemberStatus("c1", true, cached, true)), null, UnreadyClusters.KEEP);
    r.ingress().get(0).setIp("203.0.113.1");
    assertThat(cached.getIngress().get(0).getIp()).isEqualTo("198.51.100.1");
  }
}
