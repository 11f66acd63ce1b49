package dev.pier.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Waiting for processes to be ready stops at the first that exited, and says why it did: a replica
 * that failed to start exits at once, and a wait that goes on for its full minute and a half shows
 * only a timeout.
 */
@RealKubeApiServer
class PierProcessTest {

  @Test
  void awaitingReadinessFailsAtOnceNamingAProcessThatExitedAndItsLastWords(KubeApiServer kube)
      throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        PierProcess pier =
            PierProcess.start(
                kube, "exits", Map.of("PIER_ADMIN_PORT", Integer.toString(taken.getLocalPort())))) {
      long t0 = System.nanoTime();

      assertThatThrownBy(() -> PierProcess.awaitReady(Map.of("a", pier), PierProcess.STARTUP))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("Pier a exited with status 1 before it was ready")
          .hasMessageContaining(
              "admin server: cannot listen on 127.0.0.1:"
                  + taken.getLocalPort()
                  + ": address in use");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(45));
    }
  }
}
