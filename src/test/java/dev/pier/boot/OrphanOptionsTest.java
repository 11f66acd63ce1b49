package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The orphan sweep has one provider-independent switch, {@code orphans.cleanup}; the Hetzner keys
 * stay as aliases for users who set only them.
 */
class OrphanOptionsTest {
  private static ConfigValues config(Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(null);
  }

  @Test
  void offByDefault() {
    ConfigValues c = config(Map.of());
    assertThat(Components.orphanCleanup(c)).isFalse();
    assertThat(Components.orphanPeriod(c)).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void theProviderIndependentSwitchTurnsItOnWithItsPeriod() {
    ConfigValues c =
        config(
            Map.of(
                PierOptions.ORPHANS_CLEANUP.envName(), "true",
                PierOptions.ORPHANS_PERIOD.envName(), "30s",
                PierOptions.HETZNER_ORPHAN_CLEANUP_PERIOD.envName(), "1m"));
    assertThat(Components.orphanCleanup(c)).isTrue();
    assertThat(Components.orphanPeriod(c)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void theHetznerKeysAloneKeepWorkingAsAliases() {
    ConfigValues c =
        config(
            Map.of(
                PierOptions.HETZNER_ORPHAN_CLEANUP.envName(), "true",
                PierOptions.HETZNER_ORPHAN_CLEANUP_PERIOD.envName(), "1m"));
    assertThat(Components.orphanCleanup(c)).isTrue();
    assertThat(Components.orphanPeriod(c)).isEqualTo(Duration.ofMinutes(1));
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      assertThat(
              HetznerProviders.create(vertx, c, Map.of("HCLOUD_TOKEN", "t")::get)
                  .ownedLoadBalancers())
          .isPresent();
    } finally {
      vertx.close();
    }
  }

  @Test
  void theHetznerProviderListsWhenOnlyTheGeneralSwitchIsOn() {
    ConfigValues c = config(Map.of(PierOptions.ORPHANS_CLEANUP.envName(), "true"));
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      assertThat(
              HetznerProviders.create(vertx, c, Map.of("HCLOUD_TOKEN", "t")::get)
                  .ownedLoadBalancers())
          .isPresent();
    } finally {
      vertx.close();
    }
  }
}
