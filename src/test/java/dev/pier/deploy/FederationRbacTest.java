package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import java.io.IOException;
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
   * Granted in the member and not used here, with the reason: Pier writes an Event in a member only
   * on a copy whose host Service is gone, and deletes such a copy only when it can show it made it
   * (a release that gave up on its member recorded it; {@code
   * FederationTest#anUnreachableMemberHoldsADeletionOnlyUntilTheTimeoutAndItsCopyGoesWhenItIsBack}
   * deletes one), which this life cycle's copy left behind cannot (its record went with its host
   * Service); an Event is patched only when the same Event repeats; /healthz is probed only where
   * /readyz is missing.
   */
  private static final Set<String> MEMBER_UNUSED =
      Set.of("/events:create", "/events:patch", "nonResource:/healthz:get");

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

    try (InProcessPier pier = life.startPier(HOST_TOKEN, "", "")) {
      life.copyServeFollowPlaceAndDelete(ns);
      life.copyOneToLeaveBehind(ns);
    }
    life.deleteTheOneLeftBehind(ns);

    // Pier back with only the host configured; the member joins through its Secret.
    try (InProcessPier pier = life.startPier(HOST_TOKEN, null, "")) {
      life.joinBySecretKeepTheUnprovenCopyAndLeave(ns, Map.of());
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
    assertThat(RbacAudit.deprecated(host, HOST_USER))
        .as("deprecated APIs used in the host")
        .isEmpty();
    assertThat(RbacAudit.deprecated(member, MEMBER_USER))
        .as("deprecated APIs used in the member")
        .isEmpty();
    assertThat(hostGranted).as("what the host's RBAC grants").containsAll(hostUsed);
    assertThat(hostUsed).as("what Pier did in the host").containsAll(hostAddOn);
    Set<String> hostExpected = new TreeSet<>(hostGranted);
    hostExpected.removeAll(HOST_UNUSED);
    assertThat(hostUsed).as("what Pier did in the host, base included").containsAll(hostExpected);

    Set<String> memberGranted =
        RbacAudit.granted(Manifests.DIR.resolve("rbac-federation-member.yaml"));
    Set<String> memberUsed = RbacAudit.used(member, MEMBER_USER);
    assertThat(memberGranted).as("what the member's RBAC grants").containsAll(memberUsed);
    RbacAudit.assertUsedAllBut(memberGranted, memberUsed, MEMBER_UNUSED, "the member");
  }
}
