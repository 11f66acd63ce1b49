package dev.pier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for a process a test starts to listen on, seconds later. A port the kernel chose (a bind to
 * port 0) lies in its ephemeral range, which outgoing connections take their local ports from: one
 * of them may take it before the process binds it (a scale-out replica's admin port was taken so by
 * another replica's Hazelcast connection). These ports lie outside that range, so only another
 * listener can take them, and none is handed out twice in one JVM. They stay below 10000 or above
 * the ephemeral range: the test API servers' node ports (10000-32767) are listened on by tests.
 */
public final class FreePorts {
  private static final Path EPHEMERAL = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int LOWEST = 5000;
  private static final int NODE_PORTS = 10000;
  private static final int HIGHEST = 65535;
  private static final int ATTEMPTS = 1000;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  /** A port nothing listens on now and the kernel never gives an outgoing connection. */
  public static int take() {
    int[] ephemeral = ephemeralRange();
    int below = Math.max(0, Math.min(ephemeral[0], NODE_PORTS) - LOWEST);
    int above = Math.max(0, HIGHEST - ephemeral[1]);
    if (below + above == 0) {
      throw new IllegalStateException(
          "no ports outside the ephemeral range " + ephemeral[0] + "-" + ephemeral[1]);
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < ATTEMPTS; i++) {
      int n = random.nextInt(below + above);
      int port = n < below ? LOWEST + n : ephemeral[1] + 1 + (n - below);
      if (bindable(port) && HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "no free port outside the ephemeral range after " + ATTEMPTS + " attempts");
  }

  /** Bound on every address, as a listener on any of them would conflict. */
  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Linux's range, or its default where it cannot be read. */
  private static int[] ephemeralRange() {
    if (!Files.isReadable(EPHEMERAL)) {
      return new int[] {32768, 60999};
    }
    try {
      // readString trusts the size /proc reports and reads too little; lines are read to the end.
      String[] bounds = Files.readAllLines(EPHEMERAL).get(0).trim().split("\\s+");
      return new int[] {Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1])};
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
