package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.federation.FederationOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FederationSettingsTest {
  @TempDir Path dir;

  private static ConfigValues config(Path file, Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(file);
  }

  @Test
  void defaultsAreFederationOptionsDefaults() {
    FederationOptions o = FederationSettings.federationOptions(config(null, Map.of()));
    assertThat(o.name()).isEqualTo(FederationOptions.DEFAULT_NAME);
    assertThat(o.secretNamespace()).isEqualTo(FederationOptions.DEFAULT_SECRET_NAMESPACE);
    assertThat(o.namespaces()).isEmpty();
    assertThat(o.unreadyClusters()).isEqualTo(FederationOptions.UnreadyClusters.KEEP);
    assertThat(o.healthPeriod()).isEqualTo(FederationOptions.DEFAULT_HEALTH_PERIOD);
    assertThat(o.healthTimeout()).isEqualTo(FederationOptions.DEFAULT_HEALTH_TIMEOUT);
    assertThat(o.failureThreshold()).isEqualTo(FederationOptions.DEFAULT_FAILURE_THRESHOLD);
    assertThat(o.successThreshold()).isEqualTo(FederationOptions.DEFAULT_SUCCESS_THRESHOLD);
    assertThat(o.deleteTimeout()).isEqualTo(FederationOptions.DEFAULT_DELETE_TIMEOUT);
    assertThat(o.credentialExpiryWarning())
        .isEqualTo(FederationOptions.DEFAULT_CREDENTIAL_EXPIRY_WARNING)
        .isEqualTo(Duration.ofDays(30));
  }

  @Test
  void everyOptionReachesFederationOptions() throws IOException {
    Path f = dir.resolve("pier.yaml");
    Files.writeString(
        f,
        """
        federation:
          name: acme
          secretNamespace: pier-system
          namespaces: [shop, api]
          unreadyClusters: drop
          health:
            period: 20s
            timeout: 2s
            failureThreshold: 5
            successThreshold: 2
          deleteTimeout: 1h
          credentialExpiryWarning: 168h
        """);
    FederationOptions o = FederationSettings.federationOptions(config(f, Map.of()));
    assertThat(o.name()).isEqualTo("acme");
    assertThat(o.secretNamespace()).isEqualTo("pier-system");
    assertThat(o.namespaces()).isEqualTo(Set.of("shop", "api"));
    assertThat(o.unreadyClusters()).isEqualTo(FederationOptions.UnreadyClusters.DROP);
    assertThat(o.healthPeriod()).isEqualTo(Duration.ofSeconds(20));
    assertThat(o.healthTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(o.failureThreshold()).isEqualTo(5);
    assertThat(o.successThreshold()).isEqualTo(2);
    assertThat(o.deleteTimeout()).isEqualTo(Duration.ofHours(1));
    assertThat(o.credentialExpiryWarning()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void badValuesNameTheOption() {
    assertThatThrownBy(() -> config(null, Map.of("PIER_FEDERATION_HEALTH_FAILURE_THRESHOLD", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "environment variable PIER_FEDERATION_HEALTH_FAILURE_THRESHOLD"
                + " (federation.health.failureThreshold): invalid value '0': must be an integer"
                + " from 1 to 100");
    assertThatThrownBy(() -> config(null, Map.of("PIER_FEDERATION_UNREADY_CLUSTERS", "forget")))
        .hasMessageContaining("one of [keep, drop]");
    assertThatThrownBy(() -> config(null, Map.of("PIER_FEDERATION_NAME", "Acme")))
        .hasMessageContaining("federation.name")
        .hasMessageContaining("a DNS label");
  }

  @Test
  void aCredentialExpiryWarningThatIsNotAPositiveDurationIsAStartupFailure() throws IOException {
    assertThatThrownBy(
            () -> config(null, Map.of("PIER_FEDERATION_CREDENTIAL_EXPIRY_WARNING", "0s")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "environment variable PIER_FEDERATION_CREDENTIAL_EXPIRY_WARNING"
                + " (federation.credentialExpiryWarning): invalid value '0s': must be a duration"
                + " such as 500ms, 5s, 2m or 1h, from 1ms to 8760h");
    Path f = dir.resolve("pier.yaml");
    Files.writeString(f, "federation:\n  credentialExpiryWarning: thirty days\n");
    assertThatThrownBy(() -> config(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            f + ": federation.credentialExpiryWarning: invalid value 'thirty days'");
  }

  @Test
  void dnsFederationDefaultsToTheFederationName() {
    assertThat(FederationSettings.dnsFederation(config(null, Map.of()))).isEqualTo("pier");
    assertThat(
            FederationSettings.dnsFederation(config(null, Map.of("PIER_FEDERATION_NAME", "acme"))))
        .isEqualTo("acme");
    assertThat(FederationSettings.dnsFederation(config(null, Map.of("PIER_DNS_FEDERATION", "dns"))))
        .isEqualTo("dns");
    assertThat(
            FederationSettings.dnsFederation(
                config(
                    null, Map.of("PIER_DNS_FEDERATION", "acme", "PIER_FEDERATION_NAME", "acme"))))
        .isEqualTo("acme");
  }

  @Test
  void dnsFederationAndFederationNameSetApartFailNamingBoth() throws IOException {
    Path f = dir.resolve("pier.yaml");
    Files.writeString(f, "federation:\n  name: acme\ndns:\n  federation: pier\n");
    ConfigValues c = config(f, Map.of());
    assertThatThrownBy(() -> FederationSettings.dnsFederation(c))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f
                + ": dns.federation: invalid value 'pier': must be 'acme' as federation.name ("
                + f
                + ": federation.name), or unset: it defaults to federation.name");
    assertThatThrownBy(() -> FederationSettings.federationOptions(c))
        .isInstanceOf(ConfigException.class);
  }

  @Test
  void theMemberScopeIsClusterByDefaultAndNamespacesWithListedOptedInNamespaces()
      throws IOException {
    assertThat(FederationSettings.federationOptions(config(null, Map.of())).memberScope())
        .isEqualTo(FederationOptions.MemberScope.CLUSTER);
    Path f = dir.resolve("pier.yaml");
    Files.writeString(f, "federation:\n  memberScope: namespaces\n  namespaces: [shop]\n");
    FederationOptions o = FederationSettings.federationOptions(config(f, Map.of()));
    assertThat(o.memberScope()).isEqualTo(FederationOptions.MemberScope.NAMESPACES);
    assertThat(o.namespacedMembers()).isTrue();
    assertThat(o.namespaces()).containsExactly("shop");
  }

  @Test
  void namespacesScopeWithoutListedNamespacesFailsNamingBothOptions() throws IOException {
    Path f = dir.resolve("pier.yaml");
    Files.writeString(f, "federation:\n  memberScope: namespaces\n");
    ConfigValues c = config(f, Map.of());
    assertThatThrownBy(() -> FederationSettings.federationOptions(c))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            f
                + ": federation.memberScope: invalid value 'namespaces': must be 'cluster' while"
                + " federation.namespaces is empty (")
        .hasMessageContaining("federation.namespaces)");
  }

  @Test
  void namespacesScopeWithoutOptInFailsNamingTheEnvironmentVariables() {
    ConfigValues c =
        config(
            null,
            Map.of(
                "PIER_FEDERATION_MEMBER_SCOPE", "namespaces",
                "PIER_FEDERATION_NAMESPACES", "shop",
                "PIER_FEDERATION_NAMESPACE_OPT_IN", "false"));
    assertThatThrownBy(() -> FederationSettings.federationOptions(c))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "environment variable PIER_FEDERATION_MEMBER_SCOPE (federation.memberScope): invalid"
                + " value 'namespaces': must be 'cluster' while federation.namespaceOptIn is false"
                + " (environment variable PIER_FEDERATION_NAMESPACE_OPT_IN"
                + " (federation.namespaceOptIn)): with 'namespaces' only the namespaces of"
                + " federation.namespaces may reach the members");
  }

  @Test
  void anUnknownMemberScopeNamesTheChoices() {
    assertThatThrownBy(() -> config(null, Map.of("PIER_FEDERATION_MEMBER_SCOPE", "namespace")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("federation.memberScope")
        .hasMessageContaining("one of [cluster, namespaces]");
  }
}
