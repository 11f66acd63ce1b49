package dev.pier.dns;

/**
 * What Pier's own probes of one load-balancer address say so far: whether it answers, by the
 * thresholds (it stops answering after {@code failureThreshold} failed probes in a row, and answers
 * again after {@code successThreshold} passed ones). A new address answers until proven otherwise,
 * as a new member does.
 *
 * @param passes passed probes in a row
 * @param failures failed probes in a row
 */
public record ProbeState(boolean answering, int passes, int failures) {
  /** An address not probed yet. */
  public static final ProbeState NEW = new ProbeState(true, 0, 0);

  /** The state after one more probe. */
  public ProbeState next(boolean passed, int failureThreshold, int successThreshold) {
    if (passed) {
      int p = passes + 1;
      return new ProbeState(answering || p >= successThreshold, p, 0);
    }
    int f = failures + 1;
    return new ProbeState(answering && f < failureThreshold, 0, f);
  }
}
