package dev.pier.testkit;

import dev.pier.Pier;
import dev.pier.boot.PierOptions;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.LoggerFactory;

/**
 * Runs Pier in the test's JVM against a test API server, configured as a user would configure it:
 * through {@code PIER_*} environment variables (given here as a map) over the embedded defaults.
 */
public final class InProcessPier implements AutoCloseable {
  private final Pier pier;

  private InProcessPier(Pier pier) {
    this.pier = pier;
  }

  /** Starts Pier with short retry delays and the given overrides (env-style names). */
  public static InProcessPier start(KubeApiServer kube, Map<String, String> overrides) {
    return start(kube, overrides, UnaryOperator.identity());
  }

  /** Starts Pier with its provider wrapped by a test double. */
  public static InProcessPier start(
      KubeApiServer kube, Map<String, String> overrides, UnaryOperator<LoadBalancerProvider> wrap) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), kube.kubeconfigPath().toString());
    env.putAll(overrides);
    return startFrom(null, env, wrap);
  }

  /**
   * Starts Pier with a config file (what a list of clusters needs) and environment overrides, with
   * the same short test delays.
   */
  public static InProcessPier startWithConfig(String yaml, Map<String, String> overrides) {
    return startWithConfig(yaml, overrides, UnaryOperator.identity());
  }

  /** Starts Pier with a config file and its provider wrapped by a test double. */
  public static InProcessPier startWithConfig(
      String yaml, Map<String, String> overrides, UnaryOperator<LoadBalancerProvider> wrap) {
    java.nio.file.Path file;
    try {
      file = java.nio.file.Files.createTempFile("pier-", ".yaml");
      java.nio.file.Files.writeString(file, yaml);
      file.toFile().deleteOnExit();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return startFrom(file, overrides, wrap);
  }

  private static InProcessPier startFrom(
      java.nio.file.Path file,
      Map<String, String> overrides,
      UnaryOperator<LoadBalancerProvider> wrap) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.RECONCILE_MIN_RETRY_DELAY.envName(), "200ms");
    env.put(PierOptions.RECONCILE_MAX_RETRY_DELAY.envName(), "2s");
    env.put(PierOptions.LOCAL_HEALTH_CHECK_INTERVAL.envName(), "300ms");
    env.put(PierOptions.LOCAL_HEALTH_CHECK_TIMEOUT.envName(), "300ms");
    env.put(PierOptions.ADMIN_PORT.envName(), "0");
    env.put(PierOptions.ADMIN_HOST.envName(), "127.0.0.1");
    env.putAll(overrides);
    ConfigValues config = new ConfigLoader(PierOptions.ALL, env::get).load(file);
    try {
      return new InProcessPier(
          Pier.start(
                  config,
                  wrap,
                  () -> LoggerFactory.getLogger(InProcessPier.class).info("Pier lost its Lease"))
              .toCompletionStage()
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS));
    } catch (Exception e) {
      throw new IllegalStateException("Pier did not start: " + e.getMessage(), e);
    }
  }

  public Pier pier() {
    return pier;
  }

  /** How many provider calls of this operation (ensure, verify, ...) completed successfully. */
  public double providerCalls(String operation) {
    var timer =
        pier.metrics()
            .registry()
            .find("pier.provider.call.duration")
            .tag("operation", operation)
            .tag("result", "success")
            .timer();
    return timer == null ? 0 : timer.count();
  }

  @Override
  public void close() {
    try {
      pier.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Where the stop waits: each thread's state and stack, in the test's output.
      StringBuilder threads = new StringBuilder();
      Thread.getAllStackTraces()
          .forEach(
              (t, frames) -> {
                threads.append('\n').append(t.getName()).append(' ').append(t.getState());
                for (StackTraceElement f : frames) {
                  threads.append("\n    at ").append(f);
                }
              });
      LoggerFactory.getLogger(InProcessPier.class).warn("Pier did not stop; threads:{}", threads);
      throw new IllegalStateException("Pier did not stop: " + e.getMessage(), e);
    }
  }

  /** How long tests wait for Pier to converge. */
  public static final Duration CONVERGE = Duration.ofSeconds(30);
}
