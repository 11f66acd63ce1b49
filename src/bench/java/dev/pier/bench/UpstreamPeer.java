package dev.pier.bench;

import dev.pier.testkit.KubeApiServer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pier's benchmark peer: upstream's service controller as released in Kubernetes 1.37.2 ({@code
 * k8s.io/cloud-provider/controllers/service}), wired by {@code scripts/bench/upstream/main.go} to a
 * cloud provider whose load-balancer calls each take the run's delay and share no lock, built by
 * {@code scripts/bench/upstream/build.sh}. Measured on its own fresh apiserver the way {@link
 * BenchDriver} measures Pier:
 *
 * <ol>
 *   <li>cold start: seconds from launching the process until every Service has an ingress (the same
 *       {@link IngressWatch}), its CPU seconds (user + system from {@code /proc}) and RSS ({@code
 *       VmRSS}, peak {@code VmHWM}) at that moment;
 *   <li>API requests per Service: the apiserver's {@code apiserver_request_total} from just before
 *       the start until the requests stop (its Events included), and the {@code
 *       EnsuredLoadBalancer} Events found;
 *   <li>node sync: one more Ready node; seconds until the provider counted N {@code
 *       UpdateLoadBalancer} calls. Upstream updates them over as many goroutines as service workers
 *       (1.20 did it one after the other, N x delay); the wait is capped all the same, and a capped
 *       run reports {@code elapsed x N / done}, marked as projected.
 * </ol>
 *
 * Fails (with the log's path) when the process exits or a phase times out; the process is always
 * stopped before {@link #run} returns.
 */
final class UpstreamPeer {
  private static final String NS = "bench";

  record Result(
      double coldStart,
      double cpuSeconds,
      long rssMb,
      long rssPeakMb,
      double requestsPerService,
      double servicePatchesPerService,
      double eventWritesPerService,
      long ensuredEvents,
      double nodeSync,
      boolean nodeSyncProjected,
      long nodeSyncDone,
      double nodeSyncElapsed,
      double[] converged) {}

  private final Path binary;
  private final int workers;
  private final Duration nodeSyncCap;
  private final Duration timeout;

  UpstreamPeer(Path binary, int workers, Duration nodeSyncCap, Duration timeout) {
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          "no upstream service controller at " + binary + " (scripts/bench/upstream/build.sh)");
    }
    this.binary = binary;
    this.workers = workers;
    this.nodeSyncCap = nodeSyncCap;
    this.timeout = timeout;
  }

  int workers() {
    return workers;
  }

  Duration nodeSyncCap() {
    return nodeSyncCap;
  }

  /**
   * Measures upstream on {@code kube}, which holds the run's Ready nodes and {@code n} unhandled
   * LoadBalancer Services in namespace {@value #NS}.
   */
  Result run(KubeApiServer kube, int n, int delayMs, Path runDir) throws Exception {
    ApiLoad api = new ApiLoad(kube, HttpClient.Version.HTTP_2);
    HttpClient local = HttpClient.newHttpClient();
    int countersPort = BenchDriver.freePort();
    Path logFile = runDir.resolve("upstream.log");
    IngressWatch watch = new IngressWatch(kube, NS, n);
    String before = api.get("/metrics");
    List<String> cmd =
        List.of(
            binary.toString(),
            "--kubeconfig=" + kube.kubeconfigPath(),
            "--workers=" + workers,
            "--kube-api-qps=5000",
            "--kube-api-burst=5000",
            "--delay=" + delayMs + "ms",
            "--counters-addr=127.0.0.1:" + countersPort,
            "--cluster-name=kubernetes");
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectErrorStream(true);
    pb.redirectOutput(logFile.toFile());
    BenchDriver.log("starting upstream's service controller: %s", String.join(" ", cmd));
    Process p = pb.start();
    watch.startClock();
    // Stops it even when the driver is interrupted.
    Thread reaper = new Thread(p::destroyForcibly, "upstream-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    try {
      long t0 = System.nanoTime();
      long deadline = t0 + timeout.toNanos();
      long lastLog = t0;
      long lastProgress = t0;
      int lastCount = 0;
      while (watch.converged() < n) {
        alive(p, logFile, "during the cold start");
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              String.format(
                  "upstream's service controller timed out: %d of %d Services had an ingress"
                      + " after %d s; see %s",
                  watch.converged(), n, timeout.toSeconds(), logFile));
        }
        watch.awaitChange(100);
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
          BenchDriver.log("upstream: converged %d of %d", watch.converged(), n);
        }
      }
      double[] sorted = watch.times();
      double coldStart = sorted[n - 1];
      double cpu = BenchDriver.cpuSeconds(p.pid());
      String status = Files.readString(Path.of("/proc/" + p.pid() + "/status"));
      long rss = BenchDriver.kb(status, "VmRSS") / 1024;
      long rssPeak = BenchDriver.kb(status, "VmHWM") / 1024;
      watch.close();
      BenchDriver.log(
          "upstream cold start: %.2f s, CPU %.1f s, RSS %d MB (peak %d MB)",
          coldStart, cpu, rss, rssPeak);
      BenchDriver.writeSeries(runDir.resolve("upstream-converged.csv"), sorted);

      // Its Events are written one at a time after the Services': let them drain first.
      String after = BenchDriver.quiesce(api);
      alive(p, logFile, "while its requests drained");
      double requests =
          PromText.sum(after, "apiserver_request_total")
              - PromText.sum(before, "apiserver_request_total");
      double svcPatches =
          BenchDriver.patches(after, "services") - BenchDriver.patches(before, "services");
      double eventWrites = BenchDriver.eventWrites(after) - BenchDriver.eventWrites(before);
      long ensured =
          kube.client().v1().events().inNamespace(NS).list().getItems().stream()
              .filter(e -> "EnsuredLoadBalancer".equals(e.getReason()))
              .count();
      BenchDriver.log(
          "upstream: %.2f API requests per Service (%.2f Service PATCHes, %.2f Event writes),"
              + " %d EnsuredLoadBalancer Events",
          requests / n, svcPatches / n, eventWrites / n, ensured);

      // Node sync: one more Ready node; every load balancer must get it.
      long updates0 = counters(local, countersPort, logFile).getLong("update");
      long s0 = System.nanoTime();
      kube.createReadyNode("node-added", "10.250.1.1", Map.of());
      double nodeSync;
      boolean projected = false;
      long done;
      double elapsed;
      while (true) {
        alive(p, logFile, "during the node sync");
        done = counters(local, countersPort, logFile).getLong("update") - updates0;
        elapsed = (System.nanoTime() - s0) / 1e9;
        if (done >= n) {
          nodeSync = elapsed;
          break;
        }
        if (elapsed > nodeSyncCap.toSeconds()) {
          if (done == 0) {
            throw new IllegalStateException(
                String.format(
                    "upstream's node sync made no UpdateLoadBalancer call in %.0f s; see %s",
                    elapsed, logFile));
          }
          projected = true;
          nodeSync = elapsed * n / done;
          break;
        }
        Thread.sleep(20);
      }
      BenchDriver.log(
          projected
              ? "upstream node sync: %4$d of %2$d load balancers in %3$.1f s, projected %1$.1f s"
              : "upstream node sync: %.2f s (%d load balancers)",
          nodeSync,
          n,
          elapsed,
          done);
      return new Result(
          coldStart,
          cpu,
          rss,
          rssPeak,
          requests / n,
          svcPatches / n,
          eventWrites / n,
          ensured,
          nodeSync,
          projected,
          done,
          elapsed,
          sorted);
    } finally {
      watch.close();
      if (p.isAlive()) {
        BenchDriver.stop(p);
      }
      try {
        Runtime.getRuntime().removeShutdownHook(reaper);
      } catch (IllegalStateException shuttingDown) {
        // The hook runs anyway.
      }
    }
  }

  private static void alive(Process p, Path logFile, String when) throws IOException {
    if (!p.isAlive()) {
      List<String> tail = new ArrayList<>(Files.readAllLines(logFile));
      throw new IllegalStateException(
          String.format(
              "upstream's service controller exited with %d %s; see %s, which ends:%n  %s",
              p.exitValue(),
              when,
              logFile,
              tail.isEmpty()
                  ? "(nothing)"
                  : String.join("\n  ", tail.subList(Math.max(0, tail.size() - 10), tail.size()))));
    }
  }

  private static JsonObject counters(HttpClient local, int port, Path logFile) throws Exception {
    try {
      return new JsonObject(
          local
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/counters"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body());
    } catch (IOException e) {
      throw new IllegalStateException(
          "upstream's counters at 127.0.0.1:"
              + port
              + " did not answer ("
              + e
              + "); see "
              + logFile,
          e);
    }
  }
}
