package dev.pier.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A port handed to a process that binds it seconds later must not be one the kernel may give an
 * outgoing connection meanwhile: a scale-out replica's admin port, picked free, was taken by
 * another replica's Hazelcast connection as its local port before the replica bound it, and the
 * replica exited (admin server: address in use).
 */
class FreePortsTest {
  private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  @Test
  void aPortIsOutsideTheRangesOfOutgoingConnectionsAndNodePortsBindableAndHandedOutOnce()
      throws IOException {
    int[] ephemeral = ephemeralRange();
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      int port = FreePorts.take();
      assertThat(port < ephemeral[0] || port > ephemeral[1])
          .as("port %d outside the ephemeral range %d-%d", port, ephemeral[0], ephemeral[1])
          .isTrue();
      assertThat(port < 10000 || port > 32767)
          .as("port %d not a node port of the test API servers", port)
          .isTrue();
      assertThat(port).isBetween(1024, 65535);
      assertThat(seen.add(port)).as("port %d handed out once", port).isTrue();
    }
    int port = FreePorts.take();
    try (ServerSocket s = new ServerSocket(port)) {
      assertThat(s.getLocalPort()).isEqualTo(port);
    }
  }

  /** The kernel's range for local ports of outgoing connections (Linux's default elsewhere). */
  private static int[] ephemeralRange() throws IOException {
    if (!Files.isReadable(RANGE)) {
      return new int[] {32768, 60999};
    }
    // readString trusts the size /proc reports and reads too little; lines are read to the end.
    String[] bounds = Files.readAllLines(RANGE).get(0).trim().split("\\s+");
    return new int[] {Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1])};
  }
}
