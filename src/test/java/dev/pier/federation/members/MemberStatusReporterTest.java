package dev.pier.federation.members;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.federation.MemberStatus;
import dev.pier.model.FederationKeys;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.micrometer.core.instrument.Gauge;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The leading Pier keeps a Secret-joined member's state on its Secret, on real API servers: ready
 * with version, topology and credential, a write per change rather than per probe, and why not when
 * the member stops answering.
 */
@RealKubeApiServer
class MemberStatusReporterTest {
  private static final Duration CONVERGE = InProcessPier.CONVERGE;
  private static KubeApiServer host;
  private static KubeApiServer member;

  @BeforeAll
  static void setUp(KubeApiServer server) {
    host = server;
    member = FederatedServices.memberWithNode(host, "m-1");
  }

  @AfterAll
  static void tearDown() {
    if (member != null) {
      member.close();
    }
  }

  private static MemberStatus status() {
    Secret s = host.client().secrets().inNamespace("pier").withName("member-east").get();
    if (s == null || s.getMetadata().getAnnotations() == null) {
      return null;
    }
    return MemberStatus.parse(
        s.getMetadata().getAnnotations().get(FederationKeys.MEMBER_STATUS_ANNOTATION));
  }

  @Test
  void aConfiguredMembersCredentialExpiryIsTheGaugeToo() {
    // A token that expires at 2027-01-01T00:00:00Z; the member answers it 401, and the gauge
    // comes from the credential whether the member accepts it or not.
    long exp = 1_798_761_600L;
    String token =
        jwtPart("{\"alg\":\"none\"}") + "." + jwtPart("{\"exp\":" + exp + "}") + ".signature";
    String config =
        FederationConfig.host(host.kubeconfigPath())
            .pool("127.249.0.16/28")
            .member("west", member.kubeconfigFor(token))
            .loadBalancers(false)
            .health("300ms", "250ms")
            .yaml();
    try (InProcessPier pier = InProcessPier.startWithConfig(config, Map.of())) {
      await()
          .atMost(CONVERGE)
          .until(
              () -> {
                Gauge g =
                    pier.pier()
                        .metrics()
                        .registry()
                        .find("pier.member.credential.expiry.timestamp")
                        .tag("cluster", "west")
                        .gauge();
                return g != null && g.value() == exp;
              });
    }
  }

  private static String jwtPart(String json) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theMembersStateIsOnItsSecretWrittenWhenItChanges() {
    String config =
        FederationConfig.host(host.kubeconfigPath())
            .pool("127.249.0.0/28")
            .health("300ms", "250ms", 2)
            .yaml();
    try (InProcessPier pier = InProcessPier.startWithConfig(config, Map.of())) {
      host.client()
          .resource(
              new SecretBuilder()
                  .withNewMetadata()
                  .withNamespace("pier")
                  .withName("member-east")
                  .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, "east"))
                  .withAnnotations(Map.of("pier.dev/zones", "eu-a,eu-b"))
                  .endMetadata()
                  .withData(
                      Map.of(
                          "kubeconfig",
                          Base64.getEncoder()
                              .encodeToString(
                                  member
                                      .selfContainedKubeconfig()
                                      .getBytes(StandardCharsets.UTF_8))))
                  .build())
          .create();
      // Ready first; region and version follow at a later probe when the member's node cache
      // and its /version answer come after the first ready probe.
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  status() != null
                      && status().ready()
                      && "eu".equals(status().region())
                      && !status().version().isEmpty());
      MemberStatus ready = status();
      assertThat(ready.version()).isEqualTo("v" + KubeApiServer.KUBERNETES_VERSION);
      assertThat(ready.region()).isEqualTo("eu");
      assertThat(ready.zones()).containsExactly("eu-a", "eu-b");
      assertThat(ready.credential()).isEqualTo("token");
      // The test kit's admin token is a static token: it carries no expiry.
      assertThat(ready.credentialExpiry()).isNull();
      assertThat(ready.reason()).isEmpty();

      // Ten probes later the Secret is as it was: the state did not change, and the last probe
      // is refreshed only once a minute.
      String version =
          host.client()
              .secrets()
              .inNamespace("pier")
              .withName("member-east")
              .get()
              .getMetadata()
              .getResourceVersion();
      List<String> seen = new ArrayList<>();
      long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      await()
          .atMost(CONVERGE)
          .until(
              () -> {
                seen.add(
                    host.client()
                        .secrets()
                        .inNamespace("pier")
                        .withName("member-east")
                        .get()
                        .getMetadata()
                        .getResourceVersion());
                return System.nanoTime() > until;
              });
      assertThat(seen).containsOnly(version);

      // The member stops answering: the Secret says so, and why.
      member.freeze();
      try {
        await().atMost(CONVERGE).until(() -> status() != null && !status().ready());
      } finally {
        member.thaw();
      }
      MemberStatus down = status();
      assertThat(down.reason()).startsWith("probe failed: ");
      assertThat(down.since()).isAfter(ready.since());
      assertThat(down.version()).isEqualTo(ready.version());
      await().atMost(CONVERGE).until(() -> status() != null && status().ready());
      assertThat(status().since()).isAfter(down.since());
      assertThat(status().reason()).isEmpty();
    }
  }
}
