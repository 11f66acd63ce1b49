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
    FederationOptions.MemberScope scope = memberScope(config);
    return new FederationOptions()
        .setMemberScope(scope)
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
   * What Pier reads and writes in a member.
   *
   * @throws ConfigException naming the scope and the option it needs when {@code namespaces} comes
   *     without federation.namespaces or with namespaceOptIn false: the members' Roles are per
   *     listed namespace, so nothing else may reach them
   */
  static FederationOptions.MemberScope memberScope(ConfigValues config) {
    FederationOptions.MemberScope scope =
        FederationOptions.MemberScope.valueOf(
            config.get(PierOptions.FEDERATION_MEMBER_SCOPE).toUpperCase(Locale.ROOT));
    if (scope != FederationOptions.MemberScope.NAMESPACES) {
      return scope;
    }
    String needs = null;
    if (config.get(PierOptions.FEDERATION_NAMESPACES).isEmpty()) {
      needs =
          "'cluster' while federation.namespaces is empty ("
              + config.describe(PierOptions.FEDERATION_NAMESPACES)
              + "): with 'namespaces' Pier reads and writes a member only in the namespaces"
              + " listed there";
    } else if (!config.get(PierOptions.FEDERATION_NAMESPACE_OPT_IN)) {
      needs =
          "'cluster' while federation.namespaceOptIn is false ("
              + config.describe(PierOptions.FEDERATION_NAMESPACE_OPT_IN)
              + "): with 'namespaces' only the namespaces of federation.namespaces may reach the"
              + " members";
    }
    if (needs != null) {
      throw new ConfigException(
          ConfigLoader.invalid(
              config.describe(PierOptions.FEDERATION_MEMBER_SCOPE), "namespaces", needs));
    }
    return scope;
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
