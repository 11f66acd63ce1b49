package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.ReleaseWait.Seen;
import dev.pier.federation.ReleaseWait.Waits;
import dev.pier.model.LbStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReleaseWaitTest {
  private static final Duration POLL = Duration.ofSeconds(2);
  private static final CopyState OWNED =
      new CopyState(true, null, true, false, LbStatus.EMPTY, true);
  private static final CopyState TERMINATING =
      new CopyState(true, null, true, true, LbStatus.EMPTY, true);
  private static final CopyState UNSYNCED =
      new CopyState(false, null, true, false, LbStatus.EMPTY, true);

  @Test
  void copiesStillThereAreDeletedAndPolledWhateverElseWaits() {
    Waits w =
        ReleaseWait.of(
            List.of("gone"),
            List.of(
                new Seen("east", true, OWNED),
                new Seen("west", false, OWNED),
                new Seen("north", true, TERMINATING),
                new Seen("south", true, UNSYNCED),
                new Seen("none", true, CopyState.none(true, null)),
                new Seen("gone", true, null)));
    assertThat(w.deleting()).containsExactly("east");
    assertThat(w.unreachable()).containsExactly("gone", "west", "south");
    assertThat(w.terminating()).containsExactly("north");
    assertThat(ReleaseWait.wait(w, Duration.ZERO, POLL)).isEqualTo(POLL);
  }

  @Test
  void anUnreachableMemberIsPolledUntilTheTimeoutAndATerminatingCopyWaitedForAtOnce() {
    Waits unreachable = new Waits(List.of(), List.of("west"), List.of());
    Waits terminating = new Waits(List.of(), List.of(), List.of("west"));
    Duration left = Duration.ofSeconds(30);
    assertThat(ReleaseWait.wait(unreachable, left, POLL)).isEqualTo(POLL);
    assertThat(ReleaseWait.wait(unreachable, Duration.ofSeconds(1), POLL))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(ReleaseWait.wait(terminating, left, POLL)).isEqualTo(left);
    assertThat(ReleaseWait.wait(unreachable, Duration.ZERO, POLL)).isZero();
  }

  @Test
  void nothingLeftIsReleasedAtOnceAndSaysNothing() {
    Waits none = ReleaseWait.of(List.of(), List.of());
    assertThat(ReleaseWait.wait(none, Duration.ofSeconds(30), POLL)).isZero();
    assertThat(ReleaseWait.leftBehind(none, Duration.ofMinutes(5))).isNull();
  }

  @Test
  void aTimedOutReleaseSaysWhatItLeftBehind() {
    Waits w = new Waits(List.of(), List.of("west"), List.of("north"));
    assertThat(ReleaseWait.leftBehind(w, Duration.ofMinutes(5)))
        .isEqualTo(
            "Released after 300s although clusters west are not ready (their copies are deleted"
                + " when they are ready again), and the copies in clusters north are still held by"
                + " finalizers there");
    assertThat(
            ReleaseWait.leftBehind(
                new Waits(List.of(), List.of(), List.of("north")), Duration.ZERO))
        .startsWith("Released after 0s although the copies in clusters north");
  }

  @Test
  void theTimeLeftRunsFromTheDeletion() {
    long deleted = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli();
    String ts = "2026-03-01T12:00:00Z";
    Duration timeout = Duration.ofMinutes(5);
    assertThat(ReleaseWait.timeLeft(ts, timeout, deleted + 60_000))
        .isEqualTo(Duration.ofMinutes(4));
    assertThat(ReleaseWait.timeLeft(ts, timeout, deleted + 300_000)).isZero();
    assertThat(ReleaseWait.timeLeft(null, timeout, deleted)).as("not being deleted").isZero();
  }
}
