package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.config.Option;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
}
