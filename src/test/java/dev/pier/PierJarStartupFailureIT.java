package dev.pier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fat jar as users run it, with the shipped conf/pier.yaml and leader election on, when it
 * cannot start: it logs why and exits non-zero within seconds instead of hanging. Runs in the
 * integration-test phase (maven-failsafe), after the jar is built; failsafe passes its path.
 */
@RealKubeApiServer
class PierJarStartupFailureIT {
  private static final Duration EXIT = Duration.ofSeconds(20);

  @Test
  void anAdminPortInUseIsLoggedWithTheAddressAndTheProcessExits(KubeApiServer kube)
      throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
      int port = taken.getLocalPort();
      Map<String, String> env = env();
      env.put(PierOptions.ADMIN_HOST.envName(), "0.0.0.0");
      env.put(PierOptions.ADMIN_PORT.envName(), Integer.toString(port));
      try (PierProcess pier = PierProcess.startJar(kube, "port-in-use", jar(), CONFIG, env)) {
        // The JVM start counts too: within the startup allowance, then seconds after the bind.
        int code = pier.waitForExit(PierProcess.STARTUP.plus(EXIT));
        assertThat(code).as(pier.log()).isNotIn(0, -1);
        assertThat(pier.log())
            .contains("admin server: cannot listen on 0.0.0.0:" + port + ": address in use");
      }
    }
  }

  @Test
  void aStartThatDoesNotCompleteInTimeNamesWhatItWaitedForAndTheProcessExits(KubeApiServer kube) {
    Map<String, String> env = env();
    env.put(PierOptions.STARTUP_TIMEOUT.envName(), "3s");
    kube.freeze();
    try (PierProcess pier = PierProcess.startJar(kube, "timeout", jar(), CONFIG, env)) {
      int code = pier.waitForExit(PierProcess.STARTUP.plus(EXIT));
      assertThat(code).as(pier.log()).isNotIn(0, -1);
      assertThat(pier.log())
          .contains("Pier did not start within 3s")
          .contains("cluster kubernetes: its identity");
    } finally {
      kube.thaw();
    }
  }

  private static final Path CONFIG = Path.of("conf", "pier.yaml");

  private static Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.PROVIDER.envName(), "local");
    env.put(PierOptions.LOCAL_POOLS.envName(), "127.246.0.0/24");
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "true");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), "default");
    return env;
  }

  private static Path jar() {
    String jarPath = System.getProperty("pier.jar");
    assertThat(jarPath)
        .as("system property pier.jar (set by maven-failsafe after package)")
        .isNotBlank();
    Path jar = Path.of(jarPath);
    assertThat(jar).as("the fat jar; run mvn verify so that package builds it").isRegularFile();
    return jar;
  }
}
