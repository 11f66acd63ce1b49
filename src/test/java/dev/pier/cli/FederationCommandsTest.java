package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.model.FederationKeys;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SelfSignedCertificate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pier join}, {@code status} and {@code unjoin} as an operator runs them, against a real
 * host and member API server with Pier leading in the host: a member joins and is reported ready, a
 * second join changes nothing, a rotated token is taken, a short-lived token is warned about, and
 * the member leaves orphaning its copies, then deleting them.
 */
@RealKubeApiServer
class FederationCommandsTest {
  private static final Duration CONVERGE = InProcessPier.CONVERGE;
  private static KubeApiServer host;
  private static KubeApiServer member;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    host = server;
    member = FederatedServices.memberWithNode(host, "east-1");
  }

  @AfterAll
  static void tearDown() {
    if (member != null) {
      member.close();
    }
  }

  record Run(int status, String out, String err) {}

  private static Run pier(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Cli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static List<String> withClusters(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of(
            "--host-kubeconfig",
            host.kubeconfigPath().toString(),
            "--member-kubeconfig",
            member.kubeconfigPath().toString()));
    return all;
  }

  private static Run join(String... args) {
    List<String> all = new ArrayList<>(List.of("join", "east"));
    all.addAll(withClusters(args));
    return pier(all.toArray(String[]::new));
  }

  private static Run unjoin(String... args) {
    List<String> all = new ArrayList<>(List.of("unjoin", "east"));
    all.addAll(withClusters(args));
    return pier(all.toArray(String[]::new));
  }

  private static Run status(String... args) {
    List<String> all =
        new ArrayList<>(List.of("status", "--host-kubeconfig", host.kubeconfigPath().toString()));
    all.addAll(List.of(args));
    return pier(all.toArray(String[]::new));
  }

  private static Secret secret() {
    return host.client().secrets().inNamespace("pier").withName("member-east").get();
  }

  private static String token(Secret s) {
    String kubeconfig =
        new String(
            Base64.getDecoder().decode(s.getData().get("kubeconfig")), StandardCharsets.UTF_8);
    return JoinKubeconfig.read(kubeconfig).token();
  }

  private static Service copy(String ns) {
    return member.client().services().inNamespace(ns).withName("web").get();
  }

  private static boolean owned(Service s) {
    return s != null
        && s.getMetadata().getLabels() != null
        && s.getMetadata().getLabels().containsKey(FederationKeys.FEDERATION_LABEL);
  }

  @Test
  void anOperatorJoinsWatchesAndUnjoinsAMember() {
    String config =
        FederationConfig.host(host.kubeconfigPath())
            .pool("127.249.1.0/28")
            .leaveGrace("1h")
            .health("300ms", "250ms")
            .yaml();

    // --dry-run prints every object and writes nothing.
    Run dry = join("--dry-run", "--zones", "eu-a");
    assertThat(dry.status()).as(dry.err()).isZero();
    assertThat(dry.out())
        .contains("kind: \"Namespace\"", "kind: \"ServiceAccount\"", "kind: \"ClusterRole\"")
        .contains("kind: \"ClusterRoleBinding\"", "kind: \"TokenRequest\"", "kind: \"Secret\"")
        .contains("pier.dev/cluster: \"east\"", "server: \"" + member.url() + "\"");
    assertThat(secret()).isNull();
    assertThat(
            member.client().serviceAccounts().inNamespace("pier").withName("pier-federation").get())
        .isNull();

    try (InProcessPier pier = InProcessPier.startWithConfig(config, Map.of())) {
      String ns = host.createNamespace("shop");
      FederatedServices.optIn(host.client(), ns);
      host.client().resource(FederatedServices.federated(ns, "web", Map.of())).create();

      // Joined with a token of 15 minutes: ready, and warned about (under 30 days).
      Instant before = Instant.now();
      Run first =
          join(
              "--zones",
              "eu-a",
              "--labels",
              "tier=gold",
              "--token-duration",
              "15m",
              "--wait",
              "60s");
      assertThat(first.status()).as(first.out() + first.err()).isZero();
      assertThat(first.out())
          .contains("member east: serviceaccount/pier-federation (namespace pier) created")
          .contains("member east: token minted for serviceaccount pier/pier-federation, expires ")
          .contains("host: secret/member-east (namespace pier) created")
          .contains(
              "cluster east: ready (v" + KubeApiServer.version() + ", region eu, zones eu-a)");
      Secret joined = secret();
      assertThat(joined.getMetadata().getLabels())
          .containsEntry("pier.dev/cluster", "east")
          .containsEntry("tier", "gold");
      Instant expiry = dev.pier.federation.CredentialExpiry.ofToken(token(joined));
      assertThat(expiry)
          .isBetween(
              before.plus(Duration.ofMinutes(14)), Instant.now().plus(Duration.ofMinutes(16)));
      await().atMost(CONVERGE).until(() -> owned(copy(ns)));

      // A second run changes nothing: not the member's objects, not the token.
      String saVersion =
          member
              .client()
              .serviceAccounts()
              .inNamespace("pier")
              .withName("pier-federation")
              .get()
              .getMetadata()
              .getResourceVersion();
      Run again =
          join(
              "--zones",
              "eu-a",
              "--labels",
              "tier=gold",
              "--token-duration",
              "15m",
              "--wait",
              "60s");
      assertThat(again.status()).as(again.out() + again.err()).isZero();
      assertThat(again.out())
          .doesNotContain(" created", " configured", "minted")
          .contains("token kept", "host: secret/member-east (namespace pier) unchanged");
      assertThat(token(secret())).isEqualTo(token(joined));
      assertThat(
              member
                  .client()
                  .serviceAccounts()
                  .inNamespace("pier")
                  .withName("pier-federation")
                  .get()
                  .getMetadata()
                  .getResourceVersion())
          .isEqualTo(saVersion);

      // pier status: the member ready with its version, topology and a warned expiry; the
      // federated Service with its copy in east.
      // The member's cloud controller serves the copy, and its endpoints turn ready.
      member
          .client()
          .services()
          .inNamespace(ns)
          .withName("web")
          .editStatus(
              s ->
                  new io.fabric8.kubernetes.api.model.ServiceBuilder(s)
                      .editOrNewStatus()
                      .editOrNewLoadBalancer()
                      .addNewIngress()
                      .withIp("192.0.2.10")
                      .endIngress()
                      .endLoadBalancer()
                      .endStatus()
                      .build());
      FederatedServices.endpointSlice(member.client(), ns, "web", true);
      await().atMost(CONVERGE).until(() -> status().out().contains("east=192.0.2.10"));
      Run table = status();
      assertThat(table.status()).isZero();
      String eastLine =
          table.out().lines().filter(l -> l.startsWith("east ")).findFirst().orElseThrow();
      assertThat(eastLine)
          .contains("True", "v" + KubeApiServer.version(), "eu", "eu-a", "ago", "WARN ");
      // Pier warns on the Secret too, about the 15-minute token.
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  Services.events(host.client(), "pier", "member-east").stream()
                      .anyMatch(
                          e ->
                              "MemberCredentialExpiring".equals(e.getReason())
                                  && e.getMessage().contains("--rotate-token")));
      assertThat(table.out()).containsPattern(ns + "/web +all +east +east=192.0.2.10");
      JsonObject json = new JsonObject(status("-o", "json").out());
      JsonObject east = json.getJsonArray("members").getJsonObject(0);
      assertThat(east.getString("name")).isEqualTo("east");
      assertThat(east.getBoolean("ready")).isTrue();
      assertThat(east.getBoolean("credentialWarning")).isTrue();
      assertThat(Instant.parse(east.getString("credentialExpiry"))).isEqualTo(expiry);
      // A threshold under the token's lifetime: no warning.
      assertThat(status("--expiry-warning", "5m").out())
          .contains(expiry.toString())
          .doesNotContain("WARN");

      // --rotate-token changes only the token; the new one is taken by Pier.
      Run rotated =
          join(
              "--zones",
              "eu-a",
              "--labels",
              "tier=gold",
              "--token-duration",
              "20m",
              "--rotate-token",
              "--wait",
              "60s");
      assertThat(rotated.status()).as(rotated.out() + rotated.err()).isZero();
      assertThat(rotated.out())
          .contains("token minted", "host: secret/member-east (namespace pier) configured")
          .contains("token rotated; the old token stays valid until " + expiry)
          .contains("cluster east: ready");
      assertThat(token(secret())).isNotEqualTo(token(joined));
      assertThat(secret().getMetadata().getLabels()).containsEntry("tier", "gold");

      // --delete-copies needs --yes: it names what it would delete and changes nothing.
      Run refused = unjoin("--delete-copies");
      assertThat(refused.status()).isEqualTo(2);
      assertThat(refused.out()).contains("service/web (namespace " + ns + ")");
      assertThat(refused.err()).contains("flag --delete-copies: deleting copies needs --yes");
      assertThat(secret()).isNotNull();

      // Unjoined (orphan, the default) without the grace: the copy stays, without Pier's marks.
      String uid = copy(ns).getMetadata().getUid();
      Run orphaned = unjoin("--now", "--wait", "60s");
      assertThat(orphaned.status()).as(orphaned.out() + orphaned.err()).isZero();
      assertThat(orphaned.out())
          .contains("leave policy orphan", "cluster east: left the federation");
      assertThat(secret()).isNull();
      await().atMost(CONVERGE).until(() -> copy(ns) != null && !owned(copy(ns)));
      assertThat(copy(ns).getMetadata().getUid()).isEqualTo(uid);
      assertThat(status().out()).doesNotContain("\neast ");

      // Joined again (the orphan removed: it is no longer Pier's), then unjoined deleting its
      // copies and, last, the member's RBAC.
      member.client().services().inNamespace(ns).withName("web").delete();
      await().atMost(CONVERGE).until(() -> copy(ns) == null);
      Run rejoined = join("--wait", "60s");
      assertThat(rejoined.status()).as(rejoined.out() + rejoined.err()).isZero();
      await().atMost(CONVERGE).until(() -> owned(copy(ns)));
      Run deleted = unjoin("--delete-copies", "--yes", "--now", "--delete-rbac", "--wait", "60s");
      assertThat(deleted.status()).as(deleted.out() + deleted.err()).isZero();
      assertThat(deleted.out())
          .contains("leave policy delete-copies", "cluster east: left the federation")
          .contains("member east: serviceaccount/pier-federation (namespace pier) deleted");
      await().atMost(CONVERGE).until(() -> copy(ns) == null);
      assertThat(
              member
                  .client()
                  .serviceAccounts()
                  .inNamespace("pier")
                  .withName("pier-federation")
                  .get())
          .isNull();
      assertThat(member.client().rbac().clusterRoles().withName("pier-federation-member").get())
          .isNull();
    }
  }

  @Test
  void joinFailsNamingWhatFailed() {
    Run noServer =
        pier(
            "join",
            "west",
            "--host-kubeconfig",
            host.kubeconfigPath().toString(),
            "--member-kubeconfig",
            "/nonexistent/kubeconfig");
    assertThat(noServer.status()).isEqualTo(2);
    assertThat(noServer.err())
        .contains("flag --member-kubeconfig: cannot read '/nonexistent/kubeconfig'");
    Run notJoined = pier("unjoin", "west", "--host-kubeconfig", host.kubeconfigPath().toString());
    assertThat(notJoined.status()).isEqualTo(1);
    assertThat(notJoined.err()).contains("cluster west is not a member joined by pier join");
  }

  /**
   * {@code --load-balancer-provider} and {@code --provider-token-file}: checked as Pier checks a
   * member Secret, written into the join Secret, never printed; the base role is bound to the
   * federation identity. A member of its own, so that the other test's member stays untouched.
   */
  @Test
  void joinWritesTheMembersLoadBalancerProviderAndNeverPrintsItsToken(@TempDir Path dir)
      throws IOException {
    String token = "hcloud-token-7f3e9a";
    Path tokenFile = dir.resolve("token");
    Files.writeString(tokenFile, token + "\n");
    String settings = "{\"provider\": \"hetzner\", \"hetzner.location\": \"fsn1\"}";
    try (KubeApiServer south = KubeApiServer.start()) {
      List<String> base =
          List.of(
              "join",
              "south",
              "--host-kubeconfig",
              host.kubeconfigPath().toString(),
              "--member-kubeconfig",
              south.kubeconfigPath().toString(),
              "--wait",
              "0");
      java.util.function.Function<List<String>, Run> joinSouth =
          extra -> {
            List<String> all = new ArrayList<>(base);
            all.addAll(extra);
            return pier(all.toArray(String[]::new));
          };

      Run refused =
          joinSouth.apply(List.of("--load-balancer-provider", "{\"provider\": \"local\"}"));
      assertThat(refused.status()).isEqualTo(2);
      assertThat(refused.err())
          .contains("flag --load-balancer-provider: annotation pier.dev/load-balancer-provider:")
          .contains("'local' is refused");
      Run tokenAlone = joinSouth.apply(List.of("--provider-token-file", tokenFile.toString()));
      assertThat(tokenAlone.status()).isEqualTo(2);
      assertThat(tokenAlone.err())
          .contains("flag --provider-token-file: given without --load-balancer-provider");

      List<String> withProvider =
          List.of(
              "--load-balancer-provider", settings, "--provider-token-file", tokenFile.toString());
      List<String> dryArgs = new ArrayList<>(withProvider);
      dryArgs.add("--dry-run");
      Run dry = joinSouth.apply(dryArgs);
      assertThat(dry.status()).as(dry.err()).isZero();
      assertThat(dry.out())
          .contains("name: \"pier-federation-load-balancers\"")
          .contains("pier.dev/load-balancer-provider")
          .contains("<the token of --provider-token-file>")
          .doesNotContain(token);

      Run first = joinSouth.apply(withProvider);
      assertThat(first.status()).as(first.out() + first.err()).isZero();
      assertThat(first.out() + first.err()).doesNotContain(token);
      assertThat(
              south
                  .client()
                  .rbac()
                  .clusterRoleBindings()
                  .withName("pier-federation-load-balancers")
                  .get())
          .isNotNull();
      Secret joined = host.client().secrets().inNamespace("pier").withName("member-south").get();
      // What pier join wrote is what Pier reads from a member Secret.
      var provider =
          dev.pier.federation.members.MemberSecrets.provider(
              joined.getMetadata().getAnnotations().get("pier.dev/load-balancer-provider"),
              Status.data(joined, "provider-token"));
      assertThat(provider.settings())
          .containsEntry("provider", "hetzner")
          .containsEntry("hetzner.location", "fsn1");
      assertThat(provider.token()).isEqualTo(token);

      Run again = joinSouth.apply(withProvider);
      assertThat(again.out()).contains("host: secret/member-south (namespace pier) unchanged");

      // --provider-ca-file: a webhook's own CA, checked as Pier checks data.provider-ca.
      String webhook = "{\"provider\": \"webhook\", \"webhook.url\": \"https://lb.example:9443\"}";
      Path badCa = dir.resolve("bad-ca.pem");
      Files.writeString(badCa, "not a certificate\n");
      Run noProvider = joinSouth.apply(List.of("--provider-ca-file", badCa.toString()));
      assertThat(noProvider.status()).isEqualTo(2);
      assertThat(noProvider.err())
          .contains("flag --provider-ca-file: given without --load-balancer-provider");
      Run bad =
          joinSouth.apply(
              List.of("--load-balancer-provider", webhook, "--provider-ca-file", badCa.toString()));
      assertThat(bad.status()).isEqualTo(2);
      assertThat(bad.err())
          .contains("flag --provider-ca-file: data.provider-ca: holds no PEM certificate");
      Path ca = dir.resolve("ca.pem");
      Files.writeString(
          ca,
          Files.readString(Path.of(SelfSignedCertificate.create("lb.example").certificatePath())));
      Run withCa =
          joinSouth.apply(
              List.of("--load-balancer-provider", webhook, "--provider-ca-file", ca.toString()));
      assertThat(withCa.status()).as(withCa.out() + withCa.err()).isZero();
      Secret caJoined = host.client().secrets().inNamespace("pier").withName("member-south").get();
      assertThat(Status.data(caJoined, "provider-ca")).isEqualTo(Files.readString(ca));
      assertThat(
              dev.pier.federation.members.MemberSecrets.provider(
                      caJoined
                          .getMetadata()
                          .getAnnotations()
                          .get("pier.dev/load-balancer-provider"),
                      "",
                      Status.data(caJoined, "provider-ca"))
                  .ca())
          .contains("BEGIN CERTIFICATE");
      joinSouth.apply(withProvider);

      // Left out of a later run, the provider and its token leave the Secret too.
      Run without = joinSouth.apply(List.of());
      assertThat(without.out()).contains("host: secret/member-south (namespace pier) configured");
      Secret plain = host.client().secrets().inNamespace("pier").withName("member-south").get();
      assertThat(plain.getMetadata().getAnnotations())
          .doesNotContainKey("pier.dev/load-balancer-provider");
      assertThat(plain.getData())
          .doesNotContainKey("provider-token")
          .doesNotContainKey("provider-ca")
          .containsKey("kubeconfig");
      host.client().secrets().inNamespace("pier").withName("member-south").delete();

      // --namespaces: a Role in each (the namespace made when missing), no cluster-wide one.
      Run scoped = joinSouth.apply(List.of("--namespaces", "shop,api"));
      assertThat(scoped.status()).as(scoped.out() + scoped.err()).isZero();
      for (String ns : List.of("shop", "api")) {
        assertThat(south.client().namespaces().withName(ns).get()).isNotNull();
        assertThat(
                south
                    .client()
                    .rbac()
                    .roleBindings()
                    .inNamespace(ns)
                    .withName("pier-federation-member")
                    .get())
            .isNotNull();
      }
      Run badNamespace = joinSouth.apply(List.of("--namespaces", "Shop"));
      assertThat(badNamespace.status()).isEqualTo(2);
      assertThat(badNamespace.err()).contains("flag --namespaces: invalid value 'Shop'");
      host.client().secrets().inNamespace("pier").withName("member-south").delete();
    }
  }
}
