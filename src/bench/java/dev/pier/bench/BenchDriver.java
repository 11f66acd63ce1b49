package dev.pier.bench;

import dev.pier.testkit.KubeApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The benchmark driver behind {@code scripts/bench/run.sh}. Per run (N Services, provider delay D):
 * a fresh etcd + kube-apiserver, M Ready nodes, N LoadBalancer Services created before Pier starts;
 * then Pier as its own process ({@code java -jar pier.jar}, provider benchmark) and:
 *
 * <ol>
 *   <li>cold start: seconds from launching Pier until every Service has an ingress (seen by an
 *       watch), with the time of every Service for the plot;
 *   <li>node sync: one Ready node added, seconds until Pier's {@code
 *       service_controller_loadbalancer_sync_total} grew by N;
 *   <li>Pier's RSS and live heap after a full GC; API requests per Service (the apiserver's own
 *       {@code apiserver_request_total});
 *   <li>the floor: with Pier stopped, N fresh Services get just the finalizer patch and the status
 *       patch, many in flight, no rate limit.
 * </ol>
 *
 * Results are appended to {@code OUT/results.md} and {@code OUT/results.csv}; the plot of the runs
 * goes to {@code --plot}.
 */
public final class BenchDriver {
  private static final String NS = "bench";
  private static final String FLOOR_NS = "floor";
  private static final String FINALIZER = "service.kubernetes.io/load-balancer-cleanup";
  private static final Pattern HEAP_USED = Pattern.compile("total (\\d+)K, used (\\d+)K");

  record Result(
      int n,
      int delayMs,
      int nodes,
      double coldStart,
      double ready,
      double floor,
      double nodeSync,
      double nodeSyncInternal,
      long rssMb,
      long rssPeakMb,
      long heapMb,
      double requestsPerService,
      double servicePatchesPerService,
      double eventWritesPerService,
      long ensuredEvents,
      double[] converged) {}

  private final List<String> jvmFlags;
  private final Path jar;
  private final Path out;
  private final int nodes;
  private final int floorInFlight;
  private final List<String> floorProtocols;
  private final Duration timeout;

  private BenchDriver(
      List<String> jvmFlags,
      Path jar,
      Path out,
      int nodes,
      int floorInFlight,
      List<String> floorProtocols,
      Duration timeout) {
    this.jvmFlags = jvmFlags;
    this.jar = jar;
    this.out = out;
    this.nodes = nodes;
    this.floorInFlight = floorInFlight;
    this.floorProtocols = floorProtocols;
    this.timeout = timeout;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new TreeMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --option value, got '" + args[i] + "'");
      }
      a.put(args[i].substring(2), args[i + 1]);
    }
    if (a.containsKey("replot")) {
      replot(
          Path.of(a.get("replot")),
          Path.of(a.getOrDefault("plot", "docs/benchmarks-convergence.png")));
      return;
    }
    List<Integer> sizes = ints(a.getOrDefault("sizes", "1000,10000"));
    List<Integer> delays = ints(a.getOrDefault("delays", "0,100"));
    BenchDriver driver =
        new BenchDriver(
            Arrays.stream(a.getOrDefault("jvm", "").trim().split("\\s+"))
                .filter(s -> !s.isEmpty())
                .toList(),
            Path.of(a.getOrDefault("jar", "target/pier.jar")),
            Path.of(a.getOrDefault("out", "target/bench")),
            Integer.parseInt(a.getOrDefault("nodes", "10")),
            Integer.parseInt(a.getOrDefault("floor-in-flight", "200")),
            List.of(a.getOrDefault("floor-protocols", "h2,http1").split(",")),
            Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeout", "900"))));
    if (!Files.isRegularFile(driver.jar)) {
      throw new IllegalStateException("no Pier jar at " + driver.jar + " (build it first)");
    }
    Files.createDirectories(driver.out);
    List<Result> results = new ArrayList<>();
    for (int n : sizes) {
      for (int d : delays) {
        Result r = driver.run(n, d);
        results.add(r);
        driver.record(r);
      }
    }
    List<ConvergencePlot.Series> series = new ArrayList<>();
    for (Result r : results) {
      series.add(
          new ConvergencePlot.Series(
              String.format(
                  "N=%,d  delay=%d ms  (%.1f s, floor %.1f s)",
                  r.n(), r.delayMs(), r.coldStart(), r.floor()),
              r.n(),
              r.converged(),
              r.floor()));
    }
    Path plot = Path.of(a.getOrDefault("plot", driver.out.resolve("convergence.png").toString()));
    ConvergencePlot.write(plot, "Services with an ingress after Pier starts (cold start)", series);
    System.out.println();
    System.out.println(table(results));
    System.out.println("plot: " + plot);
    System.exit(0);
  }

  /** Draws the plot again from an earlier run's results.csv and run-N-D/converged.csv files. */
  private static void replot(Path dir, Path plot) throws IOException {
    List<ConvergencePlot.Series> series = new ArrayList<>();
    List<String> rows = Files.readAllLines(dir.resolve("results.csv"));
    for (String row : rows.subList(1, rows.size())) {
      String[] f = row.split(",");
      int n = Integer.parseInt(f[0]);
      int d = Integer.parseInt(f[1]);
      List<String> lines =
          Files.readAllLines(dir.resolve("run-" + n + "-" + d).resolve("converged.csv"));
      double[] t =
          lines.subList(1, lines.size()).stream()
              .mapToDouble(l -> Double.parseDouble(l.split(",")[0]))
              .toArray();
      series.add(
          new ConvergencePlot.Series(
              String.format("N=%,d  delay=%d ms  (%s s, floor %s s)", n, d, f[3], f[5]),
              n,
              t,
              Double.parseDouble(f[5])));
    }
    ConvergencePlot.write(plot, "Services with an ingress after Pier starts (cold start)", series);
    System.out.println("plot: " + plot);
  }

  private static List<Integer> ints(String csv) {
    return Arrays.stream(csv.split(",")).map(String::trim).map(Integer::parseInt).toList();
  }

  private Result run(int n, int delayMs) throws Exception {
    log("run N=%d delay=%d ms nodes=%d", n, delayMs, nodes);
    Path runDir = out.resolve("run-" + n + "-" + delayMs);
    Files.createDirectories(runDir);
    try (KubeApiServer kube =
        KubeApiServer.builder().withFlag("--service-node-port-range=10000-32767").start()) {
      ApiLoad api = new ApiLoad(kube, HttpClient.Version.HTTP_2);
      for (int i = 0; i < nodes; i++) {
        kube.createReadyNode(String.format("node-%03d", i), "10.250.0." + (i + 1), Map.of());
      }
      api.send(new ApiLoad.Call("POST", "/api/v1/namespaces", "application/json", namespace(NS)))
          .join();
      long created = api.runChains(n, 100, i -> List.of(createService(NS, i)));
      log("created %d Services in %.1f s", n, created / 1e9);

      KubernetesClient client = kube.client();
      IngressWatch watch = new IngressWatch(kube, NS, n);
      String before = api.get("/metrics");
      int adminPort = freePort();
      double[] cpu0 = new double[3];
      cpuSnapshot(-1, cpu0);
      Process pier = startPier(kube, runDir, delayMs, adminPort);
      watch.startClock();
      long t0 = System.nanoTime();
      double ready = -1;
      try {
        HttpClient local = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        long lastLog = System.nanoTime();
        long lastProgress = System.nanoTime();
        int lastCount = 0;
        while (watch.converged() < n) {
          if (!pier.isAlive()) {
            throw new IllegalStateException(
                "Pier exited with " + pier.exitValue() + ", see " + runDir.resolve("pier.log"));
          }
          if (ready < 0 && get(local, adminPort, "/readyz") == 200) {
            ready = (System.nanoTime() - t0) / 1e9;
          }
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                watch.converged() + " of " + n + " Services converged before the timeout");
          }
          watch.awaitChange(ready < 0 ? 20 : 200);
          int now = watch.converged();
          if (now != lastCount) {
            lastCount = now;
            lastProgress = System.nanoTime();
          } else if (System.nanoTime() - lastProgress > 1_000_000_000L) {
            // Watch streams of the JDK client sometimes go silent under load: list again.
            watch.restart();
            lastProgress = System.nanoTime();
          }
          if (System.nanoTime() - lastLog > 5_000_000_000L) {
            lastLog = System.nanoTime();
            log("converged %d of %d", watch.converged(), n);
          }
        }
        double[] sorted = watch.times();
        double coldStart = sorted[n - 1];
        double[] cpu1 = new double[3];
        cpuSnapshot(pier.pid(), cpu1);
        log("cold start: %.2f s (ready after %.2f s)", coldStart, ready);
        log(
            "CPU during cold start: Pier %.1f s, apiserver+etcd %.1f s, this driver %.1f s",
            cpu1[1], cpu1[2] - cpu0[2], cpu1[0] - cpu0[0]);

        // Events are written off the critical path: let them drain before counting requests.
        String after = quiesce(api);
        double requests =
            PromText.sum(after, "apiserver_request_total")
                - PromText.sum(before, "apiserver_request_total");
        double svcPatches = patches(after, "services") - patches(before, "services");
        double eventWrites = eventWrites(after) - eventWrites(before);

        // Node sync: one more Ready node; every load balancer must get it.
        String metrics = pierMetrics(local, adminPort);
        double syncs = PromText.sum(metrics, "service_controller_loadbalancer_sync_total");
        double internalBefore =
            PromText.sum(metrics, "service_controller_nodesync_latency_seconds_sum");
        long s0 = System.nanoTime();
        kube.createReadyNode("node-added", "10.250.1.1", Map.of());
        double nodeSync;
        while (true) {
          metrics = pierMetrics(local, adminPort);
          if (PromText.sum(metrics, "service_controller_loadbalancer_sync_total") >= syncs + n) {
            nodeSync = (System.nanoTime() - s0) / 1e9;
            break;
          }
          if (System.nanoTime() - s0 > timeout.toNanos()) {
            throw new IllegalStateException("node sync did not finish");
          }
          Thread.sleep(10);
        }
        Thread.sleep(200);
        double internal =
            PromText.sum(
                    pierMetrics(local, adminPort),
                    "service_controller_nodesync_latency_seconds_sum")
                - internalBefore;
        log("node sync: %.2f s (Pier's own round latency %.2f s)", nodeSync, internal);

        // Memory after convergence: a full GC first so the heap figure is the live set.
        long pid = pier.pid();
        jcmd(pid, "GC.run");
        Thread.sleep(1000);
        String status = Files.readString(Path.of("/proc/" + pid + "/status"));
        long rss = kb(status, "VmRSS") / 1024;
        long rssPeak = kb(status, "VmHWM") / 1024;
        String heapInfo = jcmd(pid, "GC.heap_info");
        Files.writeString(runDir.resolve("heap_info.txt"), heapInfo);
        Files.writeString(runDir.resolve("class_histogram.txt"), jcmd(pid, "GC.class_histogram"));
        long heapUsedKb = 0;
        Matcher m = HEAP_USED.matcher(heapInfo);
        while (m.find()) {
          heapUsedKb += Long.parseLong(m.group(2));
        }
        log("RSS %d MB (peak %d MB), live heap %d MB", rss, rssPeak, heapUsedKb / 1024);

        long ensured =
            client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> "EnsuredLoadBalancer".equals(e.getReason()))
                .count();
        watch.close();
        stop(pier);

        // The floor: the same two writes per Service, straight at the apiserver, over each
        // protocol; the faster one counts.
        double floor = Double.MAX_VALUE;
        for (String protocol : floorProtocols) {
          double f = floor(kube, n, protocol);
          floor = Math.min(floor, f);
        }
        log(
            "floor: %.2f s (%d in flight); cold start / floor = %.2f",
            floor, floorInFlight, coldStart / floor);
        writeSeries(runDir.resolve("converged.csv"), sorted);
        return new Result(
            n,
            delayMs,
            nodes,
            coldStart,
            ready,
            floor,
            nodeSync,
            internal,
            rss,
            rssPeak,
            heapUsedKb / 1024,
            requests / n,
            svcPatches / n,
            eventWrites / n,
            ensured,
            sorted);
      } finally {
        if (pier.isAlive()) {
          stop(pier);
        }
      }
    }
  }

  private double floor(KubeApiServer kube, int n, String protocol) throws Exception {
    ApiLoad api =
        new ApiLoad(
            kube, protocol.equals("h2") ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1);
    String ns = FLOOR_NS + "-" + protocol;
    api.send(new ApiLoad.Call("POST", "/api/v1/namespaces", "application/json", namespace(ns)))
        .join();
    api.runChains(n, 100, i -> List.of(createService(ns, i)));
    double[] c0 = new double[3];
    cpuSnapshot(-1, c0);
    long nanos =
        api.runChains(
            n,
            floorInFlight,
            i -> {
              String path = "/api/v1/namespaces/" + ns + "/services/" + name(i);
              return List.of(
                  new ApiLoad.Call(
                      "PATCH",
                      path,
                      "application/strategic-merge-patch+json",
                      "{\"metadata\":{\"finalizers\":[\"" + FINALIZER + "\"]}}"),
                  new ApiLoad.Call(
                      "PATCH",
                      path + "/status",
                      "application/merge-patch+json",
                      "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"10.0."
                          + (i >> 8)
                          + "."
                          + (i & 0xff)
                          + "\"}]}}}"));
            });
    double[] c1 = new double[3];
    cpuSnapshot(-1, c1);
    log(
        "floor over %s: %.2f s (%d in flight); CPU: apiserver+etcd %.1f s, driver %.1f s",
        protocol, nanos / 1e9, floorInFlight, c1[2] - c0[2], c1[0] - c0[0]);
    return nanos / 1e9;
  }

  private Process startPier(KubeApiServer kube, Path runDir, int delayMs, int adminPort)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmFlags);
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.add("--config");
    cmd.add("conf/pier.yaml");
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> env = pb.environment();
    env.put("PIER_PROVIDER", "benchmark");
    env.put("PIER_BENCHMARK_DELAY", delayMs + "ms");
    env.put("PIER_CLUSTER_KUBECONFIG", kube.kubeconfigPath().toString());
    env.put("PIER_ADMIN_HOST", "127.0.0.1");
    env.put("PIER_ADMIN_PORT", String.valueOf(adminPort));
    pb.redirectErrorStream(true);
    pb.redirectOutput(runDir.resolve("pier.log").toFile());
    log("starting Pier: %s", String.join(" ", cmd));
    return pb.start();
  }

  static void stop(Process p) throws InterruptedException {
    p.destroy();
    if (!p.waitFor(20, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
    }
  }

  /** Polls the apiserver's metrics until the request count stops moving (at most 60 s). */
  static String quiesce(ApiLoad api) throws InterruptedException {
    String last = api.get("/metrics");
    double count = PromText.sum(last, "apiserver_request_total");
    for (int i = 0; i < 60; i++) {
      Thread.sleep(1000);
      String now = api.get("/metrics");
      double c = PromText.sum(now, "apiserver_request_total");
      // The metrics GETs themselves are a few requests per poll.
      if (c - count <= 3) {
        return now;
      }
      last = now;
      count = c;
    }
    return last;
  }

  private static double patches(String metrics, String resource) {
    return PromText.sum(
        metrics,
        "apiserver_request_total",
        l -> l.contains("resource=\"" + resource + "\"") && l.contains("verb=\"PATCH\""));
  }

  private static double eventWrites(String metrics) {
    return PromText.sum(
        metrics,
        "apiserver_request_total",
        l ->
            l.contains("resource=\"events\"")
                && (l.contains("verb=\"POST\"") || l.contains("verb=\"PATCH\"")));
  }

  private static String pierMetrics(HttpClient local, int port) throws Exception {
    return local
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static int get(HttpClient local, int port, String path) {
    try {
      return local
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  static String jcmd(long pid, String command) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(jcmd.toString(), String.valueOf(pid), command)
            .redirectErrorStream(true)
            .start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("jcmd " + command + " failed: " + text);
    }
    return text;
  }

  /** CPU seconds (user + system) a process used so far, from /proc/PID/stat; 0 if it is gone. */
  static double cpuSeconds(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** CPU seconds of this driver, Pier, and the apiserver + etcd processes it started. */
  static String cpuSnapshot(long pierPid, double[] into) {
    double apiserver = 0;
    for (ProcessHandle h : ProcessHandle.current().descendants().toList()) {
      String cmd = h.info().command().orElse("");
      if (cmd.endsWith("kube-apiserver") || cmd.endsWith("etcd")) {
        apiserver += cpuSeconds(h.pid());
      }
    }
    into[0] = cpuSeconds(ProcessHandle.current().pid());
    into[1] = pierPid > 0 ? cpuSeconds(pierPid) : 0;
    into[2] = apiserver;
    return String.format(
        "driver %.1f s, Pier %.1f s, apiserver+etcd %.1f s", into[0], into[1], into[2]);
  }

  static long kb(String procStatus, String field) {
    for (String line : procStatus.split("\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException(field + " missing from /proc/<pid>/status");
  }

  private static String name(int i) {
    return String.format("svc-%05d", i);
  }

  static String namespace(String name) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
        + name
        + "\"}}";
  }

  private static ApiLoad.Call createService(String ns, int i) {
    String body =
        "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\""
            + name(i)
            + "\",\"labels\":{\"app\":\"bench\"}},\"spec\":{\"type\":\"LoadBalancer\","
            + "\"selector\":{\"app\":\"bench-"
            + i
            + "\"},\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\",\"port\":80,\"targetPort\":8080}]}}";
    return new ApiLoad.Call(
        "POST", "/api/v1/namespaces/" + ns + "/services", "application/json", body);
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void writeSeries(Path file, double[] sorted) throws IOException {
    StringBuilder b = new StringBuilder("seconds,converged\n");
    for (int i = 0; i < sorted.length; i++) {
      b.append(String.format("%.3f,%d%n", sorted[i], i + 1));
    }
    Files.writeString(file, b);
  }

  private void record(Result r) throws IOException {
    Path csv = out.resolve("results.csv");
    if (!Files.exists(csv)) {
      Files.writeString(
          csv,
          "n,delay_ms,nodes,cold_start_s,ready_s,floor_s,ratio,node_sync_s,node_sync_internal_s,"
              + "rss_mb,rss_peak_mb,heap_mb,requests_per_service,service_patches_per_service,"
              + "event_writes_per_service,ensured_events\n");
    }
    Files.writeString(
        csv,
        String.format(
            "%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%d,%d,%.2f,%.2f,%.2f,%d%n",
            r.n(),
            r.delayMs(),
            r.nodes(),
            r.coldStart(),
            r.ready(),
            r.floor(),
            r.coldStart() / r.floor(),
            r.nodeSync(),
            r.nodeSyncInternal(),
            r.rssMb(),
            r.rssPeakMb(),
            r.heapMb(),
            r.requestsPerService(),
            r.servicePatchesPerService(),
            r.eventWritesPerService(),
            r.ensuredEvents()),
        StandardOpenOption.APPEND);
  }

  private static String table(List<Result> results) {
    String head =
        "| N | delay | cold start s | floor s | ratio | node sync s | RSS MB (peak) | heap MB |"
            + " API requests/Service (Service PATCH, Event writes) | EnsuredLoadBalancer events |\n"
            + "|---|---|---|---|---|---|---|---|---|---|\n";
    return head
        + results.stream()
            .map(
                r ->
                    String.format(
                        "| %,d | %d ms | %.2f | %.2f | %.2f | %.2f | %d (%d) | %d | %.2f (%.2f, %.2f) | %,d |",
                        r.n(),
                        r.delayMs(),
                        r.coldStart(),
                        r.floor(),
                        r.coldStart() / r.floor(),
                        r.nodeSync(),
                        r.rssMb(),
                        r.rssPeakMb(),
                        r.heapMb(),
                        r.requestsPerService(),
                        r.servicePatchesPerService(),
                        r.eventWritesPerService(),
                        r.ensuredEvents()))
            .collect(Collectors.joining("\n"));
  }

  static void log(String format, Object... args) {
    System.out.printf("[bench %tT] %s%n", System.currentTimeMillis(), String.format(format, args));
  }
}
