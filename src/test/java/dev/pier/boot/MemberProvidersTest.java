package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.model.MemberProvider;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a member Secret may say of its provider, checked before anything is built. */
class MemberProvidersTest {
  private static final String WHERE = "annotation pier.dev/load-balancer-provider";

  /** Pier's own configuration, with a Hetzner token file and location of its own. */
  private static final ConfigValues PIERS =
      new ConfigLoader(
              PierOptions.ALL,
              Map.of(
                      "PIER_HETZNER_TOKEN_FILE", "/etc/pier/hetzner-token",
                      "PIER_HETZNER_LOCATION", "nbg1",
                      "PIER_RECONCILE_CONCURRENCY", "7")
                  ::get)
          .load(null);

  private static MemberProvider provider(Map<String, String> settings, String token) {
    return new MemberProvider(settings, token);
  }

  private static void assertRefused(Map<String, String> settings, String token, String message) {
    assertThatThrownBy(() -> MemberProviders.check(PIERS, provider(settings, token)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message)
        .hasMessageNotContaining("t0ken");
  }

  @Test
  void theSettingsLieOverTheDefaultsNeverOverPiersOwnProviderSettings() {
    ConfigValues values =
        MemberProviders.check(
            PIERS,
            provider(Map.of("provider", "hetzner", "hetzner.networkZone", "eu-central"), "t0ken"));
    assertThat(values.get(PierOptions.PROVIDER)).isEqualTo("hetzner");
    assertThat(values.get(PierOptions.HETZNER_NETWORK_ZONE)).isEqualTo("eu-central");
    // Not Pier's token file, not its location: the member's provider is the member's.
    assertThat(values.get(PierOptions.HETZNER_TOKEN_FILE)).isEmpty();
    assertThat(values.get(PierOptions.HETZNER_LOCATION))
        .isEqualTo(PierOptions.HETZNER_LOCATION.defaultValue());
    // What is not a provider setting holds as Pier runs.
    assertThat(values.get(PierOptions.RECONCILE_CONCURRENCY)).isEqualTo(7);
  }

  @Test
  void noVariableOfPiersEnvironmentOverridesTheSecret() {
    // The loader of a member's settings reads no environment: PIER_WEBHOOK_TIMEOUT is ignored.
    ConfigValues values =
        MemberProviders.check(
            new ConfigLoader(PierOptions.ALL, Map.of("PIER_WEBHOOK_TIMEOUT", "1s")::get).load(null),
            provider(
                Map.of(
                    "provider",
                    "webhook",
                    "webhook.url",
                    "https://lb.example",
                    "webhook.timeout",
                    "9s"),
                ""));
    assertThat(values.get(PierOptions.WEBHOOK_TIMEOUT)).isEqualTo(Duration.ofSeconds(9));
  }

  @Test
  void settingsAboveTheCeilingsOfPiersConfigurationAreLoweredAndNamed() {
    MemberProvider asksMuch =
        provider(
            Map.of(
                "provider",
                "webhook",
                "webhook.url",
                "https://lb.example",
                "webhook.timeout",
                "24h",
                "webhook.retries",
                "100"),
            "t0ken");
    ConfigValues values = MemberProviders.check(PIERS, asksMuch);
    assertThat(values.get(PierOptions.WEBHOOK_TIMEOUT)).isEqualTo(Duration.ofSeconds(30));
    assertThat(values.get(PierOptions.WEBHOOK_RETRIES)).isEqualTo(5);
    assertThat(MemberProviders.lowered(PIERS, asksMuch))
        .containsExactlyInAnyOrder(
            "webhook.timeout from 24h to 30s (federation.memberCeilings.timeout)",
            "webhook.retries from 100 to 5 (federation.memberCeilings.retries)")
        .noneMatch(l -> l.contains("t0ken"));

    // The operator's own ceilings, from Pier's configuration; a Secret cannot set them.
    ConfigValues strict =
        new ConfigLoader(
                PierOptions.ALL,
                Map.of(
                        "PIER_FEDERATION_MEMBER_CEILINGS_TIMEOUT", "1s",
                        "PIER_FEDERATION_MEMBER_CEILINGS_RETRIES", "1")
                    ::get)
            .load(null);
    ConfigValues lowered = MemberProviders.check(strict, asksMuch);
    assertThat(lowered.get(PierOptions.WEBHOOK_TIMEOUT)).isEqualTo(Duration.ofSeconds(1));
    assertThat(lowered.get(PierOptions.WEBHOOK_RETRIES)).isEqualTo(1);
    assertRefused(
        Map.of(
            "provider",
            "webhook",
            "webhook.url",
            "https://lb.example",
            "federation.memberCeilings.timeout",
            "24h"),
        "",
        WHERE + ": federation.memberCeilings.timeout: not a setting of provider webhook");
  }

  @Test
  void aSecretWithinTheCeilingsIsTakenAsItSays() {
    MemberProvider modest =
        provider(
            Map.of(
                "provider",
                "webhook",
                "webhook.url",
                "https://lb.example",
                "webhook.timeout",
                "20s",
                "webhook.maxConnections",
                "8"),
            "");
    ConfigValues values = MemberProviders.check(PIERS, modest);
    assertThat(values.get(PierOptions.WEBHOOK_TIMEOUT)).isEqualTo(Duration.ofSeconds(20));
    assertThat(values.get(PierOptions.WEBHOOK_MAX_CONNECTIONS)).isEqualTo(8);
    assertThat(MemberProviders.lowered(PIERS, modest)).isEmpty();
  }

  @Test
  void localAndUnknownProvidersAreRefused() {
    assertRefused(
        Map.of("provider", "local", "local.pools", "10.0.0.0/24"),
        "",
        WHERE + ": provider: 'local' is refused for a member joined through a Secret");
    assertRefused(
        Map.of("provider", "benchmark"),
        "",
        WHERE + ": provider: invalid value 'benchmark': must be hetzner or webhook");
  }

  @Test
  void settingsThatReachPiersMachineOrAnotherProviderAreRefusedByName() {
    for (String key :
        new String[] {
          "hetzner.tokenFile", "hetzner.tokenEnv", "hetzner.allowHttp",
        }) {
      assertRefused(
          Map.of("provider", "hetzner", key, "x"), "t0ken", WHERE + ": " + key + ": not allowed");
    }
    for (String key :
        new String[] {
          "webhook.tokenFile",
          "webhook.allowHttp",
          "webhook.tls.caFile",
          "webhook.tls.certFile",
          "webhook.tls.keyFile"
        }) {
      assertRefused(
          Map.of("provider", "webhook", "webhook.url", "https://lb.example", key, "x"),
          "",
          WHERE + ": " + key + ": not allowed");
    }
    assertRefused(
        Map.of("provider", "hetzner", "webhook.url", "https://lb.example"),
        "t0ken",
        WHERE + ": webhook.url: not a setting of provider hetzner");
    assertRefused(
        Map.of("provider", "hetzner", "reconcile.concurrency", "1000"),
        "t0ken",
        WHERE + ": reconcile.concurrency: not a setting of provider hetzner");
  }

  @Test
  void badValuesAndUnknownSettingsAreNamedAndHetznerNeedsAToken() {
    assertRefused(
        Map.of(
            "provider",
            "hetzner",
            "hetzner.location",
            "fsn1",
            "hetzner.type",
            "lb11x",
            "hetzner.healthCheck.retries",
            "many"),
        "t0ken",
        WHERE + ": hetzner.healthCheck.retries: invalid value 'many'");
    assertRefused(
        Map.of("provider", "hetzner", "hetzner.colour", "blue"),
        "t0ken",
        WHERE + ": unknown option 'hetzner.colour'");
    assertRefused(
        Map.of("provider", "hetzner"), "", "data.provider-token: missing; provider hetzner needs");
  }
}
