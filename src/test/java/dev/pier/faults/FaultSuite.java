package dev.pier.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * What the fault suite's scenarios share: the fat jar with the shipped {@code conf/pier.yaml},
 * configured per scenario through {@code PIER_*} variables.
 *
 * <p>Every jar runs with the shipped retry delays ({@code reconcile.minRetryDelay} 5 s, doubling up
 * to {@code reconcile.maxRetryDelay} 300 s), not the short ones {@link PierProcess} gives the tests
 * that run Pier from the class path; a scenario that shortens them ({@link #shortRetries}) says why
 * next to the call.
 */
final class FaultSuite {
  /** The one node every scenario's load balancers send to. */
  static final String NODE = "fault-node";

  /** How long a scenario waits for everything to converge once a fault is gone. */
  static final Duration CONVERGE = Duration.ofSeconds(60);

  private FaultSuite() {}

  static Path jar() {
    String jarPath = System.getProperty("pier.jar");
    assertThat(jarPath)
        .as("system property pier.jar (set by maven-failsafe after package)")
        .isNotBlank();
    Path jar = Path.of(jarPath);
    assertThat(jar).as("the fat jar; run mvn verify so that package builds it").isRegularFile();
    return jar;
  }

  /** Starts {@code java -jar pier.jar --config conf/pier.yaml} with these variables. */
  static PierProcess startJar(KubeApiServer kube, String name, Map<String, String> env) {
    return startJar(kube, name, jarConfig(), env);
  }

  /**
   * Starts {@code java -jar pier.jar --config config} with these variables, at the retry delays
   * {@code config} sets (the shipped ones with {@link #jarConfig()}) unless {@code env} sets them.
   */
  static PierProcess startJar(
      KubeApiServer kube, String name, Path config, Map<String, String> env) {
    Map<String, String> all = new HashMap<>();
    // PierProcess shortens them for every process it starts; a null removes its variable.
    all.put(PierOptions.RECONCILE_MIN_RETRY_DELAY.envName(), null);
    all.put(PierOptions.RECONCILE_MAX_RETRY_DELAY.envName(), null);
    all.putAll(env);
    return PierProcess.startJar(kube, name, jar(), config, all);
  }

  /**
   * The shipped configuration file. Every option is at its default there; what a scenario runs with
   * besides is what it sets in the environment, and what {@link PierProcess} sets for every process
   * it starts: the admin endpoints on a free loopback port, and the local provider's health checks
   * every 300 ms (300 ms timeout).
   */
  static Path jarConfig() {
    return Path.of("conf", "pier.yaml");
  }

  /**
   * Shortens the retry delays of failed runs to 200 ms, doubling up to 2 s (shipped: 5 s, up to 300
   * s). A scenario that calls this says why next to the call.
   */
  static Map<String, String> shortRetries(Map<String, String> env) {
    env.put(PierOptions.RECONCILE_MIN_RETRY_DELAY.envName(), "200ms");
    env.put(PierOptions.RECONCILE_MAX_RETRY_DELAY.envName(), "2s");
    return env;
  }

  /**
   * The webhook provider against {@code url}, with short retries of its own requests (one retry
   * after 200 ms: {@code webhook.retries}, {@code webhook.retryDelay}).
   */
  static Map<String, String> webhook(String url) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.PROVIDER.envName(), "webhook");
    env.put(PierOptions.WEBHOOK_URL.envName(), url);
    env.put(PierOptions.WEBHOOK_RETRIES.envName(), "1");
    env.put(PierOptions.WEBHOOK_RETRY_DELAY.envName(), "200ms");
    return env;
  }

  /** A TCP LoadBalancer Service with one port per entry of {@code ports} (port, nodePort). */
  static Service loadBalancer(String ns, String name, int port, int nodePort) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withSelector(Map.of("app", name))
        .addNewPort()
        .withName("p" + port)
        .withProtocol("TCP")
        .withPort(port)
        .withNodePort(nodePort)
        .endPort()
        .endSpec()
        .build();
  }
}
