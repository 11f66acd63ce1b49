package dev.pier.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretsTest {
  @TempDir Path dir;

  @Test
  void aFileWinsOverTheEnvironmentAndIsTrimmed() throws Exception {
    Path f = dir.resolve("key");
    Files.writeString(f, "  s3cr3t-value\n");
    Secrets.Secret s =
        Secrets.fromFileOrEnv(f.toString(), "MY_KEY", Map.of("MY_KEY", "envkey")::get)
            .orElseThrow();
    assertThat(s.value()).isEqualTo("s3cr3t-value");
    assertThat(s.source()).isEqualTo("file " + f);
    assertThat(s.toString()).doesNotContain("s3cr3t");
  }

  @Test
  void theNamedEnvironmentVariableWhenNoFileIsSet() {
    Secrets.Secret s =
        Secrets.fromFileOrEnv("", "MY_KEY", Map.of("MY_KEY", " envkey ")::get).orElseThrow();
    assertThat(s.value()).isEqualTo("envkey");
    assertThat(s.toString()).doesNotContain("envkey").contains("MY_KEY");
    assertThat(Secrets.fromFileOrEnv("", "MY_KEY", Map.of("MY_KEY", "  ")::get)).isEmpty();
    assertThat(Secrets.fromFileOrEnv("", "MY_KEY", k -> null)).isEmpty();
  }

  @Test
  void anUnreadableOrEmptyFileIsAnErrorNamingIt() throws Exception {
    assertThatThrownBy(() -> Secrets.fromFile(dir.resolve("nope").toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope");
    Path empty = dir.resolve("empty");
    Files.writeString(empty, "\n");
    assertThatThrownBy(() -> Secrets.fromFileOrEnv(empty.toString(), "X", k -> "ignored"))
        .hasMessageContaining("is empty");
  }
}
