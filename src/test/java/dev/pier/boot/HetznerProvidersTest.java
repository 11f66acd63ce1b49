package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The API token comes from a file or an environment variable; problems name the option. */
class HetznerProvidersTest {
  @TempDir Path dir;

  private static ConfigValues config(Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(null);
  }

  @Test
  void tokenFromFileWinsAndIsTrimmed() throws Exception {
    Path f = dir.resolve("token");
    Files.writeString(f, "  secret-from-file\n");
    ConfigValues c = config(Map.of(PierOptions.HETZNER_TOKEN_FILE.envName(), f.toString()));
    assertThat(HetznerProviders.token(c, Map.of("HCLOUD_TOKEN", "from-env")::get))
        .isEqualTo("secret-from-file");
  }

  @Test
  void tokenFromTheNamedEnvironmentVariable() {
    ConfigValues c = config(Map.of(PierOptions.HETZNER_TOKEN_ENV.envName(), "MY_TOKEN"));
    assertThat(HetznerProviders.token(c, Map.of("MY_TOKEN", "from-env")::get))
        .isEqualTo("from-env");
  }

  @Test
  void missingOrEmptyTokensFailNamingTheOptions() throws Exception {
    ConfigValues none = config(Map.of());
    assertThatThrownBy(() -> HetznerProviders.token(none, Map.<String, String>of()::get))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("hetzner.tokenFile")
        .hasMessageContaining("HCLOUD_TOKEN");
    Path empty = dir.resolve("empty");
    Files.writeString(empty, "\n");
    ConfigValues c = config(Map.of(PierOptions.HETZNER_TOKEN_FILE.envName(), empty.toString()));
    assertThatThrownBy(() -> HetznerProviders.token(c, Map.<String, String>of()::get))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("hetzner.tokenFile")
        .hasMessageContaining("is empty");
    ConfigValues missing =
        config(Map.of(PierOptions.HETZNER_TOKEN_FILE.envName(), dir.resolve("nope").toString()));
    assertThatThrownBy(() -> HetznerProviders.token(missing, Map.<String, String>of()::get))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("nope");
  }
}
