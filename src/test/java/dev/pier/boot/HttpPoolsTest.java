package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A client's pool holds as many connections as the work that can use it at once, unless its option
 * says how many.
 */
class HttpPoolsTest {
  private static ConfigValues config(Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(null);
  }

  @Test
  void byDefaultAProvidersPoolFitsFullReconcilesAndNodeSyncsTogether() {
    ConfigValues defaults = config(Map.of());
    int expected =
        defaults.get(PierOptions.RECONCILE_CONCURRENCY)
            + defaults.get(PierOptions.NODE_SYNC_CONCURRENCY);
    assertThat(HttpPools.provider(defaults, PierOptions.WEBHOOK_MAX_CONNECTIONS))
        .isEqualTo(expected);
    assertThat(HttpPools.provider(defaults, PierOptions.HETZNER_MAX_CONNECTIONS))
        .isEqualTo(expected);
    ConfigValues tuned =
        config(
            Map.of(
                PierOptions.RECONCILE_CONCURRENCY.envName(), "30",
                PierOptions.NODE_SYNC_CONCURRENCY.envName(), "12"));
    assertThat(HttpPools.provider(tuned, PierOptions.WEBHOOK_MAX_CONNECTIONS)).isEqualTo(42);
    assertThat(HttpPools.provider(tuned, PierOptions.HETZNER_MAX_CONNECTIONS)).isEqualTo(42);
  }

  @Test
  void byDefaultADnsPoolFitsTheReconcileAndTheFederationQueues() {
    ConfigValues defaults = config(Map.of());
    assertThat(HttpPools.dns(defaults, PierOptions.DNS_POWERDNS_MAX_CONNECTIONS))
        .isEqualTo(2 * defaults.get(PierOptions.RECONCILE_CONCURRENCY));
    ConfigValues tuned =
        config(
            Map.of(
                PierOptions.RECONCILE_CONCURRENCY.envName(), "30",
                PierOptions.NODE_SYNC_CONCURRENCY.envName(), "12"));
    assertThat(HttpPools.dns(tuned, PierOptions.DNS_POWERDNS_MAX_CONNECTIONS)).isEqualTo(60);
    assertThat(HttpPools.dns(tuned, PierOptions.DNS_EXTERNAL_DNS_MAX_CONNECTIONS)).isEqualTo(60);
  }

  @Test
  void aPositiveOptionOverridesTheAutomaticSize() {
    ConfigValues c =
        config(
            Map.of(
                PierOptions.RECONCILE_CONCURRENCY.envName(), "30",
                PierOptions.WEBHOOK_MAX_CONNECTIONS.envName(), "7",
                PierOptions.HETZNER_MAX_CONNECTIONS.envName(), "8",
                PierOptions.DNS_POWERDNS_MAX_CONNECTIONS.envName(), "9",
                PierOptions.DNS_EXTERNAL_DNS_MAX_CONNECTIONS.envName(), "1"));
    assertThat(HttpPools.provider(c, PierOptions.WEBHOOK_MAX_CONNECTIONS)).isEqualTo(7);
    assertThat(HttpPools.provider(c, PierOptions.HETZNER_MAX_CONNECTIONS)).isEqualTo(8);
    assertThat(HttpPools.dns(c, PierOptions.DNS_POWERDNS_MAX_CONNECTIONS)).isEqualTo(9);
    assertThat(HttpPools.dns(c, PierOptions.DNS_EXTERNAL_DNS_MAX_CONNECTIONS)).isEqualTo(1);
  }

  @Test
  void zeroMeansAutomatic() {
    ConfigValues c =
        config(
            Map.of(
                PierOptions.RECONCILE_CONCURRENCY.envName(), "30",
                PierOptions.NODE_SYNC_CONCURRENCY.envName(), "12",
                PierOptions.WEBHOOK_MAX_CONNECTIONS.envName(), "0",
                PierOptions.DNS_EXTERNAL_DNS_MAX_CONNECTIONS.envName(), "0"));
    assertThat(HttpPools.provider(c, PierOptions.WEBHOOK_MAX_CONNECTIONS)).isEqualTo(42);
    assertThat(HttpPools.dns(c, PierOptions.DNS_EXTERNAL_DNS_MAX_CONNECTIONS)).isEqualTo(60);
  }
}
