package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.config.Option;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The option table is the one place defaults live: the shipped file and --help follow it. */
class PierOptionsTest {

  @Test
  void theShippedConfigFileSetsEveryOptionToItsDefault() {
    ConfigValues shipped =
        new ConfigLoader(PierOptions.ALL, Map.<String, String>of()::get)
            .load(Path.of("conf/pier.yaml"));
    for (Option<?> o : PierOptions.ALL) {
      assertThat(shipped.isSet(o)).as("conf/pier.yaml sets " + o.path()).isTrue();
      assertThat((Object) shipped.get(o)).as(o.path()).isEqualTo(o.defaultValue());
    }
  }

  @Test
  void helpNamesEveryOptionWithItsVariableAndDefault() {
    String help = Usage.text();
    for (Option<?> o : PierOptions.ALL) {
      assertThat(help)
          .contains(
              "  " + o.path() + " (" + o.envName() + ", " + Usage.display(o.defaultValue()) + ")");
      assertThat(help).contains(o.description());
    }
  }

  @Test
  void pathsAndVariablesAreUnique() {
    Set<String> paths = new HashSet<>();
    Set<String> vars = new HashSet<>();
    for (Option<?> o : PierOptions.ALL) {
      assertThat(paths.add(o.path())).as(o.path()).isTrue();
      assertThat(vars.add(o.envName())).as(o.envName()).isTrue();
    }
  }

  @Test
  void helpExplainsTheFieldsOfAClusterAndTheirVariables() {
    String help = Usage.text();
    for (String field :
        List.of(
            "name",
            "kubeconfig",
            "context",
            "inCluster",
            "region",
            "zones",
            "loadBalancers",
            "federation",
            "labels",
            "provider, local, hetzner, webhook, benchmark")) {
      assertThat(help).containsPattern("(?m)^ {4}" + Pattern.quote(field) + "( |$)");
    }
    assertThat(help)
        .contains("PIER_CLUSTERS_<NAME>_<FIELD>")
        .contains("PIER_CLUSTERS_EAST_KUBECONFIG")
        .contains("PIER_CLUSTERS_EAST_LOCAL_POOLS");
  }

  @Test
  void everyProviderOptionAndNoOtherIsAClustersOwn() {
    for (Option<?> o : PierOptions.ALL) {
      boolean provider =
          o.path().equals("provider") || o.path().matches("(local|hetzner|webhook|benchmark)\\..*");
      assertThat(PierOptions.PROVIDER_OPTIONS.contains(o)).as(o.path()).isEqualTo(provider);
    }
  }
}
