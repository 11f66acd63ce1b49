package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.model.FederationKeys;
import dev.pier.testkit.CapturedLog;
import dev.pier.testkit.Edits;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Federation on three real API servers: a host where federated Services are declared and two
 * members, east and west, each with Pier's local load balancer on its own pool and a backend on its
 * node, so that real traffic through each member's load balancer reaches that member's backend.
 */
@RealKubeApiServer
class FederationTest {
  private static final String EAST_POOL = "127.241.1.0/28";
  private static final String WEST_POOL = "127.241.2.0/28";
  private static final String HOST_POOL = "127.241.3.0/28";
  private static final Duration CONVERGE = InProcessPier.CONVERGE;

  /**
   * Pier's own user in each member (in system:masters, as the admin), so that the members' audit
   * logs tell its writes from the test's.
   */
  private static final String PIER_TOKEN = "pier-in-member-0123456789";

  private static final String PIER_USER = "pier";

  private static KubeApiServer host;
  private static KubeApiServer east;
  private static KubeApiServer west;
  private static Path eastForPier;
  private static Path westForPier;

  /** The federation's writes to copies in each member, failed ones included. */
  private static MemberWrites eastWrites;

  private static MemberWrites westWrites;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    host = server;
    east = member();
    west = member();
    eastForPier = east.kubeconfigFor(PIER_TOKEN);
    westForPier = west.kubeconfigFor(PIER_TOKEN);
    eastWrites = MemberWrites.of(east, PIER_USER);
    westWrites = MemberWrites.of(west, PIER_USER);
    east.createReadyNode(
        "east-1",
        "127.0.0.1",
        Map.of("topology.kubernetes.io/region", "eu", "topology.kubernetes.io/zone", "eu-a"));
    west.createReadyNode(
        "west-1",
        "127.0.0.1",
        Map.of("topology.kubernetes.io/region", "us", "topology.kubernetes.io/zone", "us-a"));
  }

  private static KubeApiServer member() {
    return KubeApiServer.builder()
        .withAuditLog()
        .withUser(PIER_TOKEN, PIER_USER, "system:masters")
        .start();
  }

  @AfterAll
  static void tearDown() {
    if (east != null) {
      east.close();
    }
    if (west != null) {
      west.close();
    }
  }

  /** Host, and the members listed, as a config file; west is optional (it may join by Secret). */
  private static String config(boolean withWest, String federationExtra) {
    return config(withWest, true, false, federationExtra);
  }

  private static String config(
      boolean withWest,
      boolean westLoadBalancers,
      boolean hostLoadBalancers,
      String federationExtra) {
    FederationConfig config =
        FederationConfig.host(host.kubeconfigPath())
            .loadBalancers(hostLoadBalancers)
            .pool(HOST_POOL)
            .member("east", eastForPier)
            .labels(Map.of("tier", "gold"))
            .pool(EAST_POOL);
    if (withWest) {
      config
          .member("west", westForPier)
          .loadBalancers(westLoadBalancers)
          .labels(Map.of("tier", "silver"))
          .pool(WEST_POOL);
    }
    return config.health("500ms", "400ms").federationYaml(federationExtra).yaml();
  }

  private static InProcessPier startPier(boolean withWest, String federationExtra) {
    return InProcessPier.startWithConfig(config(withWest, federationExtra), Map.of());
  }

  /** A host namespace opted in to the federation. */
  private static String namespace(String prefix) {
    String ns = host.createNamespace(prefix);
    FederatedServices.optIn(host.client(), ns);
    return ns;
  }

  private static Service copy(KubeApiServer member, String ns, String name) {
    return member.client().services().inNamespace(ns).withName(name).get();
  }

  private static Service awaitCopy(KubeApiServer member, String ns, String name) {
    await().atMost(CONVERGE).until(() -> copy(member, ns, name) != null);
    return copy(member, ns, name);
  }

  private static String annotation(String ns, String name) {
    Service s = host.client().services().inNamespace(ns).withName(name).get();
    return s == null || s.getMetadata().getAnnotations() == null
        ? null
        : s.getMetadata().getAnnotations().get(FederationKeys.INGRESSES_ANNOTATION);
  }

  private static List<String> hostIngress(String ns, String name) {
    Service s = host.client().services().inNamespace(ns).withName(name).get();
    if (s == null
        || s.getStatus() == null
        || s.getStatus().getLoadBalancer() == null
        || s.getStatus().getLoadBalancer().getIngress() == null) {
      return List.of();
    }
    return s.getStatus().getLoadBalancer().getIngress().stream().map(i -> i.getIp()).toList();
  }

  private static List<Event> hostEvents(String ns, String name) {
    return Services.events(host.client(), ns, name);
  }

  private static boolean hasEvent(String ns, String name, String reason, String text) {
    return hostEvents(ns, name).stream()
        .anyMatch(e -> reason.equals(e.getReason()) && e.getMessage().contains(text));
  }

  @Test
  void aFederatedServiceIsCopiedServedInEveryMemberAndAggregated() {
    String ns = namespace("fed-prop");
    try (InProcessPier pier = startPier(true, "")) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of("team", "a"))).create();

      Service e = awaitCopy(east, ns, "web");
      Service w = awaitCopy(west, ns, "web");
      for (Service c : List.of(e, w)) {
        assertThat(c.getMetadata().getLabels())
            .containsEntry(FederationKeys.FEDERATION_LABEL, "pier")
            .containsEntry("app", "web");
        assertThat(c.getMetadata().getAnnotations())
            .containsEntry("team", "a")
            .doesNotContainKey(FederationKeys.FEDERATED_ANNOTATION);
        assertThat(c.getSpec().getPorts().get(0).getPort()).isEqualTo(80);
      }
      // The namespace was created in the member, marked as made by the federation.
      assertThat(east.client().namespaces().withName(ns).get().getMetadata().getLabels())
          .containsEntry(FederationKeys.FEDERATION_LABEL, "pier");

      // Each member's own load balancer serves the copy, with real traffic to that member's node.
      String eastIp = Services.awaitIngress(east.client(), ns, "web");
      String westIp = Services.awaitIngress(west.client(), ns, "web");
      assertThat(eastIp).startsWith("127.241.1.");
      assertThat(westIp).startsWith("127.241.2.");
      try (TestBackend eb =
              TestBackend.start(
                  "east-1",
                  "127.0.0.1",
                  copy(east, ns, "web").getSpec().getPorts().get(0).getNodePort());
          TestBackend wb =
              TestBackend.start(
                  "west-1",
                  "127.0.0.1",
                  copy(west, ns, "web").getSpec().getPorts().get(0).getNodePort())) {
        await()
            .atMost(CONVERGE)
            .until(() -> Objects.toString(Traffic.get(eastIp, 80), "").contains("east-1"));
        await()
            .atMost(CONVERGE)
            .until(() -> Objects.toString(Traffic.get(westIp, 80), "").contains("west-1"));
      }

      // Status: the union, sorted; the annotation lists each member with ingress, empty items
      // while the member has no ready endpoints.
      await().atMost(CONVERGE).until(() -> hostIngress(ns, "web").size() == 2);
      assertThat(hostIngress(ns, "web")).containsExactly(eastIp, westIp);
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  ("{\"items\":[{\"cluster\":\"east\",\"items\":[]},"
                          + "{\"cluster\":\"west\",\"items\":[]}]}")
                      .equals(annotation(ns, "web")));
      FederatedServices.endpointSlice(east.client(), ns, "web", true);
      String expected =
          "{\"items\":[{\"cluster\":\"east\",\"items\":[{\"ip\":\""
              + eastIp
              + "\"}]},{\"cluster\":\"west\",\"items\":[]}]}";
      await().atMost(CONVERGE).until(() -> expected.equals(annotation(ns, "web")));
      // Events may wait while Service writes are in flight (KubeEventRecorder).
      await()
          .atMost(CONVERGE)
          .untilAsserted(
              () ->
                  assertThat(hostEvents(ns, "web").stream().map(Event::getReason))
                      .contains("CreatedInCluster"));
      Service hostSvc = host.client().services().inNamespace(ns).withName("web").get();
      assertThat(hostSvc.getMetadata().getFinalizers()).contains(FederationKeys.FINALIZER);

      // A change on the host follows to both copies; what each member allocated stays.
      String eastClusterIp = copy(east, ns, "web").getSpec().getClusterIP();
      int eastNodePort = copy(east, ns, "web").getSpec().getPorts().get(0).getNodePort();
      labelHostAndAwaitCopies(ns, "web", "version", "2");
      assertThat(copy(east, ns, "web").getSpec().getClusterIP()).isEqualTo(eastClusterIp);
      assertThat(copy(east, ns, "web").getSpec().getPorts().get(0).getNodePort())
          .isEqualTo(eastNodePort);

      // Cascading deletion: the copies go, then the host Service.
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(east, ns, "web") == null);
      await().atMost(CONVERGE).until(() -> copy(west, ns, "web") == null);
      await()
          .atMost(CONVERGE)
          .until(() -> host.client().services().inNamespace(ns).withName("web").get() == null);
    }
  }

  @Test
  void aMemberServiceThatPierDidNotCreateIsLeftUntouched() {
    String ns = namespace("fed-foreign");
    west.client()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    Service foreign =
        west.client()
            .resource(
                new ServiceBuilder()
                    .withNewMetadata()
                    .withNamespace(ns)
                    .withName("web")
                    .withLabels(Map.of("owner", "someone-else"))
                    .endMetadata()
                    .withNewSpec()
                    .withType("ClusterIP")
                    .addNewPort()
                    .withPort(9999)
                    .endPort()
                    .endSpec()
                    .build())
            .create();
    try (InProcessPier pier = startPier(true, "")) {
      Service web =
          host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      awaitCopy(east, ns, "web");
      // Untouched, because Pier found it and would not take it: not because it never looked.
      assertThat(
              PierSaw.event(host.client(), web, CONVERGE, "FederatedServiceConflict").getMessage())
          .contains("Cluster west");
      Service after = copy(west, ns, "web");
      assertThat(after.getMetadata().getResourceVersion())
          .isEqualTo(foreign.getMetadata().getResourceVersion());

      // Deleting the federated Service deletes east's copy; west's own Service stays. The host
      // Service goes only after the run that read every member's copy, west's included, released
      // it: that run saw west's Service and left it.
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(east, ns, "web") == null);
      await()
          .atMost(CONVERGE)
          .until(() -> host.client().services().inNamespace(ns).withName("web").get() == null);
      assertThat(copy(west, ns, "web").getMetadata().getResourceVersion())
          .isEqualTo(foreign.getMetadata().getResourceVersion());
    }
  }

  @Test
  void placementFollowsTheAnnotationsAndOrphaningKeepsTheCopies() {
    String ns = namespace("fed-place");
    try (InProcessPier pier = startPier(true, "");
        CapturedLog runs = CapturedLog.of(FederationReconciler.class)) {
      PierSaw.LogMark started = PierSaw.LogMark.now(runs::text);
      host.client()
          .resource(
              FederatedServices.federated(
                  ns, "web", Map.of(FederationKeys.CLUSTERS_ANNOTATION, "east")))
          .create();
      awaitCopy(east, ns, "web");
      // Only east is placed: west never gets a copy. West's run saw the Service and wanted none.
      PierSaw.logged(started, ns, "web", "no copy wanted in west", CONVERGE);
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> copy(west, ns, "web") == null);

      // Now by label selector: west only. East's copy goes, west's comes.
      Services.edit(
          host.client(),
          ns,
          "web",
          s -> {
            Map<String, String> a = new HashMap<>(s.getMetadata().getAnnotations());
            a.remove(FederationKeys.CLUSTERS_ANNOTATION);
            a.put(FederationKeys.CLUSTER_SELECTOR_ANNOTATION, "tier in (silver)");
            return new ServiceBuilder(s).editMetadata().withAnnotations(a).endMetadata().build();
          });
      awaitCopy(west, ns, "web");
      await().atMost(CONVERGE).until(() -> copy(east, ns, "web") == null);
      await().atMost(CONVERGE).until(() -> hasEvent(ns, "web", "DeletedInCluster", "Cluster east"));

      // Orphaning deletion: the copy stays without the federation's marks.
      Services.edit(
          host.client(),
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editMetadata()
                  .addToAnnotations(FederationKeys.DELETE_POLICY_ANNOTATION, "orphan")
                  .endMetadata()
                  .build());
      host.client().services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(CONVERGE)
          .until(() -> host.client().services().inNamespace(ns).withName("web").get() == null);
      Service left = copy(west, ns, "web");
      assertThat(left).isNotNull();
      assertThat(left.getMetadata().getLabels()).doesNotContainKey(FederationKeys.FEDERATION_LABEL);
      assertThat(left.getMetadata().getAnnotations())
          .doesNotContainKey(FederationKeys.HOST_CLUSTER_UID_ANNOTATION);
    }
  }

  @Test
  void anUnreadyMemberKeepsItsIngressOrDropsItAndComesBack() {
    String ns = namespace("fed-health");
    for (String mode : List.of("keep", "drop")) {
      String name = "web-" + mode;
      try (InProcessPier pier = startPier(true, "  unreadyClusters: " + mode + "\n")) {
        host.client().resource(FederatedServices.federated(ns, name, Map.of())).create();
        String westIp = Services.awaitIngress(west.client(), ns, name);
        await().atMost(CONVERGE).until(() -> hostIngress(ns, name).contains(westIp));
        assertThat(ready(pier, "west")).isEqualTo(1.0);

        west.freeze();
        try {
          // Unready after 3 failed probes of 400 ms every 500 ms.
          await().atMost(Duration.ofSeconds(15)).until(() -> ready(pier, "west") == 0.0);
          await()
              .atMost(CONVERGE)
              .until(() -> hasEvent(ns, name, "ClusterUnreachable", "Cluster west"));
          if (mode.equals("keep")) {
            await()
                .during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> hostIngress(ns, name).contains(westIp));
          } else {
            await().atMost(CONVERGE).until(() -> !hostIngress(ns, name).contains(westIp));
            assertThat(annotation(ns, name)).contains("{\"cluster\":\"west\",\"items\":[]}");
          }
        } finally {
          west.thaw();
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> ready(pier, "west") == 1.0);
        await().atMost(CONVERGE).until(() -> hostIngress(ns, name).contains(westIp));
        host.client().services().inNamespace(ns).withName(name).delete();
        await()
            .atMost(CONVERGE)
            .until(() -> copy(west, ns, name) == null && copy(east, ns, name) == null);
      }
    }
  }

  /**
   * Whoever can create a Service on the host cannot, by that alone, create Services or namespaces
   * in the members: a namespace must be opted in first (a label only namespace editors can set).
   */
  @Test
  void aNamespaceNotOptedInReachesNoMemberUntilItIsLabelled() {
    String ns = host.createNamespace("fed-not-opted");
    try (InProcessPier pier = startPier(true, "")) {
      Service web =
          host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      assertThat(PierSaw.event(host.client(), web, CONVERGE, "FederationNotAllowed").getMessage())
          .contains("is not opted in");
      holds(
          Duration.ofSeconds(1),
          () -> {
            assertThat(copy(east, ns, "web")).isNull();
            assertThat(copy(west, ns, "web")).isNull();
            assertThat(east.client().namespaces().withName(ns).get())
                .as("member namespace")
                .isNull();
            assertThat(host.client().services().inNamespace(ns).withName("web").get())
                .extracting(s -> s.getMetadata().getFinalizers())
                .asList()
                .isEmpty();
          });

      FederatedServices.optIn(host.client(), ns);
      awaitCopy(east, ns, "web");
      awaitCopy(west, ns, "web");
      host.client().services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(CONVERGE)
          .until(() -> copy(east, ns, "web") == null && copy(west, ns, "web") == null);
    }
  }

  @Test
  void renamingAPortOnTheHostKeepsEveryCopysNodePortAndAddress() {
    String ns = namespace("fed-rename");
    try (InProcessPier pier = startPier(true, "")) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      String eastIp = Services.awaitIngress(east.client(), ns, "web");
      int nodePort = awaitCopy(east, ns, "web").getSpec().getPorts().get(0).getNodePort();

      Services.edit(
          host.client(),
          ns,
          "web",
          s ->
              new io.fabric8.kubernetes.api.model.ServiceBuilder(s)
                  .editSpec()
                  .editFirstPort()
                  .withName("renamed")
                  .endPort()
                  .endSpec()
                  .build());
      await()
          .atMost(CONVERGE)
          .until(
              () -> "renamed".equals(copy(east, ns, "web").getSpec().getPorts().get(0).getName()));
      assertThat(copy(east, ns, "web").getSpec().getPorts().get(0).getNodePort())
          .isEqualTo(nodePort);
      assertThat(Services.ingressIp(east.client(), ns, "web")).isEqualTo(eastIp);
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(east, ns, "web") == null);
    }
  }

  @Test
  void aMemberJoinsAndLeavesThroughItsSecret() {
    String ns = namespace("fed-join");
    String secretNs = secretNamespace();
    try (InProcessPier pier = startPier(false, "  leaveGrace: 2s\n")) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      awaitCopy(east, ns, "web");
      assertThat(copy(west, ns, "web")).isNull();

      host.client().resource(westSecret(secretNs, Map.of())).create();
      awaitCopy(west, ns, "web");
      await().atMost(CONVERGE).until(() -> ready(pier, "west") == 1.0);

      // An edit that breaks the Secret (here an exec plugin) is refused by field name, and west
      // stays connected as before: no disconnect, no copy deleted.
      String good = west.selfContainedKubeconfig();
      editKubeconfig(
          secretNs,
          good.replaceAll(
              "    token: .*\n",
              "    exec:\n      command: sh\n      args: [\"-c\", \"echo pwned\"]\n"));
      await()
          .atMost(CONVERGE)
          .until(
              () -> hasEvent(secretNs, "member-west", "InvalidMemberSecret", "users[0].user.exec"));
      assertThat(hostEvents(secretNs, "member-west"))
          .noneMatch(e -> e.getMessage().contains("pwned"));
      // Another API server for the same member is never a silent reconnect.
      editKubeconfig(secretNs, good.replace(west.url(), east.url()));
      await()
          .atMost(CONVERGE)
          .until(() -> hasEvent(secretNs, "member-west", "InvalidMemberSecret", "changed"));
      assertThat(ready(pier, "west")).isEqualTo(1.0);
      assertThat(copy(west, ns, "web")).isNotNull();
      assertThat(copy(east, ns, "web").getMetadata().getUid())
          .isNotEqualTo(copy(west, ns, "web").getMetadata().getUid());
      editKubeconfig(secretNs, good);

      String westUid = copyUid(west, ns);

      // Deleted and created again identically, or unlabelled and labelled again, within the leave
      // grace: nothing changes, the copy keeps its uid (and its address, on a real cloud).
      // Pier's finalizer holds a deleted member Secret only until the leave is recorded; like
      // kubectl delete, the test waits for it to be gone before creating it again.
      host.client().secrets().inNamespace(secretNs).withName("member-west").delete();
      await().atMost(CONVERGE).until(() -> westSecretGone(secretNs));
      assertThat(leaveRecord(secretNs)).isNotNull();
      host.client().resource(westSecret(secretNs, Map.of())).create();
      await().atMost(CONVERGE).until(() -> leaveRecord(secretNs) == null);
      relabelWest(secretNs, null);
      relabelWest(secretNs, "west");
      long afterGrace = System.nanoTime() + Duration.ofSeconds(4).toNanos();
      await().atMost(CONVERGE).until(() -> System.nanoTime() > afterGrace);
      assertThat(copyUid(west, ns)).isEqualTo(westUid);
      assertThat(owned(copy(west, ns, "web"))).isTrue();
      assertThat(ready(pier, "west")).isEqualTo(1.0);

      // Its Secret deleted for good: after the grace west leaves, and its copy stays serving
      // without Pier's marks (deleting copies is a choice the Secret states, never a default).
      host.client().secrets().inNamespace(secretNs).withName("member-west").delete();
      await().atMost(CONVERGE).until(() -> !owned(copy(west, ns, "web")));
      assertThat(copyUid(west, ns)).isEqualTo(westUid);

      // With pier.dev/leave-policy: delete-copies, leaving deletes the copies Pier owns.
      west.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(west, ns, "web") == null);
      host.client()
          .resource(
              westSecret(secretNs, Map.of(FederationKeys.LEAVE_POLICY_ANNOTATION, "delete-copies")))
          .create();
      await().atMost(CONVERGE).until(() -> owned(copy(west, ns, "web")));
      host.client().secrets().inNamespace(secretNs).withName("member-west").delete();
      await().atMost(CONVERGE).until(() -> copy(west, ns, "web") == null);
      assertThat(copy(east, ns, "web")).isNotNull();
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(east, ns, "web") == null);
    }
  }

  /**
   * A member Secret deleted while Pier is down waits for it (Pier's finalizer); a Pier that starts
   * then records the leave, with the member's last credentials, in a Secret that survives the next
   * restart, and the member leaves when the record says, however often Pier restarts meanwhile.
   */
  @Test
  void aMembersLeaveSurvivesPierRestarts() {
    String ns = namespace("fed-leave-restart");
    String secretNs = secretNamespace();
    // What another test may have left: a leave record of west would make it leave at once.
    host.client().secrets().inNamespace(secretNs).withName("pier-leaving-west").delete();
    await().atMost(CONVERGE).until(() -> leaveRecord(secretNs) == null && westSecretGone(secretNs));
    host.client().resource(westSecret(secretNs, Map.of())).create();
    try (InProcessPier pier = startPier(false, "  leaveGrace: 1h\n")) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      awaitCopy(west, ns, "web");
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  westSecret(secretNs)
                      .getMetadata()
                      .getFinalizers()
                      .contains(FederationKeys.MEMBER_SECRET_FINALIZER));
    }
    String westUid = copyUid(west, ns);

    // Deleted while Pier is down: the Secret waits, with its credentials, for Pier.
    host.client().secrets().inNamespace(secretNs).withName("member-west").delete();
    assertThat(westSecret(secretNs).getMetadata().getDeletionTimestamp()).isNotNull();

    try (InProcessPier pier = startPier(false, "  leaveGrace: 1h\n")) {
      await().atMost(CONVERGE).until(() -> westSecretGone(secretNs));
      Secret record = leaveRecord(secretNs);
      assertThat(record.getMetadata().getLabels())
          .containsEntry(FederationKeys.LEAVING_LABEL, "west")
          .doesNotContainKey(FederationKeys.CLUSTER_SECRET_LABEL);
      assertThat(record.getMetadata().getAnnotations())
          .containsKey(FederationKeys.LEAVE_AT_ANNOTATION);
      // Within the grace west stays a member: its copy is Pier's and in sync.
      await().atMost(CONVERGE).until(() -> ready(pier, "west") == 1.0);
      assertThat(owned(copy(west, ns, "web"))).isTrue();
    }

    // The grace is over while Pier is down (the record's time moved back, as time would pass).
    Edits.retrying(
        host.client().secrets().inNamespace(secretNs).withName("pier-leaving-west"),
        r -> {
          r.getMetadata()
              .getAnnotations()
              .put(FederationKeys.LEAVE_AT_ANNOTATION, java.time.Instant.now().toString());
          return r;
        });
    try (InProcessPier pier = startPier(false, "  leaveGrace: 1h\n")) {
      // West leaves with the recorded credentials: its copy is orphaned, serving as before.
      await().atMost(CONVERGE).until(() -> !owned(copy(west, ns, "web")));
      assertThat(copyUid(west, ns)).isEqualTo(westUid);
      await().atMost(CONVERGE).until(() -> leaveRecord(secretNs) == null);
      host.client().services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(CONVERGE)
          .until(() -> host.client().services().inNamespace(ns).withName("web").get() == null);
    }
    west.client().services().inNamespace(ns).withName("web").delete();
  }

  /** The host namespace of the member Secrets (federation.secretNamespace), created once. */
  private static String secretNamespace() {
    String secretNs = "pier";
    if (host.client().namespaces().withName(secretNs).get() == null) {
      host.client()
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(secretNs).endMetadata().build())
          .create();
    }
    return secretNs;
  }

  private static Secret westSecret(String secretNs) {
    return host.client().secrets().inNamespace(secretNs).withName("member-west").get();
  }

  private static boolean westSecretGone(String secretNs) {
    return westSecret(secretNs) == null;
  }

  private static Secret leaveRecord(String secretNs) {
    return host.client().secrets().inNamespace(secretNs).withName("pier-leaving-west").get();
  }

  private static Secret westSecret(String secretNs, Map<String, String> annotations) {
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace(secretNs)
        .withName("member-west")
        .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, "west", "tier", "silver"))
        .withAnnotations(annotations)
        .endMetadata()
        .withStringData(Map.of("kubeconfig", west.selfContainedKubeconfig()))
        .build();
  }

  /** Sets (or with null removes) the member Secret's pier.dev/cluster label. */
  /**
   * As {@code kubectl label} does: a merge patch, which Pier's own writes to the Secret never
   * conflict with.
   */
  private static void relabelWest(String secretNs, String member) {
    host.client()
        .secrets()
        .inNamespace(secretNs)
        .withName("member-west")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            new JsonObject()
                .put(
                    "metadata",
                    new JsonObject()
                        .put(
                            "labels",
                            new JsonObject().put(FederationKeys.CLUSTER_SECRET_LABEL, member)))
                .encode());
  }

  private static String copyUid(KubeApiServer member, String ns) {
    Service c = copy(member, ns, "web");
    return c == null ? null : c.getMetadata().getUid();
  }

  /** Whether the copy carries this federation's mark. */
  private static boolean owned(Service copy) {
    return copy != null
        && copy.getMetadata().getLabels() != null
        && copy.getMetadata().getLabels().containsKey(FederationKeys.FEDERATION_LABEL);
  }

  @Test
  void aMemberWithoutPiersLoadBalancersIsReadAndTheHostServesOnlyItsOwnServices() {
    String ns = namespace("fed-read");
    host.createReadyNode("host-1", "127.0.0.1", Map.of());
    try (InProcessPier pier =
        InProcessPier.startWithConfig(config(true, false, true, ""), Map.of())) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      host.client().resource(Services.loadBalancer(ns, "plain", 80, host.freeNodePort())).create();
      // The host's own controller serves its non-federated Service.
      assertThat(Services.awaitIngress(host.client(), ns, "plain")).startsWith("127.241.3.");

      String eastIp = Services.awaitIngress(east.client(), ns, "web");
      Service westCopy = awaitCopy(west, ns, "web");
      // Nothing serves load balancers in west but what runs there: write its ingress as a cloud's
      // controller would. Pier reads it.
      west.client()
          .services()
          .inNamespace(ns)
          .resource(
              new ServiceBuilder(westCopy)
                  .withNewStatus()
                  .withNewLoadBalancer()
                  .addNewIngress()
                  .withIp("203.0.113.7")
                  .endIngress()
                  .endLoadBalancer()
                  .endStatus()
                  .build())
          .updateStatus();
      await()
          .atMost(CONVERGE)
          .until(() -> hostIngress(ns, "web").equals(List.of(eastIp, "203.0.113.7")));
      // The federated Service never got a load balancer of the host's own. The host's load-balancer
      // controller saw it: its watch delivers web's creation before plain's, created after it,
      // which that controller served above; and the aggregate's status write on web since.
      Service web = host.client().services().inNamespace(ns).withName("web").get();
      assertThat(web.getMetadata().getFinalizers())
          .doesNotContain("service.kubernetes.io/load-balancer-cleanup");
      assertThat(hostIngress(ns, "web")).noneMatch(ip -> ip.startsWith("127.241.3."));
      // West's copy got no load balancer from Pier either.
      assertThat(copy(west, ns, "web").getMetadata().getFinalizers())
          .doesNotContain("service.kubernetes.io/load-balancer-cleanup");

      host.client().services().inNamespace(ns).withName("web").delete();
      host.client().services().inNamespace(ns).withName("plain").delete();
      await()
          .atMost(CONVERGE)
          .until(() -> copy(east, ns, "web") == null && copy(west, ns, "web") == null);
    }
  }

  @Test
  void anUnreachableMemberHoldsADeletionOnlyUntilTheTimeoutAndItsCopyGoesWhenItIsBack() {
    String ns = namespace("fed-timeout");
    // Where Pier keeps the uid of a copy a release left behind, as the deployment has it.
    String secretNs = secretNamespace();
    try (InProcessPier pier = startPier(true, "  deleteTimeout: 3s\n")) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      awaitCopy(east, ns, "web");
      awaitCopy(west, ns, "web");
      await().atMost(CONVERGE).until(() -> hostIngress(ns, "web").size() == 2);

      west.freeze();
      try {
        await().atMost(Duration.ofSeconds(15)).until(() -> ready(pier, "west") == 0.0);
        host.client().services().inNamespace(ns).withName("web").delete();
        await().atMost(CONVERGE).until(() -> copy(east, ns, "web") == null);
        // The host Service waits for west, but not beyond the timeout.
        await()
            .atMost(CONVERGE)
            .until(() -> host.client().services().inNamespace(ns).withName("web").get() == null);
        await()
            .atMost(CONVERGE)
            .until(() -> hasEvent(ns, "web", "FederatedDeletionTimedOut", "west"));
        // The host Service's record of its copies went with it; west's copy is in the record of
        // copies left behind, written before the finalizer went.
        assertThat(
                host.client()
                    .secrets()
                    .inNamespace(secretNs)
                    .withName(FederationKeys.LEFT_COPIES_SECRET_PREFIX + "pier")
                    .get()
                    .getData())
            .containsOnlyKeys("west." + ns + ".web");
      } finally {
        west.thaw();
      }
      // West is back: the copy Pier made there, of a Service that no longer exists, goes; the
      // record of it went with the host Service, and the one of copies left behind proves it.
      await().atMost(CONVERGE).until(() -> copy(west, ns, "web") == null);
      // Once the copy is gone, so is its entry, and the Secret with its last one.
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  host.client()
                          .secrets()
                          .inNamespace(secretNs)
                          .withName(FederationKeys.LEFT_COPIES_SECRET_PREFIX + "pier")
                          .get()
                      == null);
      await()
          .atMost(CONVERGE)
          .untilAsserted(
              () ->
                  assertThat(
                          Services.events(west.client(), ns, "web").stream()
                              .map(Event::getReason)
                              .toList())
                      .contains("DeletedOrphanedCopy"));
    }
  }

  /**
   * A copy that another controller's finalizer holds in a reachable member: Pier deletes it once,
   * says so with a Warning, and releases the host Service at the delete timeout instead of holding
   * it forever with a DELETE every two seconds.
   */
  @Test
  void aCopyHeldByAFinalizerInTheMemberHoldsTheHostServiceOnlyUntilTheTimeout() {
    String ns = namespace("fed-stuck");
    try (InProcessPier pier = startPier(true, "  deleteTimeout: 4s\n")) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      awaitCopy(east, ns, "web");
      awaitCopy(west, ns, "web");
      Edits.retrying(
          west.client().services().inNamespace(ns).withName("web"),
          s ->
              new ServiceBuilder(s)
                  .editMetadata()
                  .addToFinalizers("example.com/hold")
                  .endMetadata()
                  .build());

      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(east, ns, "web") == null);
      await()
          .atMost(CONVERGE)
          .until(() -> copy(west, ns, "web").getMetadata().getDeletionTimestamp() != null);
      await()
          .atMost(CONVERGE)
          .until(() -> hasEvent(ns, "web", "FederatedCopyTerminating", "example.com/hold"));
      await()
          .atMost(CONVERGE)
          .until(() -> host.client().services().inNamespace(ns).withName("web").get() == null);
      // Events are written after the Service writes: the Service may be gone first.
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  hasEvent(
                      ns, "web", "FederatedDeletionTimedOut", "west are still held by finalizers"));
      // The member's own controller lets go: the copy goes.
      Edits.retrying(
          west.client().services().inNamespace(ns).withName("web"),
          s ->
              new ServiceBuilder(s).editMetadata().withFinalizers(List.of()).endMetadata().build());
      await().atMost(CONVERGE).until(() -> copy(west, ns, "web") == null);
    }
  }

  /**
   * A placement edit that takes Services out of a member (here every one of them: a typo in a
   * selector does the same) deletes copies only within the deletion guard's limit; the rest are
   * held and reported until an operator confirms.
   */
  @Test
  void copiesThatPlacementNoLongerWantsGoOnlyWithinTheDeletionGuard() {
    String ns = namespace("fed-guard");
    String guarded = config(true, "") + "deletionGuard:\n  minDeletions: 1\n  maxPercent: 0\n";
    try (InProcessPier pier = InProcessPier.startWithConfig(guarded, Map.of())) {
      List<String> names = List.of("web-0", "web-1", "web-2");
      for (String name : names) {
        host.client().resource(FederatedServices.federated(ns, name, Map.of())).create();
      }
      for (String name : names) {
        awaitCopy(west, ns, name);
      }
      for (String name : names) {
        Services.edit(
            host.client(),
            ns,
            name,
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .addToAnnotations(FederationKeys.CLUSTERS_ANNOTATION, "east")
                    .endMetadata()
                    .build());
      }
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  names.stream()
                          .filter(n -> hasEvent(ns, n, "LoadBalancerDeletionHeld", "west"))
                          .count()
                      == 2);
      // The one deletion the guard lets through completes once west's load balancer of it is
      // gone (Pier's load-balancer finalizer there holds the copy until then); the two held stay.
      await()
          .atMost(CONVERGE)
          .until(() -> names.stream().filter(n -> copy(west, ns, n) != null).count() == 2);
      holds(
          Duration.ofSeconds(2),
          () -> {
            assertThat(names.stream().filter(n -> copy(west, ns, n) != null).count())
                .as("copies left in west")
                .isEqualTo(2);
            assertThat(names.stream().filter(n -> copy(east, ns, n) != null).count())
                .as("copies in east")
                .isEqualTo(3);
          });
      for (String name : names) {
        host.client().services().inNamespace(ns).withName(name).delete();
      }
      // Deleting the host Services is asked for: their copies go, whatever the guard holds.
      await().atMost(CONVERGE).until(() -> names.stream().allMatch(n -> copy(west, ns, n) == null));
    }
  }

  /**
   * Another controller in a member keeps patching the copy's labels and annotations: its keys
   * stick, and Pier writes nothing for them (it used to rewrite labels and annotations whole, one
   * write per foreign patch); a change on the host is one write per member (the first one to a copy
   * Pier created follows the one-time move of its fields to Pier's apply manager).
   */
  @Test
  void anotherControllersKeysOnACopyStickAndCostNoWrite() {
    String ns = namespace("fed-foreign");
    try (CapturedLog runs = CapturedLog.of(FederationReconciler.class);
        InProcessPier pier = startPier(true, "")) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      awaitCopy(east, ns, "web");
      awaitCopy(west, ns, "web");
      await().atMost(CONVERGE).until(() -> hostIngress(ns, "web").size() == 2);
      int created = westWrites.count(ns, "web");
      int eastCreated = eastWrites.count(ns, "web");
      labelHostAndAwaitCopies(ns, "web", "tier", "gold");
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(westWrites.since(created, ns, "web"))
                    .as("the one-time move of a fresh copy's fields, then the first change's apply")
                    .hasSize(2);
                assertThat(eastWrites.since(eastCreated, ns, "web")).hasSize(2);
              });
      // Settled: a run decided on west's copy as it is now.
      sawMemberRun(runs, "west", ns, "web", resourceVersion(west, ns, "web"));
      int before = westWrites.count(ns, "web");

      for (int i = 0; i < 10; i++) {
        int n = i;
        Service patched =
            Services.edit(
                west.client(),
                ns,
                "web",
                s ->
                    new ServiceBuilder(s)
                        .editMetadata()
                        .addToLabels("policy.example.com/round", "r" + n)
                        .addToAnnotations("controller.example.com/seen", "r" + n)
                        .endMetadata()
                        .build());
        // "No write" is Pier's decision only once a run of west's key looked at this patch.
        sawMemberRun(runs, "west", ns, "web", patched.getMetadata().getResourceVersion());
      }
      holds(
          Duration.ofSeconds(3),
          () ->
              assertThat(westWrites.since(before, ns, "web"))
                  .as("the federation's writes to west's copy for 10 foreign patches")
                  .isEmpty());
      Service copy = copy(west, ns, "web");
      assertThat(copy.getMetadata().getLabels()).containsEntry("policy.example.com/round", "r9");
      assertThat(copy.getMetadata().getAnnotations())
          .containsEntry("controller.example.com/seen", "r9");

      // A change on the host: one write to each member's copy, the foreign keys kept; then none.
      int eastBefore = eastWrites.count(ns, "web");
      labelHostAndAwaitCopies(ns, "web", "tier", "silver");
      sawMemberRun(runs, "east", ns, "web", resourceVersion(east, ns, "web"));
      sawMemberRun(runs, "west", ns, "web", resourceVersion(west, ns, "web"));
      // The API server logs a request's audit event after it answered: wait for it to be there.
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  westWrites.count(ns, "web") > before && eastWrites.count(ns, "web") > eastBefore);
      holds(
          Duration.ofSeconds(2),
          () -> {
            assertThat(westWrites.since(before, ns, "web"))
                .as("the federation's writes to west's copy for one change on the host")
                .hasSize(1);
            assertThat(eastWrites.since(eastBefore, ns, "web"))
                .as("the federation's writes to east's copy for one change on the host")
                .hasSize(1);
          });
      assertThat(copy(west, ns, "web").getMetadata().getLabels())
          .containsEntry("policy.example.com/round", "r9");
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(west, ns, "web") == null);
    }
  }

  /**
   * A member's policy engine sets spec fields the host leaves at their defaults: they stay, and
   * Pier writes nothing for them. Copies are applied server-side under Pier's own field manager, so
   * a host change is one write per member that keeps them. When the host then sets a field the
   * engine owns to another value, Pier does not overwrite it: one Warning, the copy unchanged, no
   * retry loop (no write at all, refused ones counted, until the copy or the host changes again).
   */
  @Test
  void anotherControllersSpecFieldsStayAndAConflictIsAWarningNotALoop() {
    String ns = namespace("fed-ssa");
    try (CapturedLog runs = CapturedLog.of(FederationReconciler.class);
        InProcessPier pier = startPier(true, "")) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      awaitCopy(east, ns, "web");
      awaitCopy(west, ns, "web");
      await().atMost(CONVERGE).until(() -> hostIngress(ns, "web").size() == 2);
      sawMemberRun(runs, "west", ns, "web", resourceVersion(west, ns, "web"));
      int before = westWrites.count(ns, "web");

      Service engine =
          patchAs(
              west,
              "policy-engine",
              ns,
              "web",
              "{\"spec\":{\"externalTrafficPolicy\":\"Local\","
                  + "\"loadBalancerSourceRanges\":[\"10.0.0.0/8\"]}}");
      sawMemberRun(runs, "west", ns, "web", engine.getMetadata().getResourceVersion());
      holds(
          Duration.ofSeconds(3),
          () -> {
            assertThat(westWrites.since(before, ns, "web"))
                .as("the federation's writes for a member controller's spec fields")
                .isEmpty();
            Service theirs = copy(west, ns, "web");
            assertThat(theirs.getSpec().getExternalTrafficPolicy()).isEqualTo("Local");
            assertThat(theirs.getSpec().getLoadBalancerSourceRanges())
                .containsExactly("10.0.0.0/8");
          });

      labelHostAndAwaitCopies(ns, "web", "tier", "gold");
      Service applied = copy(west, ns, "web");
      assertThat(applied.getSpec().getExternalTrafficPolicy()).isEqualTo("Local");
      assertThat(applied.getMetadata().getManagedFields())
          .anyMatch(
              f -> "pier-federation".equals(f.getManager()) && "Apply".equals(f.getOperation()));
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(westWrites.since(before, ns, "web"))
                      .as("the one-time move of a fresh copy's fields, then the label's apply")
                      .hasSize(2));

      int beforeConflict = westWrites.count(ns, "web");
      Services.edit(
          host.client(),
          ns,
          "web",
          s ->
              new ServiceBuilder(s)
                  .editSpec()
                  .withLoadBalancerSourceRanges("192.168.0.0/16")
                  .endSpec()
                  .build());
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  List.of("192.168.0.0/16")
                      .equals(copy(east, ns, "web").getSpec().getLoadBalancerSourceRanges()));
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  hasEvent(
                          ns, "web", "FederatedCopyFieldConflict", ".spec.loadBalancerSourceRanges")
                      && hasEvent(ns, "web", "FederatedCopyFieldConflict", "policy-engine"));
      // One refused apply, one Warning, and nothing after it: refused writes count, and repeats of
      // the Warning would only raise the one Event's count. (The API server logs a request's audit
      // event after it answered: wait for the refused apply to be there first.)
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> westWrites.count(ns, "web") > beforeConflict);
      holds(
          Duration.ofSeconds(3),
          () -> {
            assertThat(westWrites.since(beforeConflict, ns, "web"))
                .as("the federation's writes to west's copy since the conflicting host change")
                .hasSize(1)
                .allMatch(w -> w.endsWith("-> 409"));
            assertThat(conflicts(ns, "web")).as("the conflict Event's count").isEqualTo(1);
            assertThat(copy(west, ns, "web").getSpec().getLoadBalancerSourceRanges())
                .containsExactly("10.0.0.0/8");
          });
      // Pier is alive past the window and tries again at the copy's next change, not before:
      // one more refused apply, counted on the same Event.
      Service touched =
          patchAs(
              west,
              "someone-else",
              ns,
              "web",
              "{\"metadata\":{\"annotations\":{\"example.com/touched\":\"yes\"}}}");
      sawMemberRun(runs, "west", ns, "web", touched.getMetadata().getResourceVersion());
      await()
          .atMost(CONVERGE)
          .untilAsserted(
              () -> {
                assertThat(westWrites.since(beforeConflict, ns, "web"))
                    .as("the federation's writes to west's copy since the conflicting host change")
                    .hasSize(2)
                    .allMatch(w -> w.endsWith("-> 409"));
                assertThat(conflicts(ns, "web")).as("the conflict Event's count").isEqualTo(2);
              });
      assertThat(
              hostEvents(ns, "web").stream()
                  .filter(e -> "FederatedCopyFieldConflict".equals(e.getReason()))
                  .count())
          .as("one aggregated Event")
          .isEqualTo(1);
      assertThat(copy(west, ns, "web").getSpec().getLoadBalancerSourceRanges())
          .containsExactly("10.0.0.0/8");
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(west, ns, "web") == null);
    }
  }

  /**
   * Asserts that {@code check} holds through {@code window}, checked every 250 ms from now on: a
   * "nothing happens" window asserted throughout, not once at its end. Fails with the first check
   * that did not hold, and when.
   */
  private static void holds(Duration window, ThrowingRunnable check) {
    long start = System.nanoTime();
    java.util.concurrent.atomic.AtomicReference<String> broken =
        new java.util.concurrent.atomic.AtomicReference<>();
    try {
      await()
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(250))
          .during(window)
          .atMost(window.plus(Duration.ofSeconds(2)))
          .untilAsserted(
              () -> {
                try {
                  check.run();
                } catch (AssertionError e) {
                  broken.compareAndSet(
                      null,
                      (System.nanoTime() - start) / 1_000_000
                          + " ms into the window of "
                          + window
                          + ": "
                          + e.getMessage());
                  throw e;
                }
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("did not hold through the window, first broken " + broken.get(), e);
    }
    if (broken.get() != null) {
      throw new AssertionError("did not hold through the window, broken " + broken.get());
    }
  }

  /** How often the host Service's conflict Warning was reported: its Events' counts, summed. */
  private static long conflicts(String ns, String name) {
    return Services.eventCount(host.client(), ns, name, "FederatedCopyFieldConflict");
  }

  /**
   * A copy as Pier wrote it before it applied server-side (created whole, its fields owned by the
   * client's default manager): Pier leaves it alone until the host changes, then moves the fields
   * it wrote to its apply manager once, so a label dropped on the host goes and another
   * controller's label stays.
   */
  @Test
  void aCopyWrittenBeforeServerSideApplyMovesToPiersApplyOwnershipOnce() {
    String ns = namespace("fed-migrate");
    // As the earlier version left it: federated, with its finalizer, and no record of its copies.
    Service hostSvc =
        new ServiceBuilder(
                FederatedServices.federated(
                    ns, "web", Map.of(FederationKeys.CLUSTERS_ANNOTATION, "east")))
            .editMetadata()
            .addToLabels(Map.of("a", "1", "b", "2"))
            .addToFinalizers(FederationKeys.FINALIZER)
            .endMetadata()
            .build();
    Service created = host.client().resource(hostSvc).create();
    String hostClusterUid =
        host.client().namespaces().withName("kube-system").get().getMetadata().getUid();
    Service old =
        dev.pier.federation.MemberServices.desired(
            created, FederatedServices.FEDERATION, hostClusterUid, created.getMetadata().getUid());
    old.getSpec().setType("LoadBalancer");
    old.getSpec().setSessionAffinity("None");
    old.getSpec().setExternalTrafficPolicy("Cluster");
    east.client()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    east.client().resource(old).create();
    patchAs(east, "policy-engine", ns, "web", "{\"metadata\":{\"labels\":{\"policy\":\"x\"}}}");

    try (CapturedLog runs = CapturedLog.of(FederationReconciler.class);
        InProcessPier pier = startPier(true, "")) {
      Services.awaitIngress(east.client(), ns, "web");
      sawMemberRun(runs, "east", ns, "web", resourceVersion(east, ns, "web"));
      holds(
          Duration.ofSeconds(2),
          () ->
              assertThat(eastWrites.described(ns, "web"))
                  .as("the federation's writes to a copy that matches")
                  .isEmpty());

      Services.edit(
          host.client(),
          ns,
          "web",
          s -> new ServiceBuilder(s).editMetadata().removeFromLabels("b").endMetadata().build());
      await()
          .atMost(CONVERGE)
          .until(() -> !copy(east, ns, "web").getMetadata().getLabels().containsKey("b"));
      Service migrated = copy(east, ns, "web");
      assertThat(migrated.getMetadata().getLabels())
          .containsEntry("a", "1")
          .containsEntry("policy", "x");
      assertThat(migrated.getMetadata().getManagedFields())
          .filteredOn(f -> "pier-federation".equals(f.getManager()))
          .extracting(f -> f.getOperation())
          .containsExactly("Apply");
      sawMemberRun(runs, "east", ns, "web", migrated.getMetadata().getResourceVersion());
      // The API server logs a request's audit event after it answered: wait for it to be there.
      await().atMost(Duration.ofSeconds(5)).until(() -> eastWrites.count(ns, "web") >= 2);
      holds(
          Duration.ofSeconds(3),
          () ->
              assertThat(eastWrites.described(ns, "web"))
                  .as("the one-time move of Pier's fields, then one apply, for one host change")
                  .hasSize(2)
                  .allMatch(w -> w.contains(" patch ") && w.endsWith("-> 200")));
      assertThat(Services.eventCount(host.client(), ns, "web", "UpdatedInCluster"))
          .as("updates reported")
          .isEqualTo(1);
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(east, ns, "web") == null);
    }
  }

  private static Service patchAs(
      KubeApiServer member, String manager, String ns, String name, String mergePatch) {
    return member
        .client()
        .services()
        .inNamespace(ns)
        .withName(name)
        .patch(
            new io.fabric8.kubernetes.client.dsl.base.PatchContext.Builder()
                .withPatchType(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE)
                .withFieldManager(manager)
                .build(),
            mergePatch);
  }

  /**
   * The members' Service caches resync every second here: each resync checks the copies, but the
   * host's aggregate (and with it the DNS backend) runs only for a real change.
   */
  @Test
  void aResyncThatChangesNothingRunsNoAggregate() {
    String ns = namespace("fed-resync");
    String fastResync = config(true, "") + "watch:\n  serviceResync: 1s\n";
    try (CapturedLog runs = CapturedLog.of(FederationReconciler.class);
        InProcessPier pier = InProcessPier.startWithConfig(fastResync, Map.of())) {
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
      awaitCopy(east, ns, "web");
      awaitCopy(west, ns, "web");
      await().atMost(CONVERGE).until(() -> hostIngress(ns, "web").size() == 2);
      double hostRuns = hostRunsSettled(pier);
      PierSaw.LogMark mark = PierSaw.LogMark.now(runs::text);
      holds(
          Duration.ofSeconds(5),
          () ->
              assertThat(runs(pier, "host"))
                  .as("aggregate runs without a change")
                  .isEqualTo(hostRuns));
      assertThat(runsOf(mark, "west", ns, "web"))
          .as("runs of west's key, one per resync, during the window")
          .isGreaterThanOrEqualTo(2);
      host.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(west, ns, "web") == null);
    }
  }

  /**
   * Waits until the host's aggregates that a change caused are done (none ran for a second, five
   * times the delay an aggregate waits for the other members' changes), and returns their count.
   */
  private static double hostRunsSettled(InProcessPier pier) {
    double[] last = {-1};
    long[] since = {0};
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              double now = runs(pier, "host");
              if (now != last[0]) {
                last[0] = now;
                since[0] = System.nanoTime();
              }
              return System.nanoTime() - since[0] >= Duration.ofSeconds(1).toNanos();
            });
    return last[0];
  }

  /** A member's copy's resourceVersion now. */
  private static String resourceVersion(KubeApiServer member, String ns, String name) {
    return copy(member, ns, name).getMetadata().getResourceVersion();
  }

  /**
   * Waits until a run of {@code member}'s key of {@code ns/name} decided on the copy at {@code
   * resourceVersion} or later (its debug line says so, whatever it decided), so that "Pier wrote
   * nothing to the copy" is a decision Pier took on it, not a run that never came; runs of other
   * keys do not count.
   */
  private static void sawMemberRun(
      CapturedLog runs, String member, String ns, String name, String resourceVersion) {
    Pattern line = runLine(member, ns, name);
    long wanted = Long.parseLong(resourceVersion);
    java.util.function.DoubleSupplier latest =
        () ->
            runs.text()
                .lines()
                .map(line::matcher)
                .filter(Matcher::find)
                .mapToLong(m -> Long.parseLong(m.group(1)))
                .max()
                .orElse(0);
    try {
      // A run follows a change within tens of milliseconds: look often at first.
      await()
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(25))
          .atMost(Duration.ofSeconds(2))
          .until(() -> latest.getAsDouble() >= wanted);
    } catch (org.awaitility.core.ConditionTimeoutException slow) {
      // Then wait the rest, and fail saying what was seen.
      PierSaw.counted(
          member + "/" + ns + "/" + name + " at resourceVersion " + resourceVersion,
          "the latest resourceVersion a run of that key decided on",
          wanted - 1,
          latest,
          CONVERGE);
    }
  }

  /**
   * How many runs of {@code member}'s key of {@code ns/name} decided on its copy after the mark.
   */
  private static long runsOf(PierSaw.LogMark mark, String member, String ns, String name) {
    Pattern line = runLine(member, ns, name);
    return mark.after().lines().filter(l -> line.matcher(l).find()).count();
  }

  /** FederationReconciler's debug line of a member run that read the copy. */
  private static Pattern runLine(String member, String ns, String name) {
    return Pattern.compile(
        "Service "
            + Pattern.quote(member + "/" + ns + "/" + name)
            + ": copy at resourceVersion (\\d+): ");
  }

  private static double runs(InProcessPier pier, String side) {
    return pier
        .pier()
        .metrics()
        .registry()
        .find("pier.federation.runs")
        .tag("side", side)
        .counters()
        .stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  /** Labels the host Service and waits until both members' copies carry the label. */
  private static void labelHostAndAwaitCopies(String ns, String name, String key, String value) {
    Services.edit(
        host.client(),
        ns,
        name,
        s -> new ServiceBuilder(s).editMetadata().addToLabels(key, value).endMetadata().build());
    for (KubeApiServer member : List.of(east, west)) {
      await()
          .atMost(CONVERGE)
          .until(() -> value.equals(copy(member, ns, name).getMetadata().getLabels().get(key)));
    }
  }

  private static void editKubeconfig(String secretNs, String kubeconfig) {
    Edits.retrying(
        host.client().secrets().inNamespace(secretNs).withName("member-west"),
        sec -> {
          sec.setData(null);
          sec.setStringData(Map.of("kubeconfig", kubeconfig));
          return sec;
        });
  }

  private static double ready(InProcessPier pier, String cluster) {
    var gauge =
        pier.pier().metrics().registry().find("pier.cluster.ready").tag("cluster", cluster).gauge();
    return gauge == null ? -1 : gauge.value();
  }
}
