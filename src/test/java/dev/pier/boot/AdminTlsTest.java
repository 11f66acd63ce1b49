package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.testkit.ScaleOutCredentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminTlsTest {
  private static ConfigValues config(Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(null);
  }

  private static Map<String, String> files(Path cert, Path key) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.ADMIN_TLS_CERT_FILE.envName(), cert.toString());
    env.put(PierOptions.ADMIN_TLS_KEY_FILE.envName(), key.toString());
    return env;
  }

  private static Map<String, String> shared() {
    ScaleOutCredentials.Material m = ScaleOutCredentials.shared();
    return files(m.cert(), m.key());
  }

  @Test
  void theEmbeddedDefaultIsPlainHttpWithoutAnyFile() {
    assertThat(AdminTls.of(config(Map.of()))).isNull();
  }

  @Test
  void tokensOverPlainHttpAreRefusedUnlessInsecureSaysSo() {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.ADMIN_METRICS_AUTH.envName(), "kubernetes");
    assertThatThrownBy(() -> AdminTls.of(config(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("admin.metricsAuth: kubernetes needs admin.tls.certFile")
        .hasMessageContaining("admin.tls.insecure: true");
    env.put(PierOptions.ADMIN_TLS_INSECURE.envName(), "true");
    assertThat(AdminTls.of(config(env))).isNull();
    // No admin server, nothing to serve.
    env.remove(PierOptions.ADMIN_TLS_INSECURE.envName());
    env.put(PierOptions.ADMIN_PORT.envName(), "-1");
    assertThat(AdminTls.of(config(env))).isNull();
  }

  @Test
  void bothFilesMakeHttpsWithOrWithoutAuthentication() {
    Map<String, String> env = shared();
    AdminTls tls = AdminTls.of(config(env));
    assertThat(tls).isNotNull();
    assertThat(tls.keyCert().getCertPaths())
        .containsExactly(env.get(PierOptions.ADMIN_TLS_CERT_FILE.envName()));
    assertThat(tls.keyCert().getKeyPaths())
        .containsExactly(env.get(PierOptions.ADMIN_TLS_KEY_FILE.envName()));
    env.put(PierOptions.ADMIN_METRICS_AUTH.envName(), "kubernetes");
    assertThat(AdminTls.of(config(env))).isEqualTo(tls);
  }

  @Test
  void oneFileWithoutTheOtherOrWithInsecureIsRefusedByName() {
    Map<String, String> env = shared();
    env.remove(PierOptions.ADMIN_TLS_KEY_FILE.envName());
    assertThatThrownBy(() -> AdminTls.of(config(env)))
        .hasMessageContaining("admin.tls.keyFile is not set, but admin.tls.certFile is");
    Map<String, String> both = shared();
    both.put(PierOptions.ADMIN_TLS_INSECURE.envName(), "true");
    assertThatThrownBy(() -> AdminTls.of(config(both)))
        .hasMessageContaining("admin.tls.insecure is true and admin.tls.certFile");
  }

  @Test
  void aMissingOrWrongFileIsNamedWithItsOptionAndPath(@TempDir Path dir) throws IOException {
    ScaleOutCredentials.Material m = ScaleOutCredentials.shared();
    Path nope = dir.resolve("nope.crt");
    assertThatThrownBy(() -> AdminTls.of(config(files(nope, m.key()))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("admin.tls.certFile: cannot read " + nope);
    Path notACert = Files.writeString(dir.resolve("tls.crt"), "hello\n");
    assertThatThrownBy(() -> AdminTls.of(config(files(notACert, m.key()))))
        .hasMessageContaining("admin.tls.certFile: " + notACert);
    // A key in the certificate's place and the other way round.
    assertThatThrownBy(() -> AdminTls.of(config(files(m.cert(), m.cert()))))
        .hasMessageContaining("admin.tls.keyFile: " + m.cert() + " holds no PEM private key");
    Path brokenKey =
        Files.writeString(
            dir.resolve("tls.key"),
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
    assertThatThrownBy(() -> AdminTls.of(config(files(m.cert(), brokenKey))))
        .hasMessageContaining("admin.tls.certFile, keyFile (")
        .hasMessageContaining("cannot load the certificate and key");
  }
}
