package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pier's ceilings over what a member Secret's provider settings may ask for: a pure function. */
class MemberCeilingsTest {

  /**
   * A member's provider options as MemberProviders builds them: Pier's own options from {@code
   * env}, the provider options back at their defaults, the Secret's {@code settings} over them.
   */
  private static ConfigValues member(Map<String, String> env, Map<String, Object> settings) {
    ConfigValues piers = new ConfigLoader(PierOptions.ALL, env::get).load(null);
    return new ConfigLoader(PierOptions.PROVIDER_OPTIONS, v -> null)
        .loadPart(piers.withDefaults(PierOptions.PROVIDER_OPTIONS, "annotation"), settings, "", "");
  }

  private static Map<String, Object> webhook(Map<String, Object> more) {
    Map<String, Object> settings = new HashMap<>(more);
    settings.put("provider", "webhook");
    settings.put("webhook.url", "https://lb.example");
    return settings;
  }

  @Test
  void settingsAboveTheirCeilingsAreLoweredAndNamedWithWhatWasAskedAndWhatIsGiven() {
    MemberCeilings.Clamped c =
        MemberCeilings.clamp(
            member(
                Map.of(),
                webhook(
                    Map.of(
                        "webhook.timeout",
                        "24h",
                        "webhook.retries",
                        "100",
                        "webhook.retryDelay",
                        "1h",
                        "webhook.maxConnections",
                        "10000"))));
    assertThat(c.values())
        .isEqualTo(
            Map.of(
                "webhook.timeout", "30s",
                "webhook.retries", "5",
                "webhook.retryDelay", "5s",
                "webhook.maxConnections", "16"));
    assertThat(c.requested())
        .extracting(MemberCeilings.Lowered::describe)
        .containsExactlyInAnyOrder(
            "webhook.timeout from 24h to 30s (federation.memberCeilings.timeout)",
            "webhook.retries from 100 to 5 (federation.memberCeilings.retries)",
            "webhook.retryDelay from 1h to 5s (federation.memberCeilings.retryDelay)",
            "webhook.maxConnections from 10000 to 16 (federation.memberCeilings.maxConnections)");
  }

  @Test
  void settingsWithinTheCeilingsAreKept() {
    MemberCeilings.Clamped c =
        MemberCeilings.clamp(
            member(
                Map.of(),
                webhook(
                    Map.of(
                        "webhook.timeout", "30s",
                        "webhook.retries", "0",
                        "webhook.maxConnections", "16"))));
    assertThat(c.values()).isEmpty();
    assertThat(c.lowered()).isEmpty();
  }

  @Test
  void defaultsAboveACeilingAreLoweredTooButAreNotTheSecretsRequest() {
    // maxConnections 0 (auto) stands for reconcile.concurrency + nodeSync.concurrency: 700.
    MemberCeilings.Clamped c = MemberCeilings.clamp(member(Map.of(), webhook(Map.of())));
    assertThat(c.values()).isEqualTo(Map.of("webhook.maxConnections", "16"));
    assertThat(c.lowered())
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.describe())
                  .isEqualTo(
                      "webhook.maxConnections from 0 (auto: 700) to 16"
                          + " (federation.memberCeilings.maxConnections)");
              assertThat(l.requested()).isFalse();
            });
    assertThat(c.requested()).isEmpty();

    // An auto pool within the ceiling stays auto.
    assertThat(
            MemberCeilings.clamp(
                    member(
                        Map.of(
                            "PIER_RECONCILE_CONCURRENCY", "4", "PIER_NODE_SYNC_CONCURRENCY", "4"),
                        webhook(Map.of())))
                .values())
        .isEmpty();
  }

  @Test
  void theOperatorsCeilingsApplyAndOnlyToTheMembersOwnProvider() {
    ConfigValues hetzner =
        member(
            Map.of(
                "PIER_FEDERATION_MEMBER_CEILINGS_TIMEOUT", "2s",
                "PIER_FEDERATION_MEMBER_CEILINGS_WAIT", "1m",
                "PIER_FEDERATION_MEMBER_CEILINGS_RETRY_DELAY", "100ms",
                "PIER_FEDERATION_MEMBER_CEILINGS_MAX_CONNECTIONS", "2"),
            Map.of(
                "provider", "hetzner",
                "hetzner.requestTimeout", "10s",
                "hetzner.maxConnections", "8"));
    MemberCeilings.Clamped c = MemberCeilings.clamp(hetzner);
    // No webhook.* setting: the member's provider is hetzner.
    assertThat(c.values())
        .isEqualTo(
            Map.of(
                "hetzner.requestTimeout", "2s",
                "hetzner.actionTimeout", "1m",
                "hetzner.actionPollInterval", "100ms",
                "hetzner.maxConnections", "2"));
    assertThat(c.requested())
        .extracting(MemberCeilings.Lowered::setting)
        .containsExactlyInAnyOrder("hetzner.requestTimeout", "hetzner.maxConnections");
  }
}
