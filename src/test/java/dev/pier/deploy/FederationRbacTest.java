package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Federation run with the identities the shipped manifests bind: in the host (which also runs
 * Pier's load balancers: Pier needs one cluster that does) Pier's ServiceAccount with {@code
 * rbac.yaml} and {@code rbac-federation-host.yaml}, in a member (without Pier's own load balancers)
 * the ServiceAccount {@code pier-federation} with {@code rbac-federation-member.yaml}. A whole
 * federated life cycle, with the member configured and then joined through a Secret; both audit
 * logs then show that nothing was denied, that Pier used nothing beyond what is granted, and that
 * every verb the add-ons grant was used (exceptions listed below, with the reason).
 */
@RealKubeApiServer(
    auditLog = true,
    users =
        @RealKubeApiServer.User(
            token = FederationRbacTest.HOST_TOKEN,
            name = FederationRbacTest.HOST_USER,
            groups = {"system:serviceaccounts", "system:serviceaccounts:pier"}))
class FederationRbacTest {
  static final String HOST_TOKEN = "pier-host-token";
  static final String HOST_USER = "system:serviceaccount:pier:pier";
  private static final String MEMBER_TOKEN = "pier-member-token";
  private static final String MEMBER_USER = "system:serviceaccount:pier:pier-federation";

  /**
   * Granted in the member and not used on this 1.20 API server, with the reason: core Endpoints are
   * read only where discovery.k8s.io is not served; an Event is patched only when the same Event
   * repeats, which a copy deleted once does not; /healthz is probed only where /readyz is missing.
   */
  private static final Set<String> MEMBER_UNUSED =
      Set.of("/endpoints:list", "/endpoints:watch", "/events:patch", "nonResource:/healthz:get");

  /**
   * Granted in the host (by the base rbac.yaml) and not used here: no Event repeats in this life
   * cycle. RbacTest shows that patch used.
   */
  private static final Set<String> HOST_UNUSED = Set.of("/events:patch");

  private static KubeApiServer host;
  private static KubeApiServer member;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    host = server;
    member =
        KubeApiServer.builder()
            .withAuditLog()
            .withUser(
                MEMBER_TOKEN, MEMBER_USER, "system:serviceaccounts", "system:serviceaccounts:pier")
            .start();
    Kubectl hostctl = new Kubectl(host);
    hostctl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
    hostctl.check("apply", "-f", Manifests.DIR.resolve("rbac.yaml").toString());
    hostctl.check("apply", "-f", Manifests.DIR.resolve("rbac-federation-host.yaml").toString());
    Kubectl memberctl = new Kubectl(member);
    memberctl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
    memberctl.check("apply", "-f", Manifests.DIR.resolve("rbac-federation-member.yaml").toString());
    member.createReadyNode(
        "east-1",
        "127.0.0.1",
        Map.of("topology.kubernetes.io/region", "eu", "topology.kubernetes.io/zone", "eu-a"));
  }

  @AfterAll
  static void tearDown() {
    if (member != null) {
      member.close();
    }
  }

  @Test
  void shippedFederationRbacIsEnoughForTheWholeLifecycleAndGrantsNothingUnused()
      throws IOException {
    String ns = host.createNamespace("fedrbac");
    FederatedServices.optIn(host.client(), ns);
    FederatedLifeCycle life = new FederatedLifeCycle(host, member, MEMBER_TOKEN);

    try (InProcessPier pier = startPier(true)) {
      life.copyServeFollowPlaceAndDelete(ns);
      life.copyOneToLeaveBehind(ns);
    }
    life.deleteTheOneLeftBehind(ns);

    // Pier back with only the host configured; the member joins through its Secret.
    try (InProcessPier pier = startPier(false)) {
      life.joinBySecretDeleteTheOrphanedCopyAndLeave(ns, Map.of());
    }

    assertThat(RbacAudit.denied(host, HOST_USER))
        .as("requests RBAC denied to Pier in the host")
        .isEmpty();
    assertThat(RbacAudit.denied(member, MEMBER_USER))
        .as("requests RBAC denied to Pier in the member")
        .isEmpty();

    Set<String> hostGranted =
        RbacAudit.granted(
            Manifests.DIR.resolve("rbac.yaml"), Manifests.DIR.resolve("rbac-federation-host.yaml"));
    Set<String> hostAddOn = RbacAudit.granted(Manifests.DIR.resolve("rbac-federation-host.yaml"));
    Set<String> hostUsed = RbacAudit.used(host, HOST_USER);
    assertThat(hostGranted).as("what the host's RBAC grants").containsAll(hostUsed);
    assertThat(hostUsed).as("what Pier did in the host").containsAll(hostAddOn);
    Set<String> hostExpected = new TreeSet<>(hostGranted);
    hostExpected.removeAll(HOST_UNUSED);
    assertThat(hostUsed).as("what Pier did in the host, base included").containsAll(hostExpected);

    Set<String> memberGranted =
        RbacAudit.granted(Manifests.DIR.resolve("rbac-federation-member.yaml"));
    Set<String> memberUsed = RbacAudit.used(member, MEMBER_USER);
    assertThat(memberGranted).as("what the member's RBAC grants").containsAll(memberUsed);
    Set<String> expected = new TreeSet<>(memberGranted);
    expected.removeAll(MEMBER_UNUSED);
    assertThat(memberUsed).as("what Pier did in the member").containsAll(expected);
    assertThat(memberUsed)
        .as("granted but unused in the member")
        .doesNotContainAnyElementsOf(MEMBER_UNUSED);
  }

  private static InProcessPier startPier(boolean withMember) {
    StringBuilder yaml =
        new StringBuilder()
            .append("clusters:\n")
            .append("  - name: host\n")
            .append("    kubeconfig: \"")
            .append(host.kubeconfigFor(HOST_TOKEN))
            .append("\"\n")
            .append("    federation: host\n")
            // Pier needs one cluster with load balancers; the base rbac.yaml is bound here anyway.
            .append("    local:\n")
            .append("      pools: [\"127.248.0.0/28\"]\n");
    if (withMember) {
      yaml.append("  - name: east\n")
          .append("    kubeconfig: \"")
          .append(member.kubeconfigFor(MEMBER_TOKEN))
          .append("\"\n")
          .append("    federation: member\n")
          .append("    loadBalancers: false\n");
    }
    yaml.append("federation:\n")
        .append("  leaveGrace: 1s\n")
        .append("  health:\n")
        .append("    period: 500ms\n")
        .append("    timeout: 400ms\n");
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "true");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), "pier");
    env.put(PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(), "4s");
    env.put(PierOptions.LEADER_ELECTION_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.LEADER_ELECTION_RETRY_PERIOD.envName(), "500ms");
    return InProcessPier.startWithConfig(yaml.toString(), env);
  }
}
