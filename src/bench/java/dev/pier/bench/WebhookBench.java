package dev.pier.bench;

import dev.pier.testkit.KubeApiServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The webhook benchmark behind {@code scripts/bench/run.sh webhook}: does the webhook provider,
 * over HTTP to a cloud in another process, converge as fast as the in-process benchmark provider
 * with the same delay? Per size N, delay D and run: a fresh apiserver with N Services and Pier with
 * {@code provider: benchmark} (delay D), then a fresh apiserver with N Services and Pier with
 * {@code provider: webhook} against {@link WebhookStandIn} (answering after D) in its own JVM. Both
 * measure the cold start as {@link BenchDriver} does; the table holds the median of the runs and
 * their ratio, and the mean time the webhook calls waited for a pooled connection.
 *
 * <p>Results: {@code OUT/results.md} and {@code OUT/results.csv}; per run {@code
 * run-N-D-R-{in-process,webhook}/} with Pier's log, its {@code /metrics} at convergence and the
 * convergence series.
 */
public final class WebhookBench {
  private final BenchDriver driver;
  private final Path out;
  private final Duration timeout;

  /**
   * One run: the two cold starts (s), the webhook requests' mean and longest wait for a pooled
   * connection (ms), and CPU seconds until convergence of Pier with the in-process provider, of
   * Pier with the webhook provider and of the stand-in.
   */
  record Run(
      double inProcess,
      double webhook,
      double waitMeanMs,
      double waitMaxMs,
      double inProcessCpu,
      double webhookCpu,
      double standInCpu) {}

  record Row(int n, int delayMs, List<Run> runs) {
    double inProcess() {
      return median(Run::inProcess);
    }

    double webhook() {
      return median(Run::webhook);
    }

    double ratio() {
      return webhook() / inProcess();
    }

    double median(ToDoubleFunction<Run> f) {
      return WebhookBench.median(runs.stream().mapToDouble(f).toArray());
    }
  }

  private WebhookBench(BenchDriver driver, Path out, Duration timeout) {
    this.driver = driver;
    this.out = out;
    this.timeout = timeout;
  }

  public static void main(String[] args) {
    BenchDriver.exitAfter("webhook benchmark", () -> run(args));
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> a = BenchDriver.options(args);
    List<Integer> sizes = ints(a.getOrDefault("sizes", "1000,10000"));
    List<Integer> delays = ints(a.getOrDefault("delays", "100,1000"));
    int runs = Integer.parseInt(a.getOrDefault("runs", "3"));
    Duration timeout = Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeout", "900")));
    Path out = Path.of(a.getOrDefault("out", "target/bench/webhook"));
    Path jar = Path.of(a.getOrDefault("jar", "target/pier.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no Pier jar at " + jar + " (build it first)");
    }
    Files.createDirectories(out);
    BenchDriver driver =
        new BenchDriver(
            Arrays.stream(a.getOrDefault("jvm", "").trim().split("\\s+"))
                .filter(s -> !s.isEmpty())
                .toList(),
            jar,
            out,
            Integer.parseInt(a.getOrDefault("nodes", "10")),
            200,
            List.of("h2"),
            timeout,
            null);
    WebhookBench bench = new WebhookBench(driver, out, timeout);
    List<Row> rows = new ArrayList<>();
    for (int n : sizes) {
      for (int d : delays) {
        List<Run> done = new ArrayList<>();
        for (int r = 1; r <= runs; r++) {
          done.add(bench.run(n, d, r));
        }
        Row row = new Row(n, d, done);
        rows.add(row);
        bench.record(row);
      }
    }
    String table = table(rows, a.getOrDefault("revision", "unknown"));
    Files.writeString(
        out.resolve("results.md"),
        String.format("%n## %s%n%n%s%n", java.time.Instant.now(), table),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    System.out.println();
    System.out.println(table);
  }

  /** One in-process run, then one webhook run, each on a fresh apiserver. */
  private Run run(int n, int delayMs, int r) throws Exception {
    String name = "run-" + n + "-" + delayMs + "-" + r;
    BenchDriver.log("run %d: N=%d delay=%d ms, in-process provider", r, n, delayMs);
    BenchDriver.Convergence inProcess;
    try (KubeApiServer kube = driver.cluster(n)) {
      inProcess =
          driver.coldStart(
              kube, n, out.resolve(name + "-in-process"), BenchDriver.benchmarkProvider(delayMs));
    }
    BenchDriver.log("run %d: N=%d delay=%d ms, webhook provider", r, n, delayMs);
    Path dir = out.resolve(name + "-webhook");
    Files.createDirectories(dir);
    int port = BenchDriver.freePort();
    Process standIn = startStandIn(port, delayMs, dir, timeout.multipliedBy(2));
    try (KubeApiServer kube = driver.cluster(n)) {
      awaitListening(standIn, port, dir);
      BenchDriver.Convergence c =
          driver.coldStart(
              kube,
              n,
              dir,
              Map.of(
                  "PIER_PROVIDER",
                  "webhook",
                  "PIER_WEBHOOK_URL",
                  "http://127.0.0.1:" + port + "/pier/v1"));
      String pool = "pool_name=\"127.0.0.1:" + port + "\"";
      double count =
          PromText.sum(c.metrics(), "vertx_pool_queue_time_seconds_count", l -> l.contains(pool));
      double sum =
          PromText.sum(c.metrics(), "vertx_pool_queue_time_seconds_sum", l -> l.contains(pool));
      double max =
          PromText.sum(c.metrics(), "vertx_pool_queue_time_seconds_max", l -> l.contains(pool));
      double waitMean = count > 0 ? sum / count * 1000 : 0;
      double standInCpu = BenchDriver.cpuSeconds(standIn.pid());
      BenchDriver.log(
          "in-process %.2f s, webhook %.2f s (%.0f webhook requests, mean wait for a connection"
              + " %.1f ms, max %.1f ms; CPU s: Pier %.1f in-process, %.1f webhook, stand-in %.1f)",
          inProcess.seconds(),
          c.seconds(),
          count,
          waitMean,
          max * 1000,
          pierCpu(inProcess),
          pierCpu(c),
          standInCpu);
      return new Run(
          inProcess.seconds(),
          c.seconds(),
          waitMean,
          max * 1000,
          pierCpu(inProcess),
          pierCpu(c),
          standInCpu);
    } finally {
      BenchDriver.stop(standIn);
    }
  }

  /** Pier's CPU seconds at convergence, from its own {@code process_cpu_seconds_total}. */
  private static double pierCpu(BenchDriver.Convergence c) {
    return PromText.sum(c.metrics(), "process_cpu_seconds_total");
  }

  /** Starts {@link WebhookStandIn} in its own JVM, its output in {@code dir/stand-in.log}. */
  static Process startStandIn(int port, int delayMs, Path dir, Duration lifetime)
      throws IOException {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m",
            "-XX:+UseSerialGC",
            "-cp",
            System.getProperty("java.class.path"),
            WebhookStandIn.class.getName(),
            String.valueOf(port),
            String.valueOf(delayMs),
            String.valueOf(lifetime.toSeconds()));
    return new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("stand-in.log").toFile())
        .start();
  }

  static void awaitListening(Process standIn, int port, Path dir) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      if (!standIn.isAlive()) {
        throw new IllegalStateException(
            "the webhook stand-in exited, see " + dir.resolve("stand-in.log"));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the webhook stand-in did not listen within 60 s");
        }
        Thread.sleep(100);
      }
    }
  }

  private void record(Row row) throws IOException {
    Path csv = out.resolve("results.csv");
    if (!Files.exists(csv)) {
      Files.writeString(
          csv,
          "n,delay_ms,run,in_process_s,webhook_s,ratio,wait_mean_ms,wait_max_ms,"
              + "in_process_cpu_s,webhook_cpu_s,stand_in_cpu_s\n");
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < row.runs().size(); i++) {
      Run r = row.runs().get(i);
      b.append(
          String.format(
              "%d,%d,%d,%.2f,%.2f,%.2f,%.1f,%.1f,%.2f,%.2f,%.2f%n",
              row.n(),
              row.delayMs(),
              i + 1,
              r.inProcess(),
              r.webhook(),
              r.webhook() / r.inProcess(),
              r.waitMeanMs(),
              r.waitMaxMs(),
              r.inProcessCpu(),
              r.webhookCpu(),
              r.standInCpu()));
    }
    Files.writeString(csv, b, StandardOpenOption.APPEND);
  }

  static String table(List<Row> rows, String revision) {
    StringBuilder b =
        new StringBuilder(
            "| N | delay | in-process s (median) | webhook s (median) | ratio | runs in-process |"
                + " runs webhook | mean / max wait for a connection, ms | CPU s: Pier in-process,"
                + " Pier webhook + stand-in (medians) |\n"
                + "|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      b.append(
          String.format(
              "| %,d | %d ms | %.2f | %.2f | %.2f | %s | %s | %s | %.1f, %.1f + %.1f |%n",
              r.n(),
              r.delayMs(),
              r.inProcess(),
              r.webhook(),
              r.ratio(),
              join(r.runs().stream().mapToDouble(Run::inProcess).toArray()),
              join(r.runs().stream().mapToDouble(Run::webhook).toArray()),
              r.runs().stream()
                  .map(x -> String.format("%.1f / %.0f", x.waitMeanMs(), x.waitMaxMs()))
                  .collect(Collectors.joining(", ")),
              r.median(Run::inProcessCpu),
              r.median(Run::webhookCpu),
              r.median(Run::standInCpu)));
    }
    b.append('\n')
        .append("Revision ")
        .append(revision)
        .append(
            ". Seconds from launching Pier until every Service has status.loadBalancer.ingress;"
                + " each run's in-process and webhook measurement back to back, each on a fresh"
                + " apiserver.");
    return b.toString();
  }

  private static String join(double[] values) {
    return Arrays.stream(values)
        .mapToObj(v -> String.format("%.2f", v))
        .collect(Collectors.joining(", "));
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int m = v.length / 2;
    return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  private static List<Integer> ints(String csv) {
    return Arrays.stream(csv.split(",")).map(String::trim).map(Integer::parseInt).toList();
  }
}
