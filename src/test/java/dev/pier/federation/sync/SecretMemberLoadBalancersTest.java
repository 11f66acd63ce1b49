package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.federation.members.MemberSecrets;
import dev.pier.model.FederationKeys;
import dev.pier.testkit.Edits;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.HoldingHttpServer;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.json.JsonObject;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A member joined through a Secret runs Pier's own load balancers with the provider its Secret
 * names: a host and a member on real API servers, the member's load balancers from the reference
 * implementation of the webhook contract, reached with the token the Secret holds. The member's
 * copies and its own LoadBalancer Services get load balancers, the host aggregates them; a bad
 * provider setting is a Warning that leaves the member as it was; leaving stops Pier's load
 * balancers there without deleting one, unless the Secret chose {@code delete-copies}.
 */
@RealKubeApiServer
class SecretMemberLoadBalancersTest {
  private static final Duration CONVERGE = InProcessPier.CONVERGE;
  private static final String TOKEN = "member-provider-token-5f2c";

  private static KubeApiServer host;
  private static KubeApiServer west;
  private static ReferenceWebhook cloud;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    host = server;
    west = FederatedServices.memberWithNode(host, "west-1");
    cloud = ReferenceWebhook.start(TOKEN);
  }

  @AfterAll
  static void tearDown() {
    if (west != null) {
      west.close();
    }
    if (cloud != null) {
      cloud.close();
    }
  }

  /** Pier's configuration, its members' providers allowed to reach the local stand-ins. */
  private static String config() {
    return FederationConfig.host(host.kubeconfigPath())
        .loadBalancers(false)
        .leaveGrace("2s")
        .health("500ms", "400ms")
        .federationYaml("  memberEgress:\n    allow: [\"127.0.0.0/8\", \"::1/128\"]\n")
        .yaml();
  }

  /** As {@link #config()}, with no federation.memberEgress.allow: Pier's defaults. */
  private static String configWithoutAllowList() {
    return FederationConfig.host(host.kubeconfigPath())
        .loadBalancers(false)
        .leaveGrace("2s")
        .health("500ms", "400ms")
        .yaml();
  }

  private static String providerSettings(String provider) {
    return new JsonObject()
        .put("provider", provider)
        .put("webhook.url", cloud.url())
        .put("webhook.timeout", "5s")
        .encode();
  }

  private static Secret westSecret(String settings, Map<String, String> more) {
    Map<String, String> annotations = new HashMap<>(more);
    annotations.put(MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION, settings);
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace("pier")
        .withName("member-west")
        .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, "west"))
        .withAnnotations(annotations)
        .endMetadata()
        .withStringData(
            Map.of(
                MemberSecrets.KUBECONFIG_KEY,
                west.selfContainedKubeconfig(),
                MemberSecrets.PROVIDER_TOKEN_KEY,
                TOKEN))
        .build();
  }

  private static void annotateWest(String settings) {
    Edits.retrying(
        host.client().secrets().inNamespace("pier").withName("member-west"),
        s -> {
          s.getMetadata()
              .getAnnotations()
              .put(MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION, settings);
          return s;
        });
  }

  private static List<Event> secretEvents() {
    return Services.events(host.client(), "pier", "member-west");
  }

  private static boolean warned(String text) {
    return secretEvents().stream()
        .anyMatch(
            e -> "InvalidMemberSecret".equals(e.getReason()) && e.getMessage().contains(text));
  }

  /** The reference cloud's load balancer of a Service, by its name, or null. */
  private static JsonObject loadBalancer(String ns, String name) {
    return cloud.loadBalancers().values().stream()
        .filter(lb -> ns.equals(lb.getString("namespace")) && name.equals(lb.getString("service")))
        .findFirst()
        .orElse(null);
  }

  private static List<String> hostIngress(String ns, String name) {
    Service s = host.client().services().inNamespace(ns).withName(name).get();
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return List.of();
    }
    var ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null ? List.of() : ingress.stream().map(i -> i.getIp()).toList();
  }

  /** The deletions the reference cloud was asked for so far. */
  private static long deletes() {
    return cloud.operations().stream().filter("delete"::equals).count();
  }

  private static double copiesGauge(InProcessPier pier, String member) {
    var gauge =
        pier.pier()
            .metrics()
            .registry()
            .find("pier.federation.copies")
            .tag("cluster", member)
            .gauge();
    return gauge == null ? -1 : gauge.value();
  }

  private static Service westService(String ns, String name) {
    return west.client().services().inNamespace(ns).withName(name).get();
  }

  private static boolean secretGone() {
    return host.client().secrets().inNamespace("pier").withName("member-west").get() == null;
  }

  private static boolean leaveRecordGone() {
    return host.client().secrets().inNamespace("pier").withName("pier-leaving-west").get() == null;
  }

  private static boolean owned(Service copy) {
    return copy != null
        && copy.getMetadata().getLabels() != null
        && copy.getMetadata().getLabels().containsKey(FederationKeys.FEDERATION_LABEL);
  }

  @Test
  void aSecretJoinedMemberRunsPiersLoadBalancersWithItsOwnProviderAndLeavingDeletesNone()
      throws InterruptedException {
    String ns = host.createNamespace("lbm");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = InProcessPier.startWithConfig(config(), Map.of())) {
      host.client().resource(westSecret(providerSettings("webhook"), Map.of())).create();
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();

      // The copy gets its load balancer from the member's provider, and the host shows it.
      await().atMost(CONVERGE).until(() -> Services.ingressIp(west.client(), ns, "web") != null);
      String copyIp = Services.ingressIp(west.client(), ns, "web");
      assertThat(loadBalancer(ns, "web")).isNotNull();
      assertThat(loadBalancer(ns, "web").getString("ip")).isEqualTo(copyIp);
      // The copies Pier owns there are counted for the dashboard.
      await().atMost(CONVERGE).until(() -> copiesGauge(pier, "west") == 1.0);
      FederatedServices.endpointSlice(west.client(), ns, "web", true);
      await().atMost(CONVERGE).until(() -> hostIngress(ns, "web").contains(copyIp));

      // A LoadBalancer Service of the member's own gets one too.
      west.client().resource(Services.loadBalancer(ns, "own", 8081, west.freeNodePort())).create();
      String ownIp = Services.awaitIngress(west.client(), ns, "own");
      assertThat(loadBalancer(ns, "own").getString("ip")).isEqualTo(ownIp);

      // local is refused for a member joined through a Secret, by name, and the member stays as
      // it was: its load balancers still follow its Services.
      annotateWest(providerSettings("local"));
      await().atMost(CONVERGE).until(() -> warned("'local' is refused"));
      Services.edit(
          west.client(),
          ns,
          "own",
          s -> {
            s.getSpec().getPorts().get(0).setPort(8082);
            return s;
          });
      await().atMost(CONVERGE).until(() -> loadBalancer(ns, "own").encode().contains("8082"));
      // A setting that would read a file on Pier's machine is refused too.
      annotateWest(
          new JsonObject(providerSettings("webhook"))
              .put("webhook.tokenFile", "/var/run/secrets/kubernetes.io/serviceaccount/token")
              .encode());
      await().atMost(CONVERGE).until(() -> warned("webhook.tokenFile: not allowed"));
      assertThat(secretEvents()).noneMatch(e -> e.getMessage().contains(TOKEN));
      annotateWest(providerSettings("webhook"));

      // The Secret deleted: after the grace west leaves, orphaning its copy; Pier's load
      // balancers there stay, none is deleted.
      long deletes = deletes();
      host.client().secrets().inNamespace("pier").withName("member-west").delete();
      await().atMost(CONVERGE).until(() -> !owned(westService(ns, "web")));
      assertThat(loadBalancer(ns, "web")).isNotNull();
      assertThat(loadBalancer(ns, "own")).isNotNull();
      assertThat(deletes()).isEqualTo(deletes);

      // Deleted in the member while it is not joined, the orphaned copy waits for Pier's
      // load-balancer finalizer: its load balancer is neither leaked nor deleted unseen.
      // (The leave record goes once the member is forgotten.)
      await().atMost(CONVERGE).until(() -> secretGone() && leaveRecordGone());
      west.client().services().inNamespace(ns).withName("web").delete();
      await()
          .atMost(CONVERGE)
          .until(() -> westService(ns, "web").getMetadata().getDeletionTimestamp() != null);
      Thread.sleep(2000);
      assertThat(westService(ns, "web")).isNotNull();
      assertThat(loadBalancer(ns, "web")).isNotNull();

      // Joined again, with pier.dev/leave-policy: delete-copies: the held deletion completes, the
      // host Service gets a new copy, and the leave deletes that copy and its load balancer: a
      // deletion the Secret chose. The member's own Service keeps its load balancer.
      host.client()
          .resource(
              westSecret(
                  providerSettings("webhook"),
                  Map.of(FederationKeys.LEAVE_POLICY_ANNOTATION, "delete-copies")))
          .create();
      await().atMost(CONVERGE).until(() -> owned(westService(ns, "web")));
      await().atMost(CONVERGE).until(() -> loadBalancer(ns, "web") != null);
      host.client().secrets().inNamespace("pier").withName("member-west").delete();
      await().atMost(CONVERGE).until(() -> westService(ns, "web") == null);
      assertThat(loadBalancer(ns, "web")).isNull();
      assertThat(loadBalancer(ns, "own")).isNotNull();
      await().atMost(CONVERGE).until(() -> secretGone() && leaveRecordGone());
      host.client().services().inNamespace(ns).withName("web").delete();
    }
  }

  /**
   * A Secret that asks for more than Pier's ceilings for members gets the ceilings: its provider
   * runs with them (a call to a webhook that never answers ends at the ceiling's timeout, retried
   * the ceiling's number of times, where the Secret's day and hundred retries would hold it until
   * the call's deadline), and a Warning on the Secret names each lowered setting, from what to
   * what.
   */
  @Test
  void aSecretAskingAboveTheCeilingsRunsWithThemAndIsWarnedOfEach() throws Exception {
    String ns = west.createNamespace("lbc");
    try (HoldingHttpServer silent =
            HoldingHttpServer.start(
                Duration.ofHours(1), Integer.MAX_VALUE, 200, "application/json", "{}");
        InProcessPier pier =
            InProcessPier.startWithConfig(
                config(),
                Map.of(
                    "PIER_FEDERATION_MEMBER_CEILINGS_TIMEOUT", "1s",
                    "PIER_FEDERATION_MEMBER_CEILINGS_RETRIES", "1",
                    "PIER_FEDERATION_MEMBER_CEILINGS_RETRY_DELAY", "100ms"))) {
      String asksMuch =
          new JsonObject()
              .put("provider", "webhook")
              .put("webhook.url", silent.url())
              .put("webhook.timeout", "24h")
              .put("webhook.retries", 100)
              .encode();
      Secret secret = host.client().resource(westSecret(asksMuch, Map.of())).create();

      Event lowered = PierSaw.event(host.client(), secret, CONVERGE, "MemberSettingLowered");
      assertThat(lowered.getType()).isEqualTo("Warning");
      assertThat(lowered.getMessage())
          .contains(
              "webhook.timeout from 24h to 1s (federation.memberCeilings.timeout)",
              "webhook.retries from 100 to 1 (federation.memberCeilings.retries)")
          // The default retryDelay (500ms) is lowered too, but the Secret did not ask for it.
          .doesNotContain("retryDelay")
          .doesNotContain(TOKEN);

      west.client().resource(Services.loadBalancer(ns, "slow", 8083, west.freeNodePort())).create();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  Services.events(west.client(), ns, "slow").stream()
                      .anyMatch(
                          e ->
                              "SyncLoadBalancerFailed".equals(e.getReason())
                                  && e.getMessage().contains("no complete answer within 1000 ms")));
      assertThat(silent.received()).isGreaterThanOrEqualTo(2);

      host.client().secrets().inNamespace("pier").withName("member-west").delete();
      await().atMost(CONVERGE).until(() -> secretGone() && leaveRecordGone());
    }
  }

  /**
   * A leave that Pier resumes after a restart runs with the member's provider too: the leave record
   * keeps the Secret's provider settings and token, so the copies a {@code delete-copies} leave
   * deletes take their load balancers with them.
   */
  @Test
  void aLeaveResumedAfterARestartDeletesTheCopiesLoadBalancersWithTheMembersProvider() {
    String ns = host.createNamespace("lbr");
    FederatedServices.optIn(host.client(), ns);
    try (InProcessPier pier = InProcessPier.startWithConfig(config(), Map.of())) {
      host.client()
          .resource(
              westSecret(
                  providerSettings("webhook"),
                  Map.of(FederationKeys.LEAVE_POLICY_ANNOTATION, "delete-copies")))
          .create();
      host.client().resource(FederatedServices.federated(ns, "api", Map.of())).create();
      await().atMost(CONVERGE).until(() -> loadBalancer(ns, "api") != null);
      await().atMost(CONVERGE).until(() -> owned(westService(ns, "api")));
    }
    // Deleted while Pier is down: Pier's finalizer holds the Secret, with its provider, for Pier.
    host.client().secrets().inNamespace("pier").withName("member-west").delete();
    assertThat(host.client().secrets().inNamespace("pier").withName("member-west").get())
        .isNotNull();
    try (InProcessPier pier = InProcessPier.startWithConfig(config(), Map.of())) {
      await().atMost(CONVERGE).until(() -> westService(ns, "api") == null);
      assertThat(loadBalancer(ns, "api")).isNull();
      await().atMost(CONVERGE).until(() -> secretGone() && leaveRecordGone());
    }
    host.client().services().inNamespace(ns).withName("api").delete();
  }

  /**
   * A Secret writer who points a member's provider at Pier's own loopback interface is refused by
   * name, and not one connection reaches the listener there, though a LoadBalancer Service that
   * Pier has shown it sees waits in that member.
   */
  @Test
  void aMemberProviderOnPiersLoopbackIsRefusedAndNeverConnectedTo() throws Exception {
    String ns = host.createNamespace("lbe");
    FederatedServices.optIn(host.client(), ns);
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        InProcessPier pier = InProcessPier.startWithConfig(configWithoutAllowList(), Map.of())) {
      AtomicInteger connections = new AtomicInteger();
      Thread accepter =
          new Thread(
              () -> {
                while (!listener.isClosed()) {
                  try (Socket ignored = listener.accept()) {
                    connections.incrementAndGet();
                  } catch (Exception e) {
                    return;
                  }
                }
              });
      accepter.setDaemon(true);
      accepter.start();
      try {
        // Joined without a provider, west gets the copy of a federated LoadBalancer Service: Pier
        // sees that Service there.
        Secret withProvider = westSecret(providerSettings("webhook"), Map.of());
        Secret plain =
            new SecretBuilder(withProvider)
                .editMetadata()
                .removeFromAnnotations(MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION)
                .endMetadata()
                .withStringData(
                    Map.of(MemberSecrets.KUBECONFIG_KEY, west.selfContainedKubeconfig()))
                .build();
        host.client().resource(plain).create();
        host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();
        await().atMost(CONVERGE).until(() -> owned(westService(ns, "web")));
        assertThat(westService(ns, "web").getSpec().getType()).isEqualTo("LoadBalancer");

        String url = "https://127.0.0.1:" + listener.getLocalPort() + "/pier/v1";
        awaitRefused(url, "127.0.0.1");
        // A host name that resolves to Pier's loopback passes the check of the Secret's text; it
        // is refused as it resolves, and the Secret's writer hears of it.
        InetAddress resolved = loopbackName();
        String name = resolved.getHostName();
        String byName = "https://" + name + ":" + listener.getLocalPort() + "/pier/v1";
        awaitRefused(byName, "host " + name + ": " + resolved.getHostAddress());
        Thread.sleep(5000);
        assertThat(connections.get()).isZero();
      } finally {
        host.client().secrets().inNamespace("pier").withName("member-west").delete();
        await().atMost(CONVERGE).until(() -> secretGone() && leaveRecordGone());
        host.client().services().inNamespace(ns).withName("web").delete();
      }
    }
  }

  /**
   * Points west's webhook at {@code url}, and waits for the Warning that refuses {@code address}.
   */
  private static void awaitRefused(String url, String address) {
    annotateWest(new JsonObject().put("provider", "webhook").put("webhook.url", url).encode());
    String refusal =
        "webhook.url: '"
            + url
            + "': "
            + address
            + " is a loopback address, refused for a member's provider";
    await().atMost(CONVERGE).until(() -> warned(refusal));
  }

  /**
   * A name of this machine that resolves to one loopback address and is not "localhost" (which the
   * Secret's check refuses as text): the machine's host name, as /etc/hosts maps it on Debian
   * (127.0.1.1, or 127.0.0.1).
   */
  private static InetAddress loopbackName() throws Exception {
    String name = InetAddress.getLocalHost().getHostName();
    InetAddress[] addresses = InetAddress.getAllByName(name);
    assertThat(addresses)
        .as("this test needs the machine's host name (%s) to resolve to one loopback address", name)
        .hasSize(1)
        .allMatch(InetAddress::isLoopbackAddress);
    assertThat(name).isNotEqualToIgnoringCase("localhost");
    return InetAddress.getByAddress(name, addresses[0].getAddress());
  }
}
