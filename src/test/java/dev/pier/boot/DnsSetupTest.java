package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.dns.publish.DnsPublisher;
import dev.pier.policy.ServiceFilter;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DnsSetupTest {
  private static ConfigValues config(Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(null);
  }

  private static Map<String, String> enabled() {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.DNS_ENABLED.envName(), "true");
    return env;
  }

  private static DnsPublisher create(Map<String, String> env, Map<String, String> process) {
    return DnsSetup.create(null, config(env), new ServiceFilter(Set.of()), process::get);
  }

  @Test
  void offByDefault() {
    assertThat(create(Map.of(), Map.of())).isNull();
  }

  @Test
  void aZoneIsRequired() {
    assertThatThrownBy(() -> create(enabled(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("embedded defaults")
        .hasMessageContaining("dns.zone.name");
  }

  @Test
  void theSuffixMustBeInsideTheZone() {
    Map<String, String> env = enabled();
    env.put(PierOptions.DNS_ZONE_NAME.envName(), "example.com");
    env.put(PierOptions.DNS_SUFFIX.envName(), "example.org");
    assertThatThrownBy(() -> create(env, Map.of()))
        .hasMessageContaining("dns.suffix")
        .hasMessageContaining("'example.org'");
  }

  @Test
  void aMissingApiKeyNamesTheFileOptionAndTheVariable() {
    Map<String, String> env = enabled();
    env.put(PierOptions.DNS_ZONE_NAME.envName(), "example.com");
    assertThatThrownBy(() -> create(env, Map.of()))
        .hasMessageContaining("dns.powerdns.apiKeyFile")
        .hasMessageContaining("PDNS_API_KEY");
    env.put(PierOptions.DNS_POWERDNS_API_KEY_FILE.envName(), "no/such/key-file");
    assertThatThrownBy(() -> create(env, Map.of())).hasMessageContaining("no/such/key-file");
  }

  @Test
  void badValuesNameTheOption() {
    assertThatThrownBy(() -> config(Map.of(PierOptions.DNS_TTL.envName(), "0")))
        .hasMessageContaining("PIER_DNS_TTL")
        .hasMessageContaining("'0'");
    assertThatThrownBy(() -> config(Map.of(PierOptions.DNS_ZONE_NAME.envName(), "bad_zone!")))
        .hasMessageContaining("PIER_DNS_ZONE_NAME");
    assertThatThrownBy(() -> config(Map.of(PierOptions.DNS_POWERDNS_URL.envName(), "ftp://x")))
        .hasMessageContaining("PIER_DNS_POWERDNS_URL");
  }

  @Test
  void dnsFederationSetApartFromFederationNameFailsNamingBoth() {
    Map<String, String> env = enabled();
    env.put(PierOptions.DNS_FEDERATION.envName(), "pier");
    env.put(PierOptions.FEDERATION_NAME.envName(), "acme");
    assertThatThrownBy(() -> create(env, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "environment variable PIER_DNS_FEDERATION (dns.federation): invalid value 'pier':"
                + " must be 'acme' as federation.name (environment variable PIER_FEDERATION_NAME"
                + " (federation.name)), or unset: it defaults to federation.name");
  }

  @Test
  void theExternalDnsProviderNeedsNoApiKey() throws Exception {
    Map<String, String> env = enabled();
    env.put(PierOptions.DNS_ZONE_NAME.envName(), "example.com");
    env.put(PierOptions.DNS_PROVIDER.envName(), "externaldns");
    env.put(PierOptions.DNS_EXTERNAL_DNS_URL.envName(), "http://127.0.0.1:8888");
    Vertx vertx = Vertx.vertx();
    try {
      DnsPublisher publisher =
          DnsSetup.create(
              vertx, config(env), new ServiceFilter(Set.of()), Map.<String, String>of()::get);
      // Built although neither dns.powerdns.apiKeyFile nor PDNS_API_KEY is set.
      assertThat(publisher).isNotNull();
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBadTxtPrefixNamesTheOption() {
    assertThatThrownBy(
            () -> config(Map.of(PierOptions.DNS_EXTERNAL_DNS_TXT_PREFIX.envName(), "Bad_Prefix")))
        .hasMessageContaining(PierOptions.DNS_EXTERNAL_DNS_TXT_PREFIX.envName());
    assertThatThrownBy(() -> config(Map.of(PierOptions.DNS_PROVIDER.envName(), "route53")))
        .hasMessageContaining("externaldns");
  }
}
