package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.model.MemberProvider;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where a member Secret's provider may point, checked when the Secret is read. */
class MemberEgressTest {
  private static final String WHERE = "annotation pier.dev/load-balancer-provider";

  private static ConfigValues config(Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(null);
  }

  private static final ConfigValues DEFAULTS = config(Map.of());
  private static final ConfigValues LOOPBACK_ALLOWED =
      config(Map.of("PIER_FEDERATION_MEMBER_EGRESS_ALLOW", "127.0.0.0/8,::1/128"));

  private static MemberProvider webhook(String url) {
    return new MemberProvider(Map.of("provider", "webhook", "webhook.url", url), "t0ken");
  }

  private static MemberProvider hetzner(String endpoint) {
    return new MemberProvider(Map.of("provider", "hetzner", "hetzner.endpoint", endpoint), "t0ken");
  }

  private static void assertRefused(ConfigValues config, MemberProvider p, String message) {
    assertThatThrownBy(() -> MemberProviders.check(config, p))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message)
        .hasMessageNotContaining("t0ken");
  }

  @Test
  void aLoopbackWebhookIsRefusedByNameWithoutAnAllowList() {
    assertRefused(
        DEFAULTS,
        webhook("https://127.0.0.1:8443/pier/v1"),
        WHERE
            + ": webhook.url: 'https://127.0.0.1:8443/pier/v1': 127.0.0.1 is a loopback address,"
            + " refused for a member's provider (federation.memberEgress.allow may allow it)");
    assertRefused(DEFAULTS, webhook("https://localhost:8443"), "127.0.0.1 is a loopback address");
    assertRefused(
        DEFAULTS,
        webhook("https://user:s3cret@127.0.0.1:8443/x?key=s3cret"),
        "webhook.url: 'https://127.0.0.1:8443/x': 127.0.0.1 is a loopback address");
    assertThatThrownBy(
            () ->
                MemberProviders.check(
                    DEFAULTS, webhook("https://user:s3cret@127.0.0.1:8443/x?key=s3cret")))
        .hasMessageNotContaining("s3cret");
    assertRefused(DEFAULTS, webhook("https://[::1]:8443"), "::1 is a loopback address");
  }

  @Test
  void literalLinkLocalAndPrivateEndpointsAreRefused() {
    assertRefused(
        DEFAULTS,
        hetzner("https://169.254.169.254/v1"),
        WHERE
            + ": hetzner.endpoint: 'https://169.254.169.254/v1': 169.254.169.254 is a link-local");
    assertRefused(DEFAULTS, webhook("https://10.96.0.10"), "10.96.0.10 is a private address");
    assertRefused(
        config(Map.of("PIER_FEDERATION_MEMBER_EGRESS_DENY", "203.0.113.0/24")),
        webhook("https://203.0.113.5"),
        "203.0.113.5 is in a denied range (203.0.113.0/24)");
  }

  @Test
  void aMemberMustUseHttpsWhereverItPoints() {
    // Without a token too: the member's requests still cross the network.
    assertRefused(
        DEFAULTS,
        new MemberProvider(Map.of("provider", "webhook", "webhook.url", "http://lb.example"), ""),
        WHERE + ": webhook.url: 'http://lb.example': a member's provider must use https");
    assertRefused(
        DEFAULTS, hetzner("http://api.example/v1"), "hetzner.endpoint: 'http://api.example/v1'");
    assertRefused(LOOPBACK_ALLOWED, webhook("http://lb.example"), "must use https");
  }

  @Test
  void theOperatorsAllowListLetsAMemberReachALocalStandIn() {
    assertThatCode(() -> MemberProviders.check(LOOPBACK_ALLOWED, webhook("http://localhost:9/x")))
        .doesNotThrowAnyException();
    assertThatCode(() -> MemberProviders.check(LOOPBACK_ALLOWED, webhook("https://127.0.0.1:9")))
        .doesNotThrowAnyException();
    // Only what it lists: localhost is 127.0.0.1 and ::1.
    assertRefused(
        config(Map.of("PIER_FEDERATION_MEMBER_EGRESS_ALLOW", "127.0.0.0/8")),
        webhook("http://localhost:9"),
        "must use https");
  }

  @Test
  void aPublicHttpsEndpointIsTaken() {
    assertThat(
            MemberProviders.check(DEFAULTS, webhook("https://lb.example/pier/v1"))
                .get(PierOptions.WEBHOOK_URL))
        .isEqualTo("https://lb.example/pier/v1");
    assertThatCode(() -> MemberProviders.check(DEFAULTS, hetzner("https://api.hetzner.cloud/v1")))
        .doesNotThrowAnyException();
  }

  @Test
  void anOptionThatIsNotACidrFailsStartupNamingItAndTheValue() {
    assertThatThrownBy(
            () -> config(Map.of("PIER_FEDERATION_MEMBER_EGRESS_ALLOW", "127.0.0.0/8,10.0.0.0/40")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("federation.memberEgress.allow")
        .hasMessageContaining("10.0.0.0/40");
    assertThatThrownBy(() -> config(Map.of("PIER_FEDERATION_MEMBER_EGRESS_DENY", "cluster.local")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PIER_FEDERATION_MEMBER_EGRESS_DENY")
        .hasMessageContaining("cluster.local");
  }
}
