package dev.pier.federation.members;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.events.EventReasons;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.LeavePolicy;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.KubeClients;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationKeys;
import dev.pier.model.FederationRole;
import dev.pier.model.KubeCredentials;
import dev.pier.reconcile.ReconcileFakes.FakeCluster;
import dev.pier.util.RequestFence;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The member status reporter publishes each Secret-joined member's credential expiry as {@code
 * pier_member_credential_expiry_timestamp_seconds{cluster}} from its probes, and removes it when
 * the member leaves or its expiry becomes unknown; it warns within the configured window. No API
 * server: the host's writes are refused before they go, as a Pier that does not lead sees them.
 */
class CredentialExpiryGaugeTest {
  private static final Instant NOW = Instant.parse("2026-12-05T08:00:00Z");
  private static final String GAUGE = "pier.member.credential.expiry.timestamp";
  private static final RequestFence REFUSE =
      new RequestFence() {
        @Override
        public long term() {
          return 0;
        }

        @Override
        public RuntimeException refusal(long term, String what) {
          return new IllegalStateException("not the leader: " + what);
        }
      };

  private final Vertx vertx = Vertx.vertx();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Map<String, Secret> secrets = new HashMap<>();
  private final List<String> warnings = new ArrayList<>();
  private final Members members = FakeMembers.registry(new FederationOptions());
  private final KubernetesClient client = KubeClients.create(vertx, spec("host", "static-t0ken"));
  private final MemberStatusReporter reporter =
      new MemberStatusReporter(
          new AsyncKubeApi(client, REFUSE),
          "pier",
          secrets::get,
          (ref, type, reason, message) -> warnings.add(reason + " " + ref.name()),
          Duration.ofDays(7),
          new PierMetrics(registry),
          vertx.getOrCreateContext(),
          Clock.fixed(NOW, ZoneOffset.UTC));

  @AfterEach
  void close() {
    client.close();
    vertx.close().await();
  }

  private static String jwt(Instant exp) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8))
        + "."
        + b64.encodeToString(
            ("{\"exp\":" + exp.getEpochSecond() + "}").getBytes(StandardCharsets.UTF_8))
        + ".c2lnbmF0dXJl";
  }

  private static ClusterSpec spec(String name, String token) {
    return new ClusterSpec(
        name,
        "",
        new KubeCredentials("https://127.0.0.1:9", "", token, "", ""),
        "",
        false,
        "",
        List.of(),
        false,
        FederationRole.MEMBER,
        Map.of());
  }

  /** A member joined through its Secret {@code member-<name>} with this token. */
  private Member joined(String name, String token) {
    Member m = new Member(spec(name, token), new FakeCluster(name), members.health());
    secrets.put(
        name,
        new SecretBuilder()
            .withNewMetadata()
            .withNamespace("pier")
            .withName("member-" + name)
            .withUid("uid-" + name)
            .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, name))
            .endMetadata()
            .build());
    return m;
  }

  private Gauge gauge(String cluster) {
    return registry.find(GAUGE).tag("cluster", cluster).gauge();
  }

  @Test
  void aMemberWhoseCredentialCarriesAnExpiryHasItAsTheGaugeInUnixSeconds() {
    Instant exp = NOW.plus(Duration.ofDays(40));
    reporter.probed(joined("east", jwt(exp)), false, "connection refused");
    reporter.probed(joined("west", "static-t0ken"), false, "connection refused");

    assertThat(gauge("east")).isNotNull();
    assertThat(gauge("east").value()).isEqualTo((double) exp.getEpochSecond());
    assertThat(gauge("west")).as("a static token carries no expiry").isNull();
  }

  @Test
  void theGaugeFollowsANewCredentialAndGoesWhenItsExpiryBecomesUnknown() {
    reporter.probed(joined("east", jwt(NOW.plus(Duration.ofDays(40)))), false, "refused");
    Instant rotated = NOW.plus(Duration.ofDays(90));
    // A new Secret reconnects the member: a new Member of the same name.
    reporter.probed(joined("east", jwt(rotated)), false, "refused");
    assertThat(gauge("east").value()).isEqualTo((double) rotated.getEpochSecond());
    assertThat(registry.find(GAUGE).gauges()).hasSize(1);

    reporter.probed(joined("east", "static-t0ken"), false, "refused");
    assertThat(gauge("east")).isNull();
  }

  @Test
  void theGaugeGoesWhenTheMemberLeaves() {
    Member east = joined("east", jwt(NOW.plus(Duration.ofDays(40))));
    reporter.probed(east, false, "refused");
    assertThat(gauge("east")).isNotNull();
    FakeMembers.leave(east, LeavePolicy.ORPHAN);
    reporter.probed(east, false, "refused");
    assertThat(gauge("east")).isNull();

    // Its Secret gone, before the leave grace ends.
    Member west = joined("west", jwt(NOW.plus(Duration.ofDays(40))));
    reporter.probed(west, false, "refused");
    assertThat(gauge("west")).isNotNull();
    secrets.remove("west");
    reporter.probed(west, false, "refused");
    assertThat(gauge("west")).isNull();

    // Forgotten at once, without a probe in between.
    Member north = joined("north", jwt(NOW.plus(Duration.ofDays(40))));
    reporter.probed(north, false, "refused");
    reporter.left("north");
    assertThat(gauge("north")).isNull();
    assertThat(registry.find(GAUGE).gauges()).isEmpty();
  }

  @Test
  void theWarningComesWithinTheConfiguredWindowOnly() {
    reporter.probed(joined("east", jwt(NOW.plus(Duration.ofDays(10)))), false, "refused");
    reporter.probed(joined("west", jwt(NOW.plus(Duration.ofDays(3)))), false, "refused");

    assertThat(warnings).containsExactly(EventReasons.MEMBER_CREDENTIAL_EXPIRING + " member-west");
    assertThat(gauge("east")).as("the gauge does not wait for the window").isNotNull();
  }
}
