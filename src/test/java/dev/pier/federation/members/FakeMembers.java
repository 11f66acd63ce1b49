package dev.pier.federation.members;

import dev.pier.federation.FederationOptions;
import dev.pier.federation.LeavePolicy;
import dev.pier.kube.ClusterAccess;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import java.util.List;
import java.util.Map;

/**
 * Members on fake clusters, for the federation's runs tested without an API server: no connection,
 * no probes; readiness and leaving are set by the test.
 */
public final class FakeMembers {
  private FakeMembers() {}

  /** A registry that cannot connect anything: every member is added by {@link #add}. */
  public static Members registry(FederationOptions options) {
    return new Members(
        options,
        spec -> {
          throw new IllegalStateException("members on fakes do not connect");
        });
  }

  /**
   * Adds a ready member with these placement labels, reading and writing through {@code access}.
   */
  public static Member add(Members members, ClusterAccess access, Map<String, String> labels) {
    ClusterSpec spec =
        new ClusterSpec(
            access.name(),
            "",
            null,
            "",
            false,
            "region-" + access.name(),
            List.of(),
            false,
            FederationRole.MEMBER,
            labels);
    Member m = new Member(spec, access, members.health());
    members.add(m);
    ready(m, true);
    return m;
  }

  /** Probes the member until it is ready, or not. */
  public static void ready(Member m, boolean ready) {
    while (m.ready() != ready) {
      m.recordProbe(ready);
    }
  }

  /** The member starts leaving now, its copies to be orphaned or deleted as {@code policy} says. */
  public static void leave(Member m, LeavePolicy policy) {
    m.markLeaving(System.currentTimeMillis(), policy);
  }
}
