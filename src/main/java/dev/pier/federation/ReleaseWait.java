package dev.pier.federation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What the release of a host Service waits for. The host Service is being deleted or stopped being
 * federated: its copies go first (or lose the federation's marks), then its finalizer. A copy still
 * there is waited for while its member's key deletes it; a member that is not ready, or whose copy
 * cannot be read, and a copy held by finalizers in its member, are waited for at most the delete
 * timeout after the deletion.
 */
public final class ReleaseWait {
  private ReleaseWait() {}

  /**
   * One member's copy as the release reads it.
   *
   * @param ready the member is ready
   * @param copy its copy, or null when it could not be read
   */
  public record Seen(String member, boolean ready, CopyState copy) {}

  /**
   * @param deleting members whose copy Pier owns is there: their keys run to delete it
   * @param unreachable members whose copy is not known: unread, not ready, or not read yet
   * @param terminating members whose copy is being deleted, held by finalizers there
   */
  public record Waits(List<String> deleting, List<String> unreachable, List<String> terminating) {
    public Waits {
      deleting = List.copyOf(deleting);
      unreachable = List.copyOf(unreachable);
      terminating = List.copyOf(terminating);
    }
  }

  /**
   * @param unknown members whose copy could not be read, in order: they count as unreachable, first
   */
  public static Waits of(Collection<String> unknown, List<Seen> seen) {
    List<String> deleting = new ArrayList<>();
    List<String> unreachable = new ArrayList<>(unknown);
    List<String> terminating = new ArrayList<>();
    for (Seen s : seen) {
      CopyState copy = s.copy();
      if (copy == null || !copy.owned()) {
        continue;
      }
      if (!s.ready() || !copy.synced()) {
        unreachable.add(s.member());
      } else if (copy.terminating()) {
        // Waited for like an unreachable member, without deleting it again; its removal runs the
        // host's key again.
        terminating.add(s.member());
      } else {
        deleting.add(s.member());
      }
    }
    return new Waits(deleting, unreachable, terminating);
  }

  /**
   * How long the release waits before it looks again, or {@link Duration#ZERO} to release now.
   *
   * @param left until the delete timeout ({@link #timeLeft})
   * @param poll how often copies being deleted and unreachable members are looked at
   */
  public static Duration wait(Waits waits, Duration left, Duration poll) {
    if (!waits.deleting().isEmpty()) {
      return poll;
    }
    if ((waits.unreachable().isEmpty() && waits.terminating().isEmpty()) || left.isZero()) {
      return Duration.ZERO;
    }
    // An unreachable member is polled; a terminating copy wakes the host's key when it goes.
    boolean polled = !waits.unreachable().isEmpty() && left.compareTo(poll) > 0;
    return polled ? poll : left;
  }

  /**
   * Until the delete timeout after the deletion, or zero for a Service that is not being deleted
   * (no longer federated) or whose timeout passed.
   */
  public static Duration timeLeft(String deletionTimestamp, Duration deleteTimeout, long now) {
    if (deletionTimestamp == null) {
      return Duration.ZERO;
    }
    long deadline = Instant.parse(deletionTimestamp).toEpochMilli() + deleteTimeout.toMillis();
    long left = deadline - now;
    return left <= 0 ? Duration.ZERO : Duration.ofMillis(left);
  }

  /** Why a release went on without every copy gone, or null when nothing was left behind. */
  public static String leftBehind(Waits waits, Duration deleteTimeout) {
    List<String> why = new ArrayList<>();
    if (!waits.unreachable().isEmpty()) {
      why.add(
          "clusters "
              + String.join(", ", waits.unreachable())
              + " are not ready (their copies are deleted when they are ready again)");
    }
    if (!waits.terminating().isEmpty()) {
      why.add(
          "the copies in clusters "
              + String.join(", ", waits.terminating())
              + " are still held by finalizers there");
    }
    return why.isEmpty()
        ? null
        : "Released after "
            + deleteTimeout.toSeconds()
            + "s although "
            + String.join(", and ", why);
  }
}
