package dev.pier.boot;

import dev.pier.cloud.hetzner.HetznerLoadBalancerProvider;
import dev.pier.cloud.hetzner.HetznerOptions;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.Secrets;
import dev.pier.util.Egress;
import dev.pier.util.RequestFence;
import io.vertx.core.Vertx;
import java.util.function.Function;

/** Builds the Hetzner provider from Pier's configuration; runs once at startup. */
public final class HetznerProviders {
  private HetznerProviders() {}

  public static HetznerLoadBalancerProvider create(
      Vertx vertx, ConfigValues config, RequestFence fence) {
    return create(vertx, config, System::getenv, fence);
  }

  static HetznerLoadBalancerProvider create(
      Vertx vertx, ConfigValues config, Function<String, String> env) {
    return create(vertx, config, env, RequestFence.OPEN);
  }

  static HetznerLoadBalancerProvider create(
      Vertx vertx, ConfigValues config, Function<String, String> env, RequestFence fence) {
    return withToken(vertx, config, token(config, env), fence);
  }

  /** The provider with {@code token}, not one from hetzner.tokenFile or hetzner.tokenEnv. */
  static HetznerLoadBalancerProvider withToken(
      Vertx vertx, ConfigValues config, String token, RequestFence fence) {
    return withToken(vertx, config, token, fence, Egress.OPEN);
  }

  /** As above, each request vetted by {@code egress} (a member Secret's provider). */
  static HetznerLoadBalancerProvider withToken(
      Vertx vertx, ConfigValues config, String token, RequestFence fence, Egress egress) {
    ClearTextGuard.check(
        config, PierOptions.HETZNER_ENDPOINT, PierOptions.HETZNER_ALLOW_HTTP, "the API token");
    HetznerOptions options =
        new HetznerOptions()
            .setEndpoint(config.get(PierOptions.HETZNER_ENDPOINT))
            .setToken(token)
            .setLocation(config.get(PierOptions.HETZNER_LOCATION))
            .setNetworkZone(config.get(PierOptions.HETZNER_NETWORK_ZONE))
            .setType(config.get(PierOptions.HETZNER_TYPE))
            .setAlgorithm(config.get(PierOptions.HETZNER_ALGORITHM))
            .setHealthCheckInterval(config.get(PierOptions.HETZNER_HEALTH_CHECK_INTERVAL))
            .setHealthCheckTimeout(config.get(PierOptions.HETZNER_HEALTH_CHECK_TIMEOUT))
            .setHealthCheckRetries(config.get(PierOptions.HETZNER_HEALTH_CHECK_RETRIES))
            .setUsePrivateIp(config.get(PierOptions.HETZNER_USE_PRIVATE_IP))
            .setRequestTimeout(config.get(PierOptions.HETZNER_REQUEST_TIMEOUT))
            .setMaxConnections(HttpPools.provider(config, PierOptions.HETZNER_MAX_CONNECTIONS))
            .setAnswerLimit(AnswerLimits.answer(config))
            .setInventoryLimit(AnswerLimits.inventory(config))
            .setActionPollInterval(config.get(PierOptions.HETZNER_ACTION_POLL_INTERVAL))
            .setActionTimeout(config.get(PierOptions.HETZNER_ACTION_TIMEOUT))
            .setRateLimitMaxWait(config.get(PierOptions.HETZNER_RATE_LIMIT_MAX_WAIT))
            .setOrphanCleanup(Components.orphanCleanup(config))
            .setAdoptByName(config.get(PierOptions.HETZNER_ADOPT_BY_NAME))
            .setEgress(egress);
    return new HetznerLoadBalancerProvider(vertx, options, fence);
  }

  /** The token from hetzner.tokenFile, else from the variable hetzner.tokenEnv names. */
  static String token(ConfigValues config, Function<String, String> env) {
    String var = config.get(PierOptions.HETZNER_TOKEN_ENV);
    try {
      return Secrets.fromFileOrEnv(config.get(PierOptions.HETZNER_TOKEN_FILE), var, env)
          .orElseThrow(
              () ->
                  new ConfigException(
                      config.source()
                          + ": "
                          + PierOptions.HETZNER_TOKEN_FILE.path()
                          + " is empty and the environment variable "
                          + var
                          + " ("
                          + PierOptions.HETZNER_TOKEN_ENV.path()
                          + ") is not set: provider hetzner needs an API token"))
          .value();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          config.describe(PierOptions.HETZNER_TOKEN_FILE) + ": " + e.getMessage(), e);
    }
  }
}
