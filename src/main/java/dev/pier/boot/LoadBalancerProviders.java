package dev.pier.boot;

import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkLoadBalancerProvider;
import dev.pier.cloud.benchmark.BenchmarkProviderOptions;
import dev.pier.cloud.local.LocalLoadBalancerProvider;
import dev.pier.cloud.local.LocalProviderOptions;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import io.vertx.core.Vertx;

/** Builds the configured load balancer provider; runs once at startup. */
public final class LoadBalancerProviders {
  private LoadBalancerProviders() {}

  public static LoadBalancerProvider create(Vertx vertx, ConfigValues config) {
    String name = config.get(PierOptions.PROVIDER);
    return switch (name) {
      case "local" -> local(vertx, config);
      case "hetzner" -> HetznerProviders.create(vertx, config);
      case "webhook" -> WebhookProviders.create(vertx, config);
      case "benchmark" ->
          new BenchmarkLoadBalancerProvider(
              vertx,
              new BenchmarkProviderOptions().setDelay(config.get(PierOptions.BENCHMARK_DELAY)));
      default ->
          throw new ConfigException(
              config.source() + ": provider: unknown provider '" + name + "'");
    };
  }

  static LoadBalancerProvider local(Vertx vertx, ConfigValues config) {
    LocalProviderOptions options =
        new LocalProviderOptions()
            .setPools(config.get(PierOptions.LOCAL_POOLS))
            .setHealthCheckInterval(config.get(PierOptions.LOCAL_HEALTH_CHECK_INTERVAL))
            .setHealthCheckTimeout(config.get(PierOptions.LOCAL_HEALTH_CHECK_TIMEOUT))
            .setUnhealthyThreshold(config.get(PierOptions.LOCAL_UNHEALTHY_THRESHOLD))
            .setHealthyThreshold(config.get(PierOptions.LOCAL_HEALTHY_THRESHOLD))
            .setConnectTimeout(config.get(PierOptions.LOCAL_CONNECT_TIMEOUT))
            .setUdpSessionTimeout(config.get(PierOptions.LOCAL_UDP_SESSION_TIMEOUT));
    try {
      return new LocalLoadBalancerProvider(vertx, options);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          config.describe(PierOptions.LOCAL_POOLS) + ": " + e.getMessage(), e);
    }
  }
}
