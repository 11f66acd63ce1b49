package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnvironmentVariablesTest {
  @TempDir Path dir;

  private static ConfigValues load(Path file, Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(file);
  }

  @Test
  void aPierVariableThatMatchesNoOptionIsNamedWithTheNearestOption() {
    Map<String, String> env = Map.of("PIER_RECONCILE_CONCURENCY", "5", "HOME", "/root");
    assertThat(EnvironmentVariables.unknown(load(null, env), env))
        .containsExactly(
            "environment variable PIER_RECONCILE_CONCURENCY matches no option (did you mean"
                + " PIER_RECONCILE_CONCURRENCY?)");
  }

  @Test
  void optionsPiersOwnVariablesAndServiceLinksAreNotWarnedAbout() throws IOException {
    Path f =
        Files.writeString(
            dir.resolve("pier.yaml"),
            """
            clusters:
              - name: east-1
                kubeconfig: a
            hetzner:
              tokenEnv: PIER_HCLOUD
            """);
    Map<String, String> env = new HashMap<>();
    env.put("PIER_RECONCILE_CONCURRENCY", "5");
    env.put("PIER_LOG_LEVEL", "DEBUG");
    env.put("PIER_HCLOUD", "secret");
    env.put("PIER_CLUSTERS_EAST_1_KUBECONFIG", "b");
    env.put("PIER_CLUSTERS_EAST_1_LOCAL_POOLS", "10.0.0.0/24");
    env.put("PIER_SERVICE_HOST", "10.96.0.10");
    env.put("PIER_SERVICE_PORT", "9080");
    env.put("PIER_SERVICE_PORT_ADMIN", "9080");
    env.put("PIER_PORT", "tcp://10.96.0.10:9080");
    env.put("PIER_PORT_9080_TCP", "tcp://10.96.0.10:9080");
    env.put("PIER_PORT_9080_TCP_PROTO", "tcp");
    env.put("PIER_PORT_9080_TCP_PORT", "9080");
    env.put("PIER_PORT_9080_TCP_ADDR", "10.96.0.10");
    env.put("PIER_METRICS_SERVICE_HOST", "10.96.0.11");
    env.put("PIER_METRICS_PORT", "tcp://10.96.0.11:9080");
    env.put("PIER_METRICS_PORT_9080_TCP_ADDR", "10.96.0.11");
    ConfigValues config = load(f, env);
    PierOptions.ALL.forEach(o -> env.put(o.envName(), "any"));
    assertThat(EnvironmentVariables.unknown(config, env)).isEmpty();
  }

  @Test
  void variablesOfClustersNotConfiguredAndUnknownFieldsAreWarnedAbout() throws IOException {
    Path f =
        Files.writeString(
            dir.resolve("pier.yaml"), "clusters:\n  - name: east\n    kubeconfig: a\n");
    Map<String, String> env =
        Map.of(
            "PIER_CLUSTERS_WEST_KUBECONFIG", "b",
            "PIER_CLUSTERS_EAST_KUBECONFG", "c",
            "PIER_PORT", "9080");
    assertThat(EnvironmentVariables.unknown(load(f, env), env))
        .hasSize(3)
        .anySatisfy(w -> assertThat(w).contains("PIER_CLUSTERS_WEST_KUBECONFIG"))
        .anySatisfy(
            w ->
                assertThat(w)
                    .contains("PIER_CLUSTERS_EAST_KUBECONFG")
                    .contains("did you mean PIER_CLUSTERS_EAST_KUBECONFIG?"))
        .anySatisfy(w -> assertThat(w).startsWith("environment variable PIER_PORT "));
  }

  @Test
  void theStrictSwitchIsAnOptionSettableFromTheEnvironment() {
    assertThat(PierOptions.CONFIG_STRICT_ENVIRONMENT.path()).isEqualTo("config.strictEnvironment");
    assertThat(PierOptions.CONFIG_STRICT_ENVIRONMENT.defaultValue()).isFalse();
    Map<String, String> env = Map.of("PIER_CONFIG_STRICT_ENVIRONMENT", "true");
    assertThat(load(null, env).get(PierOptions.CONFIG_STRICT_ENVIRONMENT)).isTrue();
    assertThat(EnvironmentVariables.unknown(load(null, env), env)).isEmpty();
  }

  @Test
  void strictMakesAnUnknownVariableAConfigurationError() {
    Map<String, String> lenient = Map.of("PIER_TYPO", "1");
    assertThat(EnvironmentVariables.check(load(null, lenient), lenient))
        .containsExactly("environment variable PIER_TYPO matches no option");
    Map<String, String> strict = Map.of("PIER_TYPO", "1", "PIER_CONFIG_STRICT_ENVIRONMENT", "true");
    assertThatThrownBy(() -> EnvironmentVariables.check(load(null, strict), strict))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "environment variable PIER_TYPO matches no option (environment variable"
                + " PIER_CONFIG_STRICT_ENVIRONMENT (config.strictEnvironment) is true)");
  }

  @Test
  void helpNamesPiersOwnVariablesAndTheStrictSwitch() {
    String help = Usage.text();
    for (String name : EnvironmentVariables.OWN.keySet()) {
      assertThat(help).contains(name);
    }
    assertThat(EnvironmentVariables.OWN).containsKey("PIER_LOG_LEVEL");
    for (String name :
        new String[] {"POD_NAME", "HOSTNAME", "KUBECONFIG", "HCLOUD_TOKEN", "PDNS_API_KEY"}) {
      assertThat(EnvironmentVariables.OTHERS).containsKey(name);
      assertThat(help).contains("  " + name + "\n      " + EnvironmentVariables.OTHERS.get(name));
    }
    assertThat(help)
        .contains("config.strictEnvironment")
        .contains("PIER_CONFIG_STRICT_ENVIRONMENT");
    assertThat(help).contains("PIER_SERVICE_HOST");
  }
}
