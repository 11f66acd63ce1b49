package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ArrivalWaitTest {
  private static final Duration MAX = Duration.ofSeconds(5);

  @Test
  void aFirstAddressWaitsForTheMembersStillOnTheirWay() {
    assertThat(ArrivalWait.decide(Set.of("west"), Set.of(), Set.of("10.0.0.1"), 1_000, 3_000, MAX))
        .isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void noWaitOnceEveryPlacedMemberHasAnAddress() {
    assertThat(
            ArrivalWait.decide(
                Set.of(), Set.of(), Set.of("10.0.0.1", "10.0.0.2"), 1_000, 1_500, MAX))
        .isZero();
  }

  @Test
  void noWaitBeyondTheBound() {
    assertThat(ArrivalWait.decide(Set.of("west"), Set.of(), Set.of("10.0.0.1"), 1_000, 6_000, MAX))
        .isZero();
  }

  @Test
  void removalsAndChangesAreWrittenAtOnce() {
    assertThat(
            ArrivalWait.decide(
                Set.of("west"), Set.of("10.0.0.1", "10.0.0.2"), Set.of("10.0.0.1"), 0, 1, MAX))
        .as("an address goes")
        .isZero();
    assertThat(
            ArrivalWait.decide(Set.of("west"), Set.of("10.0.0.1"), Set.of("10.0.0.3"), 0, 1, MAX))
        .as("an address changes")
        .isZero();
    assertThat(
            ArrivalWait.decide(Set.of("west"), Set.of("10.0.0.1"), Set.of("10.0.0.1"), 0, 1, MAX))
        .as("nothing new to write")
        .isZero();
  }

  @Test
  void zeroNeverWaits() {
    assertThat(
            ArrivalWait.decide(Set.of("west"), Set.of(), Set.of("10.0.0.1"), 0, 1, Duration.ZERO))
        .isZero();
  }

  @Test
  void theReadyMembersWithoutAnAddressArePendingForALoadBalancerOnly() {
    LoadBalancerStatus none = new LoadBalancerStatus(List.of());
    LoadBalancerStatus one =
        new LoadBalancerStatus(
            List.of(new LoadBalancerIngressBuilder().withIp("10.0.0.1").build()));
    List<IngressAggregate.MemberStatus> statuses =
        List.of(
            new IngressAggregate.MemberStatus("east", true, one, true),
            new IngressAggregate.MemberStatus("west", true, none, false),
            new IngressAggregate.MemberStatus("north", true, null, false),
            new IngressAggregate.MemberStatus("south", true, new LoadBalancerStatus(), false),
            new IngressAggregate.MemberStatus("down", true, null, false));
    assertThat(ArrivalWait.pending(true, statuses, name -> !name.equals("down")))
        .containsExactly("north", "south", "west");
    assertThat(ArrivalWait.pending(false, statuses, name -> true)).isEmpty();
  }
}
