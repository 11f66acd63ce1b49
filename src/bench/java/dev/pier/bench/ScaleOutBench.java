package dev.pier.bench;

import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.ScaleOutCredentials;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The scale-out benchmark behind {@code scripts/bench/run.sh scale-out}: N Services against the
 * webhook stand-in answering after a delay, converged by 1 and by R replicas sharing the shards
 * (docs/scale-out.md). Per replica count, on a fresh apiserver: the cold start until every Service
 * has an ingress, RSS and CPU per replica at convergence, the Lease write rate over a quiet window,
 * and with two or more replicas the time until a killed (SIGKILL) and a stopped (SIGTERM) replica's
 * shards have new owners. Results: {@code OUT/results.md}, {@code OUT/results.csv}, one directory
 * per run with each replica's log.
 */
public final class ScaleOutBench {
  private static final int SHARDS = 32;
  private static final String LEASE_NS = "default";

  record Replica(String name, Process process, int adminPort) {}

  record Result(
      int replicas,
      int n,
      int delayMs,
      double coldStart,
      double steady,
      List<Long> rssMb,
      List<Double> cpu,
      List<Integer> shardsOwned,
      double leaseWritesPerSecond,
      double killMove,
      double stopMove) {}

  private static int concurrency;

  private ScaleOutBench() {}

  public static void main(String[] args) {
    BenchDriver.exitAfter("scale-out benchmark", () -> run(args));
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> a = BenchDriver.options(args);
    int n = Integer.parseInt(a.getOrDefault("services", "10000"));
    int delayMs = Integer.parseInt(a.getOrDefault("delay", "1000"));
    List<Integer> counts =
        Arrays.stream(a.getOrDefault("replicas", "1,3").split(","))
            .map(String::trim)
            .map(Integer::parseInt)
            .toList();
    Duration settle = Duration.ofSeconds(Long.parseLong(a.getOrDefault("settle", "30")));
    // Each replica's reconcile.concurrency; 0: the shipped default.
    concurrency = Integer.parseInt(a.getOrDefault("concurrency", "0"));
    Duration timeout = Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeout", "900")));
    Path out = Path.of(a.getOrDefault("out", "target/bench/scale-out"));
    Path jar = Path.of(a.getOrDefault("jar", "target/pier.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no Pier jar at " + jar + " (build it first)");
    }
    Files.createDirectories(out);
    List<String> jvm =
        Arrays.stream(a.getOrDefault("jvm", "").trim().split("\\s+"))
            .filter(s -> !s.isEmpty())
            .toList();
    BenchDriver driver =
        new BenchDriver(
            jvm,
            jar,
            out,
            Integer.parseInt(a.getOrDefault("nodes", "10")),
            200,
            List.of("h2"),
            timeout,
            null);
    List<Result> results = new ArrayList<>();
    for (int r : counts) {
      results.add(run(driver, jvm, jar, out, n, delayMs, r, settle, timeout));
      BenchDriver.log(
          "reconcile.concurrency per replica: %s", concurrency > 0 ? concurrency : "default");
      record(out, results.get(results.size() - 1));
    }
    String table = table(results, a.getOrDefault("revision", "unknown"));
    Files.writeString(
        out.resolve("results.md"),
        String.format("%n## %s%n%n%s%n", java.time.Instant.now(), table),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    System.out.println();
    System.out.println(table);
  }

  private static Result run(
      BenchDriver driver,
      List<String> jvm,
      Path jar,
      Path out,
      int n,
      int delayMs,
      int count,
      Duration settle,
      Duration timeout)
      throws Exception {
    Path dir = out.resolve("run-" + n + "-" + delayMs + "-r" + count);
    Files.createDirectories(dir);
    BenchDriver.log("scale-out: N=%d, delay %d ms, %d replica(s)", n, delayMs, count);
    int standInPort = BenchDriver.freePort();
    Process standIn = WebhookBench.startStandIn(standInPort, delayMs, dir, timeout.multipliedBy(2));
    List<Replica> replicas = new ArrayList<>();
    try (KubeApiServer kube = driver.cluster(n)) {
      WebhookBench.awaitListening(standIn, standInPort, dir);
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ports.add(BenchDriver.freePort());
      }
      String members = ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
      IngressWatch watch = new IngressWatch(kube, "bench", n);
      for (int i = 0; i < count; i++) {
        replicas.add(start(kube, jvm, jar, dir, "r" + i, ports.get(i), members, standInPort));
      }
      watch.startClock();
      double coldStart;
      try {
        coldStart = await(watch, n, replicas, timeout);
      } finally {
        watch.close();
      }
      BenchDriver.log("%d replica(s): cold start %.2f s", count, coldStart);
      List<Long> rss = new ArrayList<>();
      List<Double> cpu = new ArrayList<>();
      List<Integer> owned = new ArrayList<>();
      for (Replica r : replicas) {
        String status = Files.readString(Path.of("/proc/" + r.process().pid() + "/status"));
        rss.add(BenchDriver.kb(status, "VmRSS") / 1024);
        cpu.add(BenchDriver.cpuSeconds(r.process().pid()));
        owned.add((int) PromText.sum(metrics(r), "pier_shards_owned"));
      }
      double writes0 = leaseWrites(replicas);
      long t0 = System.nanoTime();
      Thread.sleep(settle.toMillis());
      double rate = (leaseWrites(replicas) - writes0) / ((System.nanoTime() - t0) / 1e9);
      BenchDriver.log("RSS MB %s, CPU s %s, shards %s, Lease writes %.2f/s", rss, cpu, owned, rate);
      // Steady: the replicas joined and divided the shards; N more Services arrive at once.
      double steady = steady(kube, n, replicas, timeout);
      BenchDriver.log("%d replica(s): %d new Services converged in %.2f s", count, n, steady);
      double killMove = -1;
      double stopMove = -1;
      if (count >= 2) {
        Replica killed = replicas.get(0);
        long k = System.nanoTime();
        killed.process().destroyForcibly().waitFor();
        awaitHolders(kube, Set.copyOf(names(replicas.subList(1, count))), timeout);
        killMove = (System.nanoTime() - k) / 1e9;
        BenchDriver.log("a killed replica's shards moved in %.2f s", killMove);
      }
      if (count >= 3) {
        Replica stopped = replicas.get(1);
        long s = System.nanoTime();
        stopped.process().destroy();
        awaitHolders(kube, Set.copyOf(names(replicas.subList(2, count))), timeout);
        stopMove = (System.nanoTime() - s) / 1e9;
        BenchDriver.log("a stopped replica's shards moved in %.2f s", stopMove);
      }
      return new Result(
          count, n, delayMs, coldStart, steady, rss, cpu, owned, rate, killMove, stopMove);
    } finally {
      for (Replica r : replicas) {
        BenchDriver.stop(r.process());
      }
      BenchDriver.stop(standIn);
    }
  }

  /**
   * Creates {@code n} Services in a namespace of their own while the replicas run, and returns the
   * seconds from the first creation until every one has an ingress.
   */
  private static double steady(KubeApiServer kube, int n, List<Replica> replicas, Duration timeout)
      throws Exception {
    String ns = "steady";
    ApiLoad api = new ApiLoad(kube, HttpClient.Version.HTTP_2);
    api.send(
            new ApiLoad.Call(
                "POST", "/api/v1/namespaces", "application/json", BenchDriver.namespace(ns)))
        .join();
    IngressWatch watch = new IngressWatch(kube, ns, n);
    watch.startClock();
    try {
      Thread creating =
          new Thread(
              () -> {
                try {
                  api.runChains(n, 200, i -> List.of(BenchDriver.createService(ns, i)));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      creating.start();
      double seconds = await(watch, n, replicas, timeout);
      creating.join();
      return seconds;
    } finally {
      watch.close();
    }
  }

  private static Replica start(
      KubeApiServer kube,
      List<String> jvm,
      Path jar,
      Path dir,
      String name,
      int port,
      String members,
      int standInPort)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.addAll(List.of("-jar", jar.toString(), "--config", "conf/pier.yaml"));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("PIER_"));
    int adminPort = BenchDriver.freePort();
    env.putAll(
        Map.of(
            "PIER_PROVIDER",
            "webhook",
            "PIER_WEBHOOK_URL",
            "http://127.0.0.1:" + standInPort + "/pier/v1",
            "PIER_CLUSTER_KUBECONFIG",
            kube.kubeconfigPath().toString(),
            "PIER_ADMIN_HOST",
            "127.0.0.1",
            "PIER_ADMIN_PORT",
            String.valueOf(adminPort),
            "PIER_SCALE_OUT_ENABLED",
            "true",
            "PIER_SCALE_OUT_HOST",
            "127.0.0.1",
            "PIER_SCALE_OUT_PORT",
            String.valueOf(port),
            "PIER_SCALE_OUT_MEMBERS",
            members,
            "PIER_SCALE_OUT_CLUSTER_NAME",
            "bench-" + ProcessHandle.current().pid()));
    env.put("POD_NAME", "pier-" + name);
    env.put("PIER_SCALE_OUT_EVENT_BUS_PORT", "0");
    env.putAll(ScaleOutCredentials.shared().env());
    if (concurrency > 0) {
      env.put("PIER_RECONCILE_CONCURRENCY", String.valueOf(concurrency));
    }
    pb.redirectErrorStream(true);
    pb.redirectOutput(dir.resolve("pier-" + name + ".log").toFile());
    return new Replica(name, pb.start(), adminPort);
  }

  private static double await(IngressWatch watch, int n, List<Replica> replicas, Duration timeout)
      throws Exception {
    return awaitConverged(watch, n, replicas.stream().map(Replica::process).toList(), timeout);
  }

  /**
   * Seconds from the watch's clock start until {@code n} Services converged; fails when a process
   * exits or the timeout passes.
   */
  static double awaitConverged(IngressWatch watch, int n, List<Process> processes, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    long lastLog = System.nanoTime();
    long lastProgress = System.nanoTime();
    int lastCount = 0;
    while (watch.converged() < n) {
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new IllegalStateException("a replica exited (pid " + p.pid() + ")");
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(watch.converged() + " of " + n + " converged in time");
      }
      watch.awaitChange(200);
      int now = watch.converged();
      if (now != lastCount) {
        lastCount = now;
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > 1_000_000_000L) {
        watch.restart();
        lastProgress = System.nanoTime();
      }
      if (System.nanoTime() - lastLog > 5_000_000_000L) {
        lastLog = System.nanoTime();
        BenchDriver.log("converged %d of %d", now, n);
      }
    }
    double[] times = watch.times();
    return times[times.length - 1];
  }

  /** Waits until every shard's Lease is held by one of {@code names}. */
  private static void awaitHolders(KubeApiServer kube, Set<String> names, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Map<Integer, String> holders = new HashMap<>();
      for (Lease lease : kube.client().leases().inNamespace(LEASE_NS).list().getItems()) {
        String name = lease.getMetadata().getName();
        String holder = lease.getSpec().getHolderIdentity();
        if (name.startsWith("pier-shard-") && holder != null && holder.startsWith("pier-")) {
          holders.put(
              Integer.parseInt(name.substring("pier-shard-".length())),
              holder.substring("pier-".length(), holder.indexOf('_')));
        }
      }
      if (holders.size() == SHARDS && names.containsAll(holders.values())) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the shards did not move to " + names + " in time");
  }

  private static List<String> names(List<Replica> replicas) {
    return replicas.stream().map(Replica::name).toList();
  }

  private static double leaseWrites(List<Replica> replicas) throws Exception {
    double sum = 0;
    for (Replica r : replicas) {
      sum += PromText.sum(metrics(r), "pier_shard_lease_writes_total");
    }
    return sum;
  }

  private static String metrics(Replica r) throws Exception {
    return metrics(r.adminPort());
  }

  /** The metrics a replica serves on its admin port. */
  static String metrics(int adminPort) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static void record(Path out, Result r) throws IOException {
    Path csv = out.resolve("results.csv");
    if (!Files.exists(csv)) {
      Files.writeString(
          csv,
          "replicas,n,delay_ms,cold_start_s,steady_s,rss_mb,cpu_s,shards,lease_writes_per_s,"
              + "kill_move_s,stop_move_s\n");
    }
    Files.writeString(
        csv,
        String.format(
            "%d,%d,%d,%.2f,%.2f,%s,%s,%s,%.2f,%.2f,%.2f%n",
            r.replicas(),
            r.n(),
            r.delayMs(),
            r.coldStart(),
            r.steady(),
            join(r.rssMb()),
            join(r.cpu().stream().map(c -> String.format("%.1f", c)).toList()),
            join(r.shardsOwned()),
            r.leaseWritesPerSecond(),
            r.killMove(),
            r.stopMove()),
        StandardOpenOption.APPEND);
  }

  private static String join(List<?> values) {
    return values.stream().map(String::valueOf).collect(Collectors.joining(" "));
  }

  static String table(List<Result> results, String revision) {
    StringBuilder b =
        new StringBuilder(
            "| replicas | N | delay | cold start s | N more while running, s | RSS MB per replica |"
                + " CPU s per replica |"
                + " shards per replica | Lease writes/s | killed replica's shards moved, s |"
                + " stopped replica's shards moved, s |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Result r : results) {
      b.append(
          String.format(
              "| %d | %,d | %d ms | %.2f | %.2f | %s | %s | %s | %.2f | %s | %s |%n",
              r.replicas(),
              r.n(),
              r.delayMs(),
              r.coldStart(),
              r.steady(),
              join(r.rssMb()),
              join(r.cpu().stream().map(c -> String.format("%.1f", c)).toList()),
              join(r.shardsOwned()),
              r.leaseWritesPerSecond(),
              r.killMove() < 0 ? "-" : String.format("%.2f", r.killMove()),
              r.stopMove() < 0 ? "-" : String.format("%.2f", r.stopMove())));
    }
    b.append('\n')
        .append("Revision ")
        .append(revision)
        .append(
            ". Cold start: seconds from launching the replicas until every Service has"
                + " status.loadBalancer.ingress. N more: seconds from the first of N new Services"
                + " (created 200 at a time while the replicas run) until each has an ingress."
                + " Every replica on this 2-core machine, so the figures show how work and memory"
                + " divide, not a speedup.");
    return b.toString();
  }
}
