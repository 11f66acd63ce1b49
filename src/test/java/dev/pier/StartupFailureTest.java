package dev.pier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A start that cannot succeed fails, naming why, and releases everything it started: the caller
 * (Main) logs the cause and exits instead of hanging.
 */
@RealKubeApiServer
class StartupFailureTest {

  @Test
  void anAdminPortInUseFailsTheStartNamingTheAddressAndReleasesEverything(KubeApiServer kube)
      throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      ConfigValues config =
          config(kube, Map.of(PierOptions.ADMIN_PORT.envName(), Integer.toString(port)));
      Set<Thread> before = vertxThreads();

      assertThatThrownBy(() -> start(config))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .hasMessage("admin server: cannot listen on 127.0.0.1:" + port + ": address in use");
      assertNoVertxThreadsLeft(before);
    }
  }

  @Test
  void aStartThatDoesNotCompleteInTimeFailsNamingWhatItWaitedFor(KubeApiServer kube)
      throws Exception {
    ConfigValues config = config(kube, Map.of(PierOptions.STARTUP_TIMEOUT.envName(), "2s"));
    Set<Thread> before = vertxThreads();
    kube.freeze();
    try {
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> start(config))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .hasMessageContaining("Pier did not start within 2s")
          .hasMessageContaining("cluster kubernetes: its identity")
          // The informers' first lists do not wait for the identity read: both are pending.
          .hasMessageContaining("the WatchVerticle (its informers' first sync)");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(20));
    } finally {
      kube.thaw();
    }
    assertNoVertxThreadsLeft(before);
  }

  private static ConfigValues config(KubeApiServer kube, Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), kube.kubeconfigPath().toString());
    env.put(PierOptions.ADMIN_HOST.envName(), "127.0.0.1");
    env.put(PierOptions.ADMIN_PORT.envName(), "0");
    env.putAll(overrides);
    return new ConfigLoader(PierOptions.ALL, env::get).load(null);
  }

  private static Pier start(ConfigValues config) throws Exception {
    return Pier.start(config).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Pier's Vert.x instance (and its clients') closed: no Vert.x thread runs on. */
  private static void assertNoVertxThreadsLeft(Set<Thread> before) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        vertxThreads().stream()
                            .filter(t -> !before.contains(t))
                            .map(Thread::getName))
                    .as("threads of a Vert.x instance that was not closed")
                    .isEmpty());
  }

  private static Set<Thread> vertxThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("vert.x-"))
        .collect(Collectors.toSet());
  }
}
