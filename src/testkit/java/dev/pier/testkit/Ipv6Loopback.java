package dev.pier.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Makes an IPv6 pool's addresses usable on this machine, as {@code 127.0.0.0/8} is for IPv4: a
 * {@code local} route for the pool on {@code lo} (so traffic to them is delivered locally) and
 * {@code net.ipv6.ip_nonlocal_bind=1} (Linux binds an IPv6 address only when an interface has it,
 * unlike IPv4, where a {@code local} route is enough). Both need root; {@code scripts/provision.sh}
 * sets them up for the test pool too.
 */
public final class Ipv6Loopback {

  /** The IPv6 pool of the dual-stack tests: unique-local addresses. */
  public static final String TEST_POOL = "fd00:7069:6572::/112";

  private static final Path NONLOCAL_BIND = Path.of("/proc/sys/net/ipv6/ip_nonlocal_bind");

  private Ipv6Loopback() {}

  /**
   * Routes {@code cidr} to {@code lo} and allows binding its addresses.
   *
   * @throws IllegalStateException saying what to run as root, when this is not possible
   */
  public static void ensure(String cidr) {
    String help =
        "IPv6 pool "
            + cidr
            + " needs, as root: ip -6 route replace local "
            + cidr
            + " dev lo && sysctl -w net.ipv6.ip_nonlocal_bind=1 (scripts/provision.sh does this)";
    try {
      if (!"1".equals(Files.readString(NONLOCAL_BIND, StandardCharsets.US_ASCII).trim())) {
        Files.writeString(NONLOCAL_BIND, "1", StandardCharsets.US_ASCII);
      }
    } catch (IOException | SecurityException e) {
      throw new IllegalStateException(help + ": " + e.getMessage(), e);
    }
    run(List.of("ip", "-6", "route", "replace", "local", cidr, "dev", "lo"), help);
  }

  private static void run(List<String> command, String help) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(help + ": " + String.join(" ", command) + " timed out");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            help + ": " + String.join(" ", command) + " exited " + p.exitValue() + ": " + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException(help + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(help + ": interrupted", e);
    }
  }
}
