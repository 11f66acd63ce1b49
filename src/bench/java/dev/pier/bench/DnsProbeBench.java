package dev.pier.bench;

import dev.pier.federation.FederationOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.NetServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The cost of Pier's data-path probes ({@code scripts/bench/run.sh dns-probe}): N federated
 * Services in M members, each member's load balancer a real listener on its own loopback address
 * (127.(20+m).x.y), probed by {@link DnsProbeTarget} (Pier's {@code DataPathProber}) in a JVM of
 * its own with Pier's shipped flags. Measured from outside that process: its CPU (/proc) idle and
 * while probing, the connections its probes open per second and at most at once (counted by the
 * listeners), its open file descriptors at most, its RSS; then K listeners of member 0 stop
 * (connection refused) and the seconds until each address leaves its Service's names, and after
 * they listen again, until each returns.
 */
public final class DnsProbeBench {
  /** What one run probes, and how. */
  record Setup(
      String probe,
      int services,
      int members,
      Duration period,
      Duration timeout,
      int failures,
      int successes,
      Duration window,
      int stopped) {}

  record Row(
      Setup setup,
      double idleCpuPerMinute,
      double cpuPerMinute,
      double connectionsPerSecond,
      int peakConnections,
      int peakFds,
      int idleFds,
      long rssMb,
      double[] leave,
      double[] back) {}

  private final Vertx vertx = Vertx.vertx();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger peakOpen = new AtomicInteger();
  private final Map<String, Object> servers = new ConcurrentHashMap<>();
  private final LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new TreeMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    List<String> jvm =
        Arrays.stream(a.getOrDefault("jvm", "").trim().split("\\s+"))
            .filter(s -> !s.isEmpty())
            // The archive was dumped for the jar's class path, not the benchmark's.
            .filter(s -> !s.startsWith("-XX:SharedArchiveFile"))
            .toList();
    Path out = Path.of(a.getOrDefault("out", "target/bench/dns-probe"));
    Files.createDirectories(out);
    String revision = a.getOrDefault("revision", "unknown");
    List<Row> rows = new ArrayList<>();
    for (String probe : a.getOrDefault("probes", "tcp,http:/healthz:200").split(",")) {
      Setup setup =
          new Setup(
              probe,
              Integer.parseInt(a.getOrDefault("services", "1000")),
              Integer.parseInt(a.getOrDefault("members", "2")),
              Duration.ofMillis(Long.parseLong(a.getOrDefault("period-ms", "10000"))),
              Duration.ofMillis(Long.parseLong(a.getOrDefault("timeout-ms", "2000"))),
              Integer.parseInt(a.getOrDefault("failures", "3")),
              Integer.parseInt(a.getOrDefault("successes", "2")),
              Duration.ofSeconds(Long.parseLong(a.getOrDefault("window", "120"))),
              Integer.parseInt(a.getOrDefault("stop", "10")));
      DnsProbeBench bench = new DnsProbeBench();
      try {
        Row row = bench.run(jvm, out, setup);
        rows.add(row);
        System.out.println(table(List.of(row), revision));
      } finally {
        bench.vertx.close().await();
      }
    }
    String md = table(rows, revision);
    Files.writeString(
        out.resolve("results.md"), md + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    System.out.println();
    System.out.println(md);
    System.exit(0);
  }

  private Row run(List<String> jvm, Path out, Setup setup) throws Exception {
    String probe = setup.probe();
    int services = setup.services();
    int members = setup.members();
    Duration period = setup.period();
    Duration timeout = setup.timeout();
    boolean http = probe.startsWith("http");
    int port = 18080;
    log("%s: %,d listeners", probe, services * members);
    for (int m = 0; m < members; m++) {
      for (int s = 0; s < services; s++) {
        listen(DnsProbeTarget.address(m, s), port, http);
      }
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            DnsProbeTarget.class.getName(),
            String.valueOf(services),
            String.valueOf(members),
            String.valueOf(port),
            probe,
            String.valueOf(period.toMillis()),
            String.valueOf(timeout.toMillis()),
            String.valueOf(setup.failures()),
            String.valueOf(setup.successes()),
            String.valueOf(FederationOptions.DEFAULT_PANIC_THRESHOLD)));
    Process target =
        new ProcessBuilder(cmd)
            .redirectError(out.resolve("target-" + probe.replaceAll("\\W", "_") + ".log").toFile())
            .start();
    try {
      Thread reader = new Thread(() -> read(target), "target-output");
      reader.setDaemon(true);
      reader.start();
      Writer stdin = new OutputStreamWriter(target.getOutputStream(), StandardCharsets.UTF_8);
      await("READY", Duration.ofSeconds(60));
      long pid = target.pid();
      Thread.sleep(10_000);
      double idle0 = BenchDriver.cpuSeconds(pid);
      int idleFds = fds(pid);
      Thread.sleep(30_000);
      double idleCpuPerMinute = (BenchDriver.cpuSeconds(pid) - idle0) * 2;
      stdin.write("start\n");
      stdin.flush();
      await("STARTED", Duration.ofSeconds(60));
      Thread.sleep(period.toMillis() * 2 + timeout.toMillis());
      AtomicInteger peakFds = new AtomicInteger();
      Thread sampler = sampler(pid, peakFds);
      peakOpen.set(open.get());
      double cpu0 = BenchDriver.cpuSeconds(pid);
      long accepted0 = accepted.get();
      long t0 = System.nanoTime();
      Thread.sleep(setup.window().toMillis());
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpu = BenchDriver.cpuSeconds(pid) - cpu0;
      long conns = accepted.get() - accepted0;
      sampler.interrupt();
      long rssMb =
          BenchDriver.kb(Files.readString(Path.of("/proc/" + pid + "/status")), "VmRSS") / 1024;
      int peak = peakOpen.get();
      log(
          "%s: %.2f CPU s in %.0f s, %,d connections, at most %d at once, %d fds, RSS %d MB",
          probe, cpu, seconds, conns, peak, peakFds.get(), rssMb);

      events.clear();
      List<String> down = new ArrayList<>();
      for (int i = 0; i < setup.stopped(); i++) {
        down.add(DnsProbeTarget.address(0, i * (services / setup.stopped())));
      }
      long stopAt = System.currentTimeMillis();
      for (String address : down) {
        close(address);
      }
      Duration bound =
          period.multipliedBy(setup.failures() + 2).plus(timeout.multipliedBy(setup.failures()));
      double[] leave = times("LEAVE", down, stopAt, bound);
      long backAt = System.currentTimeMillis();
      for (String address : down) {
        listen(address, port, http);
      }
      double[] back = times("RETURN", down, backAt, bound);
      log(
          "%s: left after %s s, back after %s s",
          probe, Arrays.toString(leave), Arrays.toString(back));
      return new Row(
          setup,
          idleCpuPerMinute,
          cpu * 60 / seconds,
          conns / seconds,
          peak,
          peakFds.get(),
          idleFds,
          rssMb,
          leave,
          back);
    } finally {
      BenchDriver.stop(target);
    }
  }

  private void listen(String address, int port, boolean http) {
    Object server;
    if (http) {
      HttpServer s =
          vertx
              .createHttpServer()
              .connectionHandler(
                  c -> {
                    opened();
                    c.closeHandler(v -> open.decrementAndGet());
                  })
              .requestHandler(r -> r.response().setStatusCode(200).end("ok"));
      s.listen(port, address).await();
      server = s;
    } else {
      NetServer s =
          vertx
              .createNetServer()
              .connectHandler(
                  c -> {
                    opened();
                    c.exceptionHandler(e -> {});
                    c.closeHandler(v -> open.decrementAndGet());
                  });
      s.listen(port, address).await();
      server = s;
    }
    servers.put(address, server);
  }

  private void opened() {
    accepted.incrementAndGet();
    peakOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
  }

  private void close(String address) {
    Object s = servers.remove(address);
    Future<Void> closed = s instanceof HttpServer h ? h.close() : ((NetServer) s).close();
    closed.await();
  }

  private void read(Process target) {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        events.add(line);
      }
    } catch (IOException e) {
      events.add("EXIT " + e.getMessage());
    }
  }

  private void await(String line, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      String e = events.poll(1, TimeUnit.SECONDS);
      if (line.equals(e)) {
        return;
      }
    }
    throw new IllegalStateException(
        "the probing process did not print " + line + " within " + within);
  }

  /** Seconds from {@code since} until each address's event, in the order they came. */
  private double[] times(String kind, List<String> addresses, long since, Duration within)
      throws InterruptedException {
    List<Double> out = new ArrayList<>();
    long deadline = System.nanoTime() + within.toNanos();
    while (out.size() < addresses.size()) {
      long left = deadline - System.nanoTime();
      String e = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
      if (e == null) {
        throw new IllegalStateException(
            String.format(
                "%d of %d addresses had no %s within %s",
                addresses.size() - out.size(), addresses.size(), kind, within));
      }
      String[] f = e.split(" ");
      if (f.length == 4 && f[0].equals(kind) && addresses.contains(f[2])) {
        out.add((Long.parseLong(f[3]) - since) / 1000.0);
      }
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static Thread sampler(long pid, AtomicInteger peak) {
    Thread t =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(fds(pid), Math::max);
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "fd-sampler");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static int fds(long pid) {
    try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      return (int) s.count();
    } catch (IOException e) {
      return 0;
    }
  }

  static String table(List<Row> rows, String revision) {
    StringBuilder b =
        new StringBuilder(
            "| probe | Services x members | period, timeout, thresholds | CPU s per minute: idle,"
                + " probing | connections/s | at most at once | fds idle, at most | RSS MB |"
                + " leaves after, s (median, max) | back after, s (median, max) |\n"
                + "|---|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      b.append(
          String.format(
              "| %s | %,d x %d | %d s, %d s, %d/%d | %.2f, %.2f | %.0f | %d | %d, %d | %d |"
                  + " %.1f, %.1f | %.1f, %.1f |%n",
              r.setup().probe(),
              r.setup().services(),
              r.setup().members(),
              r.setup().period().toSeconds(),
              r.setup().timeout().toSeconds(),
              r.setup().failures(),
              r.setup().successes(),
              r.idleCpuPerMinute(),
              r.cpuPerMinute(),
              r.connectionsPerSecond(),
              r.peakConnections(),
              r.idleFds(),
              r.peakFds(),
              r.rssMb(),
              WebhookBench.median(r.leave()),
              Arrays.stream(r.leave()).max().orElse(0),
              WebhookBench.median(r.back()),
              Arrays.stream(r.back()).max().orElse(0)));
    }
    b.append("\nRevision ").append(revision).append('.');
    return b.toString();
  }

  private static void log(String format, Object... args) {
    System.out.printf("[dns-probe] " + format + "%n", args);
    System.out.flush();
  }
}
