package dev.pier.bench;

import dev.pier.boot.PierOptions;
import dev.pier.config.ConfigLoader;
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
 *       service_controller_loadbalancer_sync_total} plus its verifications grew by N;
 *   <li>Pier's RSS and live heap after a full GC; API requests per Service (the apiserver's own
 *       {@code apiserver_request_total});
 *   <li>the floor: with Pier stopped, N fresh Services get just the finalizer patch and the status
 *       patch, many in flight, no rate limit.
 * </ol>
 *
 * <p>With {@code --peer upstream}, each run also measures upstream's service controller (Kubernetes
 * 1.37.2, {@link UpstreamPeer}) on a fresh apiserver with the same nodes and Services, after Pier
 * and before the floor (which then runs on upstream's apiserver), and writes the side-by-side table
 * ({@code OUT/side-by-side.csv}, and in {@code OUT/results.md}).
 *
 * <p>Results are appended to {@code OUT/results.md} and {@code OUT/results.csv}; the plot of the
 * runs goes to {@code --plot}.
 */
public final class BenchDriver {
  private static final String NS = "bench";
  private static final String FLOOR_NS = "floor";
  private static final String FINALIZER = "service.kubernetes.io/load-balancer-cleanup";
  private static final Pattern HEAP_USED = Pattern.compile("total (\\d+)K, used (\\d+)K");
  private static final Path PIER_CONFIG = Path.of("conf/pier.yaml");

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
      double[] converged,
      double cpuSeconds,
      long rssConvergedMb,
      long rssConvergedPeakMb,
      UpstreamPeer.Result upstream) {
    Result with(double floorSeconds, UpstreamPeer.Result peer) {
      return new Result(
          n,
          delayMs,
          nodes,
          coldStart,
          ready,
          floorSeconds,
          nodeSync,
          nodeSyncInternal,
          rssMb,
          rssPeakMb,
          heapMb,
          requestsPerService,
          servicePatchesPerService,
          eventWritesPerService,
          ensuredEvents,
          converged,
          cpuSeconds,
          rssConvergedMb,
          rssConvergedPeakMb,
          peer);
    }
  }

  private final List<String> jvmFlags;
  private final Path jar;
  private final Path out;
  private final int nodes;
  private final int floorInFlight;
  private final List<String> floorProtocols;
  private final Duration timeout;
  // Pier's node-sync debounce as the run's configuration gives it (conf/pier.yaml, PIER_
  // variables).
  private final Duration nodeSyncDebounce;
  // The peer measured after Pier in every run; null without --peer.
  private final UpstreamPeer upstream;

  /**
   * How one Pier run converged: each Service's seconds from launching Pier until it had an ingress
   * (sorted), when {@code /readyz} first answered (seconds, -1 if never seen), and Pier's {@code
   * /metrics} at convergence.
   */
  record Convergence(double[] times, double ready, String metrics) {
    double seconds() {
      return times[times.length - 1];
    }
  }

  BenchDriver(
      List<String> jvmFlags,
      Path jar,
      Path out,
      int nodes,
      int floorInFlight,
      List<String> floorProtocols,
      Duration timeout,
      UpstreamPeer upstream) {
    this.jvmFlags = jvmFlags;
    this.jar = jar;
    this.out = out;
    this.nodes = nodes;
    this.floorInFlight = floorInFlight;
    this.floorProtocols = floorProtocols;
    this.timeout = timeout;
    this.upstream = upstream;
    this.nodeSyncDebounce =
        new ConfigLoader(PierOptions.ALL, System::getenv)
            .load(PIER_CONFIG)
            .get(PierOptions.NODE_SYNC_DEBOUNCE);
  }

  public static void main(String[] args) {
    exitAfter("benchmark", () -> run(args));
  }

  /** A benchmark's body; it may throw anything. */
  interface Body {
    void run() throws Exception;
  }

  /** Runs a benchmark's main body and exits: 0 when it completed, 1 naming the failure. */
  static void exitAfter(String what, Body body) {
    try {
      body.run();
    } catch (Exception e) {
      System.out.flush();
      System.err.println();
      System.err.println(what + " failed: " + e.getMessage());
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  /** {@code --option value} pairs, by option name without the dashes. */
  static Map<String, String> options(String[] args) {
    Map<String, String> a = new TreeMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --option value, got '" + args[i] + "'");
      }
      a.put(args[i].substring(2), args[i + 1]);
    }
    return a;
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> a = options(args);
    if (a.containsKey("replot")) {
      replot(
          Path.of(a.get("replot")),
          Path.of(a.getOrDefault("plot", "docs/benchmarks-convergence.png")));
      return;
    }
    List<Integer> sizes = ints(a.getOrDefault("sizes", "1000,10000"));
    List<Integer> delays = ints(a.getOrDefault("delays", "0,100"));
    String peer = a.get("peer");
    if (peer != null && !peer.equals("upstream")) {
      throw new IllegalArgumentException("--peer: the only peer is 'upstream', got '" + peer + "'");
    }
    UpstreamPeer upstream = null;
    if (peer != null) {
      if (!a.containsKey("upstream-bin")) {
        throw new IllegalArgumentException(
            "--peer upstream needs --upstream-bin (scripts/bench/run.sh builds it)");
      }
      upstream =
          new UpstreamPeer(
              Path.of(a.get("upstream-bin")),
              Integer.parseInt(a.getOrDefault("upstream-workers", "50")),
              Duration.ofSeconds(Long.parseLong(a.getOrDefault("upstream-node-sync-cap", "120"))),
              Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeout", "900"))));
    }
    BenchDriver driver =
        new BenchDriver(
            Arrays.stream(a.getOrDefault("jvm", "").trim().split("\\s+"))
                .filter(s -> !s.isEmpty())
                .toList(),
            Path.of(a.getOrDefault("jar", "target/pier.jar")),
            Path.of(a.getOrDefault("out", "target/bench")),
            // The peer comparison's scenario has 20 nodes; Pier's own benchmark 10.
            Integer.parseInt(a.getOrDefault("nodes", peer != null ? "20" : "10")),
            Integer.parseInt(a.getOrDefault("floor-in-flight", "200")),
            List.of(a.getOrDefault("floor-protocols", "h2,http1").split(",")),
            Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeout", "900"))),
            upstream);
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
    for (int i = 0; i < results.size(); i++) {
      Result r = results.get(i);
      series.add(
          new ConvergencePlot.Series(
              String.format(
                  "%sN=%,d  delay=%d ms  (%.1f s, floor %.1f s)",
                  upstream != null ? "Pier  " : "", r.n(), r.delayMs(), r.coldStart(), r.floor()),
              r.n(),
              r.converged(),
              r.floor(),
              i,
              false));
      if (r.upstream() != null) {
        series.add(
            new ConvergencePlot.Series(
                String.format(
                    "upstream  N=%,d  delay=%d ms  (%.1f s)",
                    r.n(), r.delayMs(), r.upstream().coldStart()),
                r.n(),
                r.upstream().converged(),
                0,
                i,
                true));
      }
    }
    Path plot = Path.of(a.getOrDefault("plot", driver.out.resolve("convergence.png").toString()));
    ConvergencePlot.write(plot, plotTitle(upstream != null), series);
    String tables = table(results);
    if (upstream != null) {
      tables += "\n\n" + driver.sideBySide(results);
    }
    Files.writeString(
        driver.out.resolve("results.md"),
        String.format("%n## %s%n%n%s%n", java.time.Instant.now(), tables),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    System.out.println();
    System.out.println(tables);
    System.out.println("plot: " + plot);
  }

  private static String plotTitle(boolean peer) {
    return peer
        ? "Services with an ingress: Pier and upstream's service controller (cold start)"
        : "Services with an ingress after Pier starts (cold start)";
  }

  /** Draws the plot again from an earlier run's results.csv and run-N-D/converged.csv files. */
  private static void replot(Path dir, Path plot) throws IOException {
    List<ConvergencePlot.Series> series = new ArrayList<>();
    List<String> rows = Files.readAllLines(dir.resolve("results.csv"));
    for (String row : rows.subList(1, rows.size())) {
      String[] f = row.split(",");
      int n = Integer.parseInt(f[0]);
      int d = Integer.parseInt(f[1]);
      double[] t = readSeries(dir.resolve("run-" + n + "-" + d).resolve("converged.csv"));
      Path peerFile = dir.resolve("run-" + n + "-" + d).resolve("upstream-converged.csv");
      boolean peer = Files.exists(peerFile);
      int color = series.size();
      series.add(
          new ConvergencePlot.Series(
              String.format(
                  "%sN=%,d  delay=%d ms  (%s s, floor %s s)",
                  peer ? "Pier  " : "", n, d, f[3], f[5]),
              n,
              t,
              Double.parseDouble(f[5]),
              color,
              false));
      if (peer) {
        double[] u = readSeries(peerFile);
        series.add(
            new ConvergencePlot.Series(
                String.format(
                    "upstream  N=%,d  delay=%d ms  (%.1f s)",
                    n, d, u.length > 0 ? u[u.length - 1] : 0),
                n,
                u,
                0,
                color,
                true));
      }
    }
    ConvergencePlot.write(
        plot, plotTitle(series.stream().anyMatch(ConvergencePlot.Series::peer)), series);
    System.out.println("plot: " + plot);
  }

  private static double[] readSeries(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    return lines.subList(1, lines.size()).stream()
        .mapToDouble(l -> Double.parseDouble(l.split(",")[0]))
        .toArray();
  }

  private static List<Integer> ints(String csv) {
    return Arrays.stream(csv.split(",")).map(String::trim).map(Integer::parseInt).toList();
  }

  private Result run(int n, int delayMs) throws Exception {
    log("run N=%d delay=%d ms nodes=%d", n, delayMs, nodes);
    Path runDir = out.resolve("run-" + n + "-" + delayMs);
    Files.createDirectories(runDir);
    Result pier;
    try (KubeApiServer kube = cluster(n)) {
      pier = pier(kube, n, delayMs, runDir);
      if (upstream == null) {
        double floor = floor(kube, n);
        log("cold start / floor = %.2f", pier.coldStart() / floor);
        return pier.with(floor, null);
      }
    }
    // The peer: a fresh apiserver with the same nodes and Services; the floor after it, there.
    try (KubeApiServer kube = cluster(n)) {
      UpstreamPeer.Result peer = upstream.run(kube, n, delayMs, runDir);
      double floor = floor(kube, n);
      log(
          "side by side: Pier %.2f s, upstream %.2f s, floor %.2f s",
          pier.coldStart(), peer.coldStart(), floor);
      return pier.with(floor, peer);
    }
  }

  /**
   * A fresh etcd + kube-apiserver with this driver's Ready nodes and {@code n} LoadBalancer
   * Services in namespace {@value #NS}, none of them handled yet.
   */
  KubeApiServer cluster(int n) throws Exception {
    // Room for 3 x 10,000 LoadBalancer Services: with --peer the floor's two namespaces share
    // upstream's apiserver with its 10,000 (10000-32767 ran out there).
    KubeApiServer kube =
        KubeApiServer.builder().withFlag("--service-node-port-range=10000-60999").start();
    try {
      ApiLoad api = new ApiLoad(kube, HttpClient.Version.HTTP_2);
      for (int i = 0; i < nodes; i++) {
        kube.createReadyNode(String.format("node-%03d", i), "10.250.0." + (i + 1), Map.of());
      }
      api.send(new ApiLoad.Call("POST", "/api/v1/namespaces", "application/json", namespace(NS)))
          .join();
      long created = api.runChains(n, 100, i -> List.of(createService(NS, i)));
      log("created %d Services in %.1f s", n, created / 1e9);
      return kube;
    } catch (Exception | Error e) {
      kube.close();
      throw e;
    }
  }

  /** The floor over each protocol (the faster counts), on {@code kube} with no controller. */
  private double floor(KubeApiServer kube, int n) throws Exception {
    // The same two writes per Service, straight at the apiserver, over each protocol.
    double floor = Double.MAX_VALUE;
    for (String protocol : floorProtocols) {
      floor = Math.min(floor, floor(kube, n, protocol));
    }
    log("floor: %.2f s (%d in flight)", floor, floorInFlight);
    return floor;
  }

  /** Pier's cold start, node sync, memory and requests on {@code kube} (floor left at 0). */
  private Result pier(KubeApiServer kube, int n, int delayMs, Path runDir) throws Exception {
    ApiLoad api = new ApiLoad(kube, HttpClient.Version.HTTP_2);
    KubernetesClient client = kube.client();
    IngressWatch watch = new IngressWatch(kube, NS, n);
    String before = api.get("/metrics");
    int adminPort = freePort();
    double[] cpu0 = new double[3];
    cpuSnapshot(-1, cpu0);
    Process pier = startPier(kube, runDir, benchmarkProvider(delayMs), adminPort);
    watch.startClock();
    try {
      HttpClient local = HttpClient.newHttpClient();
      Convergence convergence = awaitConvergence(pier, watch, n, local, adminPort, runDir);
      double ready = convergence.ready();
      double[] sorted = convergence.times();
      double coldStart = convergence.seconds();
      double[] cpu1 = new double[3];
      cpuSnapshot(pier.pid(), cpu1);
      String statusAtConvergence = Files.readString(Path.of("/proc/" + pier.pid() + "/status"));
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

      // Node sync: one more Ready node; every load balancer must get it. The drift verifier
      // (one load balancer every verifyPeriod / N) hands the provider the current nodes too, and
      // node sync then rightly leaves that one out: a verification counts as its update.
      String metrics = pierMetrics(local, adminPort);
      double syncs = hostUpdates(metrics);
      double internalBefore =
          PromText.sum(metrics, "service_controller_nodesync_latency_seconds_sum");
      long s0 = System.nanoTime();
      kube.createReadyNode("node-added", "10.250.1.1", Map.of());
      double nodeSync;
      while (true) {
        metrics = pierMetrics(local, adminPort);
        if (hostUpdates(metrics) >= syncs + n) {
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
                  pierMetrics(local, adminPort), "service_controller_nodesync_latency_seconds_sum")
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
      writeSeries(runDir.resolve("converged.csv"), sorted);
      return new Result(
          n,
          delayMs,
          nodes,
          coldStart,
          ready,
          0,
          nodeSync,
          internal,
          rss,
          rssPeak,
          heapUsedKb / 1024,
          requests / n,
          svcPatches / n,
          eventWrites / n,
          ensured,
          sorted,
          cpu1[1],
          kb(statusAtConvergence, "VmRSS") / 1024,
          kb(statusAtConvergence, "VmHWM") / 1024,
          null);
    } finally {
      if (pier.isAlive()) {
        stop(pier);
      }
    }
  }

  /**
   * Pier's cold start with the given provider settings ({@code PIER_*} variables) on {@code kube}:
   * starts Pier, waits until every one of the {@code n} Services has an ingress, keeps Pier's log,
   * its {@code /metrics} at that moment and the convergence series in {@code runDir}, and stops it.
   */
  Convergence coldStart(KubeApiServer kube, int n, Path runDir, Map<String, String> provider)
      throws Exception {
    Files.createDirectories(runDir);
    IngressWatch watch = new IngressWatch(kube, NS, n);
    int adminPort = freePort();
    Process pier = startPier(kube, runDir, provider, adminPort);
    watch.startClock();
    try {
      Convergence c =
          awaitConvergence(pier, watch, n, HttpClient.newHttpClient(), adminPort, runDir);
      log("cold start: %.2f s (ready after %.2f s)", c.seconds(), c.ready());
      writeSeries(runDir.resolve("converged.csv"), c.times());
      Files.writeString(runDir.resolve("pier-metrics.txt"), c.metrics());
      return c;
    } finally {
      watch.close();
      stop(pier);
    }
  }

  /** Waits until the watch saw all {@code n} Services with an ingress, Pier alive meanwhile. */
  private Convergence awaitConvergence(
      Process pier, IngressWatch watch, int n, HttpClient local, int adminPort, Path runDir)
      throws Exception {
    long t0 = System.nanoTime();
    double ready = -1;
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
    double[] times = watch.times();
    return new Convergence(times, ready, pierMetrics(local, adminPort));
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

  /** The in-process benchmark provider, every call taking {@code delayMs}. */
  static Map<String, String> benchmarkProvider(int delayMs) {
    return Map.of("PIER_PROVIDER", "benchmark", "PIER_BENCHMARK_DELAY", delayMs + "ms");
  }

  /**
   * Starts Pier as its own process on {@code kube} with the provider settings {@code provider}
   * ({@code PIER_*} variables), its output in {@code runDir/pier.log}.
   */
  private Process startPier(
      KubeApiServer kube, Path runDir, Map<String, String> provider, int adminPort)
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
    env.putAll(provider);
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

  /** Load balancer syncs plus the verifications, each of which pushes the current nodes. */
  static double hostUpdates(String pierMetrics) {
    return PromText.sum(pierMetrics, "service_controller_loadbalancer_sync_total")
        + PromText.sum(
            pierMetrics,
            "pier_provider_call_duration_seconds_count",
            l -> l.contains("operation=\"verify\""));
  }

  static double patches(String metrics, String resource) {
    return PromText.sum(
        metrics,
        "apiserver_request_total",
        l -> l.contains("resource=\"" + resource + "\"") && l.contains("verb=\"PATCH\""));
  }

  static double eventWrites(String metrics) {
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

  static ApiLoad.Call createService(String ns, int i) {
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

  static void writeSeries(Path file, double[] sorted) throws IOException {
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
              + "event_writes_per_service,ensured_events,cpu_s\n");
    }
    Files.writeString(
        csv,
        String.format(
            "%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%d,%d,%.2f,%.2f,%.2f,%d,%.2f%n",
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
            r.ensuredEvents(),
            r.cpuSeconds()),
        StandardOpenOption.APPEND);
    if (r.upstream() == null) {
      return;
    }
    UpstreamPeer.Result u = r.upstream();
    Path sideBySide = out.resolve("side-by-side.csv");
    if (!Files.exists(sideBySide)) {
      Files.writeString(
          sideBySide,
          "n,delay_ms,nodes,floor_s,upstream_s,pier_s,pier_over_floor,upstream_over_floor,"
              + "pier_cpu_s,upstream_cpu_s,pier_node_sync_s,pier_node_sync_measured_s,"
              + "pier_node_sync_debounce_s,upstream_node_sync_s,upstream_node_sync_projected,"
              + "upstream_node_sync_done,pier_rss_mb,pier_rss_peak_mb,upstream_rss_mb,"
              + "upstream_rss_peak_mb,pier_requests_per_service,upstream_requests_per_service,"
              + "pier_ensured_events,upstream_ensured_events,upstream_workers\n");
    }
    Files.writeString(
        sideBySide,
        String.format(
            "%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.3f,%.2f,%b,%d,%d,%d,%d,%d,"
                + "%.2f,%.2f,%d,%d,%d%n",
            r.n(),
            r.delayMs(),
            r.nodes(),
            r.floor(),
            u.coldStart(),
            r.coldStart(),
            r.coldStart() / r.floor(),
            u.coldStart() / r.floor(),
            r.cpuSeconds(),
            u.cpuSeconds(),
            pierNodeSync(r),
            r.nodeSync(),
            debounceSeconds(),
            u.nodeSync(),
            u.nodeSyncProjected(),
            u.nodeSyncDone(),
            r.rssConvergedMb(),
            r.rssConvergedPeakMb(),
            u.rssMb(),
            u.rssPeakMb(),
            r.requestsPerService(),
            u.requestsPerService(),
            r.ensuredEvents(),
            u.ensuredEvents(),
            upstream.workers()),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  private double debounceSeconds() {
    return nodeSyncDebounce.toMillis() / 1000.0;
  }

  /** Pier's node sync counted from the node event after its debounce window. */
  private double pierNodeSync(Result r) {
    return r.nodeSync() - debounceSeconds();
  }

  /** The side-by-side table (markdown) with its notes. */
  String sideBySide(List<Result> results) {
    StringBuilder b =
        new StringBuilder(
            "| N | delay | floor | upstream | Pier | Pier/floor | upstream/floor | CPU s Pier |"
                + " CPU s upstream | node sync Pier | node sync upstream | RSS Pier | RSS upstream"
                + " | requests/Service Pier | upstream |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Result r : results) {
      UpstreamPeer.Result u = r.upstream();
      b.append(
          String.format(
              "| %,d | %d ms | %.2f s | %.2f s | %.2f s | %.2f | %.2f | %.1f | %.1f | %.2f s |"
                  + " %s | %d MB (peak %d) | %d MB (peak %d) | %.2f | %.2f |%n",
              r.n(),
              r.delayMs(),
              r.floor(),
              u.coldStart(),
              r.coldStart(),
              r.coldStart() / r.floor(),
              u.coldStart() / r.floor(),
              r.cpuSeconds(),
              u.cpuSeconds(),
              pierNodeSync(r),
              u.nodeSyncProjected()
                  ? String.format("%,.0f s (projected)", u.nodeSync())
                  : String.format("%.2f s", u.nodeSync()),
              r.rssConvergedMb(),
              r.rssConvergedPeakMb(),
              u.rssMb(),
              u.rssPeakMb(),
              r.requestsPerService(),
              u.requestsPerService()));
    }
    Result first = results.get(0);
    b.append('\n')
        .append(
            String.format(
                "%d Ready nodes; N LoadBalancer Services created before each controller starts;"
                    + " every provider call takes the delay. upstream: Kubernetes 1.37.2's"
                    + " service controller, %d workers, client QPS/burst %s, protobuf.%n",
                first.nodes(), upstream.workers(), "5000/5000"))
        .append(
            "floor, upstream, Pier: seconds from launching the controller (for the floor: from the"
                + " first write) until every Service has status.loadBalancer.ingress.\n")
        .append(
            "CPU s: user + system seconds of the controller's process until then (/proc/PID/stat)."
                + " RSS: VmRSS at that moment (peak: VmHWM).\n")
        .append(
            String.format(
                "node sync Pier: from the node event after Pier's node-sync debounce: the measured"
                    + " time from creating one more Ready node until every load balancer was"
                    + " updated, minus nodeSync.debounce = %.2f s (measured: %s).%n",
                debounceSeconds(),
                results.stream()
                    .map(r -> String.format("%.2f s", r.nodeSync()))
                    .collect(Collectors.joining(", "))))
        .append(
            String.format(
                "node sync upstream: from creating the node until the provider counted N"
                    + " UpdateLoadBalancer calls, over its service workers; the wait is capped at"
                    + " %d s and a capped run reports elapsed x N / done (projected: %s).%n",
                upstream.nodeSyncCap().toSeconds(),
                results.stream()
                    .map(
                        r ->
                            r.upstream().nodeSyncProjected()
                                ? String.format(
                                    "%,d of %,d in %.1f s",
                                    r.upstream().nodeSyncDone(),
                                    r.n(),
                                    r.upstream().nodeSyncElapsed())
                                : "none")
                    .collect(Collectors.joining(", "))))
        .append(
            "requests/Service: the apiserver's apiserver_request_total from just before the"
                + " controller starts until the requests stop (Events included), over N."
                + " EnsuredLoadBalancer Events found, Pier / upstream: ")
        .append(
            results.stream()
                .map(
                    r ->
                        String.format(
                            "%,d / %,d of %,d",
                            r.ensuredEvents(), r.upstream().ensuredEvents(), r.n()))
                .collect(Collectors.joining(", ")))
        .append(".");
    return b.toString();
  }

  private static String table(List<Result> results) {
    String head =
        "| N | delay | cold start s | Pier CPU s | floor s | ratio | node sync s | RSS MB (peak) |"
            + " heap MB | API requests/Service (Service PATCH, Event writes) |"
            + " EnsuredLoadBalancer events |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|\n";
    return head
        + results.stream()
            .map(
                r ->
                    String.format(
                        "| %,d | %d ms | %.2f | %.1f | %.2f | %.2f | %.2f | %d (%d) | %d | %.2f (%.2f, %.2f) | %,d |",
                        r.n(),
                        r.delayMs(),
                        r.coldStart(),
                        r.cpuSeconds(),
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
