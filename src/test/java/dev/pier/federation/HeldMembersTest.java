package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.HeldMembers.Placed;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeldMembersTest {
  private static final Duration HOUR = Duration.ofHours(1);
  private static final long NOW = 10_000_000L;

  private static HeldMembers.Decision decide(Placed... placed) {
    return HeldMembers.decide(List.of(placed), 50, HOUR, NOW);
  }

  @Test
  void everyMemberLostIsHeldAsLastSeen() {
    HeldMembers.Decision d =
        decide(new Placed("east", false, NOW - 5_000), new Placed("west", false, NOW - 9_000));
    assertThat(d.held()).isEqualTo(Set.of("east", "west"));
    assertThat(d.since()).isEqualTo(NOW - 9_000);
    assertThat(d.until()).isEqualTo(NOW - 9_000 + HOUR.toMillis());
    assertThat(d.reachable()).isZero();
  }

  @Test
  void anUnreachableMemberAmongReachableOnesLeavesAsUsual() {
    assertThat(decide(new Placed("east", true, 0), new Placed("west", false, NOW)).holding())
        .isFalse();
    assertThat(decide(new Placed("east", true, 0)).holding()).isFalse();
  }

  @Test
  void belowHalfReachableTheUnreachableAreHeld() {
    HeldMembers.Decision d =
        decide(
            new Placed("a", true, 0),
            new Placed("b", false, NOW - 1),
            new Placed("c", false, NOW - 2));
    assertThat(d.held()).isEqualTo(Set.of("b", "c"));
    assertThat(d.reachable()).isEqualTo(1);
    assertThat(d.placed()).isEqualTo(3);
  }

  @Test
  void aHoldEndsAfterMaxHold() {
    HeldMembers.Decision d =
        decide(
            new Placed("old", false, NOW - HOUR.toMillis()), new Placed("new", false, NOW - 1_000));
    assertThat(d.held()).isEqualTo(Set.of("new"));
    assertThat(decide(new Placed("old", false, NOW - HOUR.toMillis() - 1)).holding()).isFalse();
  }

  @Test
  void zeroTurnsHoldingOffAndNoPlacementHoldsNothing() {
    assertThat(HeldMembers.decide(List.of(new Placed("a", false, NOW)), 0, HOUR, NOW).holding())
        .isFalse();
    assertThat(decide().holding()).isFalse();
  }
}
