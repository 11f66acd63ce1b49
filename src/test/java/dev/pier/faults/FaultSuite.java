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
    return PierProcess.startJar(kube, name, jar(), jarConfig(), env);
  }

  /** The shipped configuration file, every option at its default. */
  static Path jarConfig() {
    return Path.of("conf", "pier.yaml");
  }

  /** The webhook provider against {@code url}, with the suite's short retries. */
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
