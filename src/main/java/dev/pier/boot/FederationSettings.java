package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.federation.FederationOptions;
import java.util.Locale;

/** The {@code federation.*} options as {@link FederationOptions}, and the name DNS publishes. */
public final class FederationSettings {
  private FederationSettings() {}

  /**
   * The federation's settings.
   *
   * @throws ConfigException when dns.federation and federation.name are both set and differ
   */
  public static FederationOptions federationOptions(ConfigValues config) {
    dnsFederation(config);
    return new FederationOptions()
        .setName(config.get(PierOptions.FEDERATION_NAME))
        .setSecretNamespace(config.get(PierOptions.FEDERATION_SECRET_NAMESPACE))
        .setNamespaces(config.get(PierOptions.FEDERATION_NAMESPACES))
        .setNamespaceOptIn(config.get(PierOptions.FEDERATION_NAMESPACE_OPT_IN))
        .setUnreadyClusters(
            FederationOptions.UnreadyClusters.valueOf(
                config.get(PierOptions.FEDERATION_UNREADY_CLUSTERS).toUpperCase(Locale.ROOT)))
        .setHealthPeriod(config.get(PierOptions.FEDERATION_HEALTH_PERIOD))
        .setHealthTimeout(config.get(PierOptions.FEDERATION_HEALTH_TIMEOUT))
        .setFailureThreshold(config.get(PierOptions.FEDERATION_HEALTH_FAILURE_THRESHOLD))
        .setSuccessThreshold(config.get(PierOptions.FEDERATION_HEALTH_SUCCESS_THRESHOLD))
        .setDeleteTimeout(config.get(PierOptions.FEDERATION_DELETE_TIMEOUT))
        .setPanicThreshold(config.get(PierOptions.FEDERATION_PANIC_THRESHOLD))
        .setMaxHold(config.get(PierOptions.FEDERATION_MAX_HOLD))
        .setAggregateWait(config.get(PierOptions.FEDERATION_AGGREGATE_WAIT))
        .setLeaveGrace(config.get(PierOptions.FEDERATION_LEAVE_GRACE))
        .setCredentialExpiryWarning(config.get(PierOptions.FEDERATION_CREDENTIAL_EXPIRY_WARNING));
  }

  /**
   * The federation name in DNS names: {@code dns.federation} when set, else {@code
   * federation.name}.
   *
   * @throws ConfigException naming both when both are set and differ
   */
  public static String dnsFederation(ConfigValues config) {
    String federation = config.get(PierOptions.FEDERATION_NAME);
    if (!config.isSet(PierOptions.DNS_FEDERATION)) {
      return federation;
    }
    String dns = config.get(PierOptions.DNS_FEDERATION);
    if (config.isSet(PierOptions.FEDERATION_NAME) && !dns.equals(federation)) {
      throw new ConfigException(
          ConfigLoader.invalid(
              config.describe(PierOptions.DNS_FEDERATION),
              dns,
              "'"
                  + federation
                  + "' as federation.name ("
                  + config.describe(PierOptions.FEDERATION_NAME)
                  + "), or unset: it defaults to federation.name"));
    }
    return dns;
  }
}
