package dev.pier.cloud.local;

import java.util.Arrays;

/** One port's backend hosts with their health checks, handed out round-robin. */
final class Backends {

  private final HealthChecks healthChecks;

  /** The backends, with their checks at the same index (null: not checked). */
  private String[] hosts = new String[0];

  private HealthChecks.Check[] checks = new HealthChecks.Check[0];
  private int next;

  Backends(HealthChecks healthChecks) {
    this.healthChecks = healthChecks;
  }

  /**
   * Points at new hosts, re-acquiring their checks: an HTTP check on {@code healthCheckPort} when
   * it is set, else a TCP connect to {@code tcpCheckPort} when that is set, else none.
   */
  void retarget(String[] newHosts, int healthCheckPort, int tcpCheckPort) {
    HealthChecks.Check[] newChecks = new HealthChecks.Check[newHosts.length];
    for (int i = 0; i < newHosts.length; i++) {
      if (healthCheckPort > 0) {
        newChecks[i] = healthChecks.acquire(newHosts[i], healthCheckPort, true);
      } else if (tcpCheckPort > 0) {
        newChecks[i] = healthChecks.acquire(newHosts[i], tcpCheckPort, false);
      }
    }
    // Acquire before releasing, so that a check kept across the change keeps its state.
    release();
    hosts = newHosts;
    checks = newChecks;
  }

  boolean contains(String host) {
    return Arrays.asList(hosts).contains(host);
  }

  /**
   * Hosts to try, in order: the healthy ones round-robin from the next turn, or, when none is
   * healthy, all of them (trying beats refusing).
   */
  String[] candidates() {
    int n = hosts.length;
    if (n == 0) {
      return new String[0];
    }
    if (next >= n) {
      next = 0;
    }
    int start = next;
    next = (start + 1) % n;
    String[] order = new String[n];
    int count = 0;
    for (int k = 0; k < n; k++) {
      int i = (start + k) % n;
      if (checks[i] == null || checks[i].healthy()) {
        order[count++] = hosts[i];
      }
    }
    if (count == 0) {
      for (int k = 0; k < n; k++) {
        order[k] = hosts[(start + k) % n];
      }
      return order;
    }
    return count == n ? order : Arrays.copyOf(order, count);
  }

  /** Lets go of every check. */
  void release() {
    for (HealthChecks.Check c : checks) {
      healthChecks.release(c);
    }
    checks = new HealthChecks.Check[0];
  }
}
