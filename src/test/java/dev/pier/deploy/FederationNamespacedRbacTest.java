package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.events.EventReasons;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Federation with {@code federation.memberScope: namespaces}: in the member, the ServiceAccount
 * {@code pier-federation} has only what {@code rbac-federation-member-namespaced.yaml} grants (its
 * Role bound in each federated namespace, as the file says to repeat it, and the probe's
 * ClusterRole), and the member has no Node. A whole federated life cycle, with the member
 * configured and then joined through a Secret, plus a federated namespace that is missing in the
 * member until an operator makes it and binds the Role there; the member's audit log then shows
 * that nothing but that namespace's reads was denied, that Pier used nothing beyond the file's
 * grants, and that every verb it grants was used (exceptions listed below, with the reason).
 */
@RealKubeApiServer(
    auditLog = true,
    users =
        @RealKubeApiServer.User(
            token = FederationNamespacedRbacTest.HOST_TOKEN,
            name = FederationNamespacedRbacTest.HOST_USER,
            groups = {"system:serviceaccounts", "system:serviceaccounts:pier"}))
class FederationNamespacedRbacTest {
  static final String HOST_TOKEN = "pier-host-token";
  static final String HOST_USER = "system:serviceaccount:pier:pier";
  private static final String MEMBER_TOKEN = "pier-member-token";
  private static final String MEMBER_USER = "system:serviceaccount:pier:pier-federation";
  private static final Path MANIFEST =
      Manifests.DIR.resolve("rbac-federation-member-namespaced.yaml");

  /** The list and watch retries of a namespace read on its own back off up to half a minute. */
  private static final Duration NAMESPACE_ARRIVES = Duration.ofSeconds(90);

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

  private static KubeApiServer host;
  private static KubeApiServer member;
  private static Kubectl memberctl;
  @TempDir static Path dir;

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
    memberctl = new Kubectl(member);
    memberctl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
    // As shipped: its Role in the example namespace, default.
    memberctl.check("apply", "-f", MANIFEST.toString());
  }

  @AfterAll
  static void tearDown() {
    if (member != null) {
      member.close();
    }
  }

  /** The member's namespace and the file's Role and RoleBinding in it, as the file says. */
  private static void memberNamespace(String ns) throws IOException {
    member
        .client()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    String manifest = Files.readString(MANIFEST);
    assertThat(manifest).contains("namespace: default\n");
    Path file = dir.resolve("member-" + ns + ".yaml");
    Files.writeString(file, manifest.replace("namespace: default\n", "namespace: " + ns + "\n"));
    memberctl.check("apply", "-f", file.toString());
  }

  @Test
  void namespacedMemberRbacIsEnoughForTheWholeLifecycleAndGrantsNothingUnused() throws IOException {
    KubernetesClient admin = host.client();
    String ns = host.createNamespace("fedns");
    // Listed on the host, missing in the member until later in the test.
    String later = host.createNamespace("fedlater");
    memberNamespace(ns);

    FederatedLifeCycle life = new FederatedLifeCycle(host, member, MEMBER_TOKEN);
    try (InProcessPier pier = startPier(life, ns, later, true)) {
      life.copyServeFollowPlaceAndDelete(ns);

      // In a federated namespace the member lacks: no copy, no namespace made there, a Warning
      // naming the member and the namespace; the copy follows once the namespace and its Role are.
      admin.resource(FederatedServices.federated(later, "late", Map.of())).create();
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  Services.events(admin, later, "late").stream()
                      .filter(e -> EventReasons.MEMBER_NAMESPACE_UNREADABLE.equals(e.getReason()))
                      .anyMatch(
                          e ->
                              "Warning".equals(e.getType())
                                  && e.getMessage().startsWith("Cluster east: not copied")
                                  && e.getMessage().contains("namespace " + later + " there")));
      assertThat(member.client().namespaces().withName(later).get()).isNull();
      memberNamespace(later);
      await().atMost(NAMESPACE_ARRIVES).until(() -> life.copy(later, "late") != null);

      life.copyOneToLeaveBehind(ns);
    }
    life.deleteTheOneLeftBehind(ns);

    // Pier back with only the host configured; the member joins through its Secret (its region
    // and zones on it).
    try (InProcessPier pier = startPier(life, ns, later, false)) {
      life.joinBySecretKeepTheUnprovenCopyAndLeave(
          ns, Map.of("pier.dev/region", "eu", "pier.dev/zones", "eu-a"));
    }

    assertThat(RbacAudit.denied(host, HOST_USER))
        .as("requests RBAC denied to Pier in the host")
        .isEmpty();
    List<String> denied = RbacAudit.denied(member, MEMBER_USER);
    assertThat(denied)
        .as("requests RBAC denied to Pier in the member: only reads of the missing namespace")
        .isNotEmpty()
        .allMatch(r -> r.matches("(list|watch) /api[s]?/[^ ]*/namespaces/" + later + "/.*"));
    Set<String> hostGranted =
        RbacAudit.granted(
            Manifests.DIR.resolve("rbac.yaml"), Manifests.DIR.resolve("rbac-federation-host.yaml"));
    assertThat(hostGranted)
        .as("what the host's RBAC grants")
        .containsAll(RbacAudit.used(host, HOST_USER));

    Set<String> memberGranted = RbacAudit.granted(MANIFEST);
    Set<String> memberUsed = RbacAudit.used(member, MEMBER_USER);
    assertThat(memberGranted).as("what the member's RBAC grants").containsAll(memberUsed);
    assertThat(memberGranted)
        .as("nothing on Nodes or namespaces")
        .noneMatch(g -> g.startsWith("/nodes:") || g.startsWith("/namespaces:"));
    RbacAudit.assertUsedAllBut(memberGranted, memberUsed, MEMBER_UNUSED, "the member");
  }

  private static InProcessPier startPier(
      FederatedLifeCycle life, String ns, String later, boolean withMember) {
    return life.startPier(
        HOST_TOKEN,
        withMember ? "    region: eu\n    zones: [eu-a]\n" : null,
        "  memberScope: namespaces\n  namespaces: [" + ns + ", " + later + "]\n");
  }
}
