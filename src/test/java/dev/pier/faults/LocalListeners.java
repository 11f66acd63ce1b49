package dev.pier.faults;

import io.fabric8.kubernetes.api.model.ServicePort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The local provider's load balancers as the kernel sees them: the TCP sockets listening on an
 * address of the pool ({@code /proc/net/tcp} and {@code tcp6}) and the UDP sockets bound to one and
 * not connected ({@code /proc/net/udp} and {@code udp6}), so that a listener Pier forgot is found
 * too, of either protocol.
 */
record LocalListeners(String addressPrefix) implements Cloud {
  // The socket states that mean "a listener": TCP_LISTEN, and an unconnected UDP socket.
  private static final Map<String, String> LISTENING =
      Map.of(
          "/proc/net/tcp",
          "0A",
          "/proc/net/tcp6",
          "0A",
          "/proc/net/udp",
          "07",
          "/proc/net/udp6",
          "07");
  // ::ffff:0:0/96 as /proc/net/tcp6 writes it: four 32-bit words, each in host byte order.
  private static final String V4_MAPPED = "0000000000000000FFFF0000";

  @Override
  public Map<String, Set<String>> loadBalancers() {
    Map<String, Set<String>> out = new TreeMap<>();
    // A JVM listens on dual-stack sockets: an IPv4 address shows as ::ffff:a.b.c.d in tcp6.
    for (String table :
        List.of("/proc/net/tcp", "/proc/net/tcp6", "/proc/net/udp", "/proc/net/udp6")) {
      String protocol = table.contains("udp") ? "UDP" : "TCP";
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 4 || !f[3].equals(LISTENING.get(table))) {
          continue;
        }
        String[] local = f[1].split(":");
        String hex = local[0];
        if (hex.length() == 32 && !hex.startsWith(V4_MAPPED)) {
          continue;
        }
        String ip = ipv4(hex.substring(hex.length() - 8));
        if (ip.startsWith(addressPrefix)) {
          out.computeIfAbsent(ip, k -> new TreeSet<>())
              .add(protocol + "/" + Integer.parseInt(local[1], 16));
        }
      }
    }
    return out;
  }

  @Override
  public String port(ServicePort p) {
    return p.getProtocol() + "/" + p.getPort();
  }

  /** /proc/net/tcp writes an IPv4 address as the hex of its bytes in host (little-endian) order. */
  private static String ipv4(String hex) {
    long v = Long.parseLong(hex, 16);
    return (v & 0xff)
        + "."
        + ((v >> 8) & 0xff)
        + "."
        + ((v >> 16) & 0xff)
        + "."
        + ((v >> 24) & 0xff);
  }
}
