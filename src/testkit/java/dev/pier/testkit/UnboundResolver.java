package dev.pier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real recursive resolver ({@code unbound} from Debian's {@code unbound}) on a free loopback
 * port, sending the queries for one zone to a {@link PowerDnsServer} (a stub zone). Every caching
 * setting is left at Unbound's defaults (no {@code cache-min-ttl}, no prefetch, no serve-expired):
 * the config only makes it run unprivileged in the foreground on loopback, lets it ask a server on
 * loopback, switches off DNSSEC validation (the test zone is unsigned and there is no internet to
 * prove it insecure from the root) and lifts the default local zone of a special-use TLD the zone
 * may be under. Fails loudly when the binary is missing: run {@code scripts/provision.sh}.
 */
public final class UnboundResolver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UnboundResolver.class);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

  private final Path dir;
  private final int port;
  private final Process process;

  private UnboundResolver(Path dir, int port, Process process) {
    this.dir = dir;
    this.port = port;
    this.process = process;
    Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "unbound-shutdown"));
  }

  /** Starts a resolver that asks {@code pdns} for every name in {@code zone}. */
  public static UnboundResolver start(PowerDnsServer pdns, String zone) {
    return start(pdns, zone, false);
  }

  /**
   * As {@link #start(PowerDnsServer, String)}, with Unbound's {@code subnetcache} module sending
   * EDNS Client Subnet to {@code pdns}: a client's own ECS option is passed on (a client without
   * one is sent as its address truncated to /24), and answers are cached per the scope PowerDNS
   * returns, as a public resolver that supports ECS does.
   */
  public static UnboundResolver startWithClientSubnet(PowerDnsServer pdns, String zone) {
    return start(pdns, zone, true);
  }

  private static UnboundResolver start(PowerDnsServer pdns, String zone, boolean clientSubnet) {
    Path binary = Path.of("/usr/sbin/unbound");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          binary + " not found (Debian package unbound): run scripts/provision.sh");
    }
    String tld = zone.replaceAll("\\.$", "").replaceAll(".*\\.", "");
    try {
      Path dir = Files.createTempDirectory("pier-unbound-");
      for (int attempt = 0; attempt < 5; attempt++) {
        int port = freeUdpPort();
        Files.writeString(
            dir.resolve("unbound.conf"),
            String.join(
                "\n",
                "server:",
                "  interface: 127.0.0.1",
                "  port: " + port,
                "  do-daemonize: no",
                "  username: \"\"",
                "  chroot: \"\"",
                "  directory: \"" + dir + "\"",
                "  pidfile: \"" + dir.resolve("unbound.pid") + "\"",
                "  use-syslog: no",
                "  logfile: \"\"",
                "  verbosity: 1",
                "  access-control: 127.0.0.0/8 allow",
                "  do-not-query-localhost: no",
                "  do-ip6: no",
                clientSubnet
                    ? String.join(
                        "\n",
                        "  module-config: \"subnetcache iterator\"",
                        "  send-client-subnet: 127.0.0.1",
                        "  client-subnet-always-forward: yes",
                        "  max-client-subnet-ipv4: 24")
                    : "  module-config: \"iterator\"",
                "  local-zone: \"" + tld + ".\" nodefault",
                "stub-zone:",
                "  name: \"" + zone + "\"",
                "  stub-addr: 127.0.0.1@" + pdns.dnsPort(),
                "remote-control:",
                "  control-enable: no",
                ""));
        Process p =
            new ProcessBuilder(
                    binary.toString(), "-d", "-c", dir.resolve("unbound.conf").toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("unbound.log").toFile())
                .start();
        UnboundResolver r = new UnboundResolver(dir, port, p);
        if (r.awaitReady()) {
          LOG.info("Unbound up on 127.0.0.1:{}, {} from PowerDNS", port, zone);
          return r;
        }
        r.stop();
      }
      throw new IllegalStateException(
          "unbound did not start: " + Files.readString(dir.resolve("unbound.log")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
  }

  private boolean awaitReady() {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline && process.isAlive()) {
      try {
        DnsQuery.ask(address(), "localhost.", null, Duration.ofMillis(200));
        return true;
      } catch (UncheckedIOException notYet) {
        // still starting
      }
    }
    return false;
  }

  private void stop() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }

  private static int freeUdpPort() {
    InetAddress lo = InetAddress.getLoopbackAddress();
    for (int i = 0; i < 200; i++) {
      int port = ThreadLocalRandom.current().nextInt(33000, 60000);
      try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(lo, port))) {
        return port;
      } catch (IOException busy) {
        // another
      }
    }
    throw new IllegalStateException("no free port");
  }

  /** The resolver's log, for the message of a failing test. */
  public List<String> log() {
    try {
      return Files.readAllLines(dir.resolve("unbound.log"));
    } catch (IOException e) {
      return List.of();
    }
  }
}
