package dev.pier.bench;

import dev.pier.model.FederationKeys;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.KubeApiServers;
import dev.pier.testkit.ScaleOutCredentials;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The federation under scale-out, behind {@code scripts/bench/run.sh scale-out-federation}: how
 * memory and work divide when replicas share a federation per member cluster (docs/scale-out.md).
 * Per replica count, everything fresh: a host and M member apiservers (each member with a few Ready
 * nodes and Pier's benchmark provider at the delay, its addresses in a range of its own), N
 * federated Services created on the host, then R Pier processes launched together. Measured: the
 * cold start until every host Service's status holds all M members' ingresses, and per replica at
 * convergence its RSS, live heap after a full GC, CPU seconds and the shards it holds. Results:
 * {@code OUT/results.md} and {@code OUT/results.csv}, one directory per run with each replica's
 * log.
 */
public final class ScaleOutFederationBench {
  private static final String NS = "fed-scale";
  private static final Pattern HEAP_USED = Pattern.compile("total (\\d+)K, used (\\d+)K");

  record Result(
      boolean memberLoadBalancers,
      int replicas,
      int members,
      int n,
      double coldStart,
      List<Long> rssMb,
      List<Long> heapMb,
      List<Double> cpu,
      List<Integer> shards,
      List<Double> idleCpuPerMinute,
      List<Long> idleHostRunsPerMinute) {}

  // false: the members run no load balancers, so only the federation's own caches are per member;
  // converged means every member has every copy.
  private static boolean memberLoadBalancers;

  // After convergence, how long each replica's CPU is measured with nothing changing (0: not).
  private static Duration idle = Duration.ZERO;

  private ScaleOutFederationBench() {}

  public static void main(String[] args) {
    BenchDriver.exitAfter("scale-out federation benchmark", () -> run(args));
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> a = BenchDriver.options(args);
    int n = Integer.parseInt(a.getOrDefault("services", "500"));
    int memberCount = Integer.parseInt(a.getOrDefault("members", "6"));
    int delayMs = Integer.parseInt(a.getOrDefault("delay", "100"));
    int nodes = Integer.parseInt(a.getOrDefault("nodes", "2"));
    memberLoadBalancers = Boolean.parseBoolean(a.getOrDefault("member-load-balancers", "true"));
    idle = Duration.ofSeconds(Long.parseLong(a.getOrDefault("idle", "0")));
    List<Integer> counts =
        Arrays.stream(a.getOrDefault("replicas", "1,3").split(","))
            .map(String::trim)
            .map(Integer::parseInt)
            .toList();
    Duration timeout = Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeout", "900")));
    Path out = Path.of(a.getOrDefault("out", "target/bench/scale-out-federation"));
    Path jar = Path.of(a.getOrDefault("jar", "target/pier.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no Pier jar at " + jar + " (build it first)");
    }
    Files.createDirectories(out);
    List<String> jvm =
        Arrays.stream(a.getOrDefault("jvm", "").trim().split("\\s+"))
            .filter(s -> !s.isEmpty())
            .toList();
    List<Result> results = new ArrayList<>();
    for (int r : counts) {
      Result result = run(jvm, jar, out, n, memberCount, nodes, delayMs, r, timeout);
      results.add(result);
      record(out, result);
    }
    String table = table(results, a.getOrDefault("revision", "unknown"), delayMs);
    Files.writeString(
        out.resolve("results.md"),
        String.format("%n## %s%n%n%s%n", java.time.Instant.now(), table),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    System.out.println();
    System.out.println(table);
  }

  private static Result run(
      List<String> jvm,
      Path jar,
      Path out,
      int n,
      int memberCount,
      int nodes,
      int delayMs,
      int count,
      Duration timeout)
      throws Exception {
    Path dir =
        out.resolve(
            "run-" + n + "-m" + memberCount + "-r" + count + (memberLoadBalancers ? "" : "-nolb"));
    Files.createDirectories(dir);
    BenchDriver.log("scale-out federation: N=%d, %d members, %d replica(s)", n, memberCount, count);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < memberCount; i++) {
      names.add("member-" + i);
    }
    List<Process> replicas = new ArrayList<>();
    List<Integer> adminPorts = new ArrayList<>();
    Map<String, KubeApiServer> members = new TreeMap<>();
    try (KubeApiServer host = apiserver()) {
      members.putAll(KubeApiServers.start(names, 3, ScaleOutFederationBench::apiserver));
      int m = 0;
      for (Map.Entry<String, KubeApiServer> e : members.entrySet()) {
        for (int i = 0; i < nodes; i++) {
          e.getValue()
              .createReadyNode(
                  String.format("%s-%02d", e.getKey(), i),
                  "10.250." + m + "." + (i + 1),
                  Map.of(
                      "topology.kubernetes.io/region",
                      "region-" + m,
                      "topology.kubernetes.io/zone",
                      "zone-" + m + "-" + (char) ('a' + i % 2)));
        }
        // Each member's addresses start at 10.(16 m).0.1: one Service's copies never share one.
        FederationBench.offsetAddresses(
            new ApiLoad(e.getValue(), HttpClient.Version.HTTP_2), "10." + (16 * m) + ".0.0");
        m++;
      }
      Path config = dir.resolve("federation.yaml");
      Files.writeString(config, config(host, members, delayMs));
      ApiLoad hostApi = new ApiLoad(host, HttpClient.Version.HTTP_2);
      hostApi
          .send(
              new ApiLoad.Call(
                  "POST", "/api/v1/namespaces", "application/json", FederationBench.optedIn(NS)))
          .join();
      long created =
          hostApi.runChains(
              n, 100, i -> List.of(FederationBench.createFederated(NS, FederationBench.name(i))));
      BenchDriver.log("created %d federated Services on the host in %.1f s", n, created / 1e9);
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ports.add(BenchDriver.freePort());
      }
      String peers = ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
      IngressWatch watch = new IngressWatch(host, NS, n, memberCount);
      for (int i = 0; i < count; i++) {
        int admin = BenchDriver.freePort();
        adminPorts.add(admin);
        replicas.add(start(jvm, jar, config, dir, "r" + i, ports.get(i), peers, admin));
      }
      watch.startClock();
      double coldStart;
      try {
        coldStart =
            memberLoadBalancers
                ? ScaleOutBench.awaitConverged(watch, n, replicas, timeout)
                : awaitCopies(members, n, replicas, timeout);
      } finally {
        watch.close();
      }
      BenchDriver.log("%d replica(s): cold start %.2f s", count, coldStart);
      List<Long> rss = new ArrayList<>();
      List<Long> heap = new ArrayList<>();
      List<Double> cpu = new ArrayList<>();
      List<Integer> shards = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        long pid = replicas.get(i).pid();
        cpu.add(BenchDriver.cpuSeconds(pid));
        shards.add(
            (int) PromText.sum(ScaleOutBench.metrics(adminPorts.get(i)), "pier_shards_owned"));
      }
      Idle idleWork = idle(replicas, adminPorts);
      for (Process p : replicas) {
        BenchDriver.jcmd(p.pid(), "GC.run");
      }
      Thread.sleep(1000);
      for (int i = 0; i < count; i++) {
        long pid = replicas.get(i).pid();
        String status = Files.readString(Path.of("/proc/" + pid + "/status"));
        rss.add(BenchDriver.kb(status, "VmRSS") / 1024);
        String heapInfo = BenchDriver.jcmd(pid, "GC.heap_info");
        long used = 0;
        Matcher hm = HEAP_USED.matcher(heapInfo);
        while (hm.find()) {
          used += Long.parseLong(hm.group(2));
        }
        heap.add(used / 1024);
      }
      BenchDriver.log(
          "RSS MB %s, live heap MB %s, CPU s %s, shards %s, idle CPU s/min %s, host runs/min %s",
          rss, heap, cpu, shards, idleWork.cpuPerMinute(), idleWork.hostRunsPerMinute());
      return new Result(
          memberLoadBalancers,
          count,
          memberCount,
          n,
          coldStart,
          rss,
          heap,
          cpu,
          shards,
          idleWork.cpuPerMinute(),
          idleWork.hostRunsPerMinute());
    } finally {
      for (Process p : replicas) {
        BenchDriver.stop(p);
      }
      members.values().forEach(KubeApiServer::close);
    }
  }

  /** Per replica, over the idle window: CPU seconds and host-side federation runs per minute. */
  record Idle(List<Double> cpuPerMinute, List<Long> hostRunsPerMinute) {}

  /**
   * Each replica's work over the idle window, nothing changing in any cluster: what resyncs,
   * renewals and heartbeats cost. Empty lists when the window is 0.
   */
  private static Idle idle(List<Process> replicas, List<Integer> adminPorts) throws Exception {
    if (idle.isZero()) {
      return new Idle(List.of(), List.of());
    }
    List<Double> cpuBefore = new ArrayList<>();
    List<Double> runsBefore = new ArrayList<>();
    for (int i = 0; i < replicas.size(); i++) {
      cpuBefore.add(BenchDriver.cpuSeconds(replicas.get(i).pid()));
      runsBefore.add(hostRuns(adminPorts.get(i)));
    }
    BenchDriver.log("idle for %d s", idle.toSeconds());
    Thread.sleep(idle.toMillis());
    double minutes = idle.toSeconds() / 60.0;
    List<Double> cpu = new ArrayList<>();
    List<Long> runs = new ArrayList<>();
    for (int i = 0; i < replicas.size(); i++) {
      double used = BenchDriver.cpuSeconds(replicas.get(i).pid()) - cpuBefore.get(i);
      cpu.add(Math.round(used / minutes * 100) / 100.0);
      runs.add(Math.round((hostRuns(adminPorts.get(i)) - runsBefore.get(i)) / minutes));
    }
    return new Idle(cpu, runs);
  }

  /** The replica's runs of host keys so far (aggregates), every outcome. */
  private static double hostRuns(int adminPort) throws Exception {
    return PromText.sum(
        ScaleOutBench.metrics(adminPort),
        "pier_federation_runs_total",
        line -> line.contains("side=\"host\""));
  }

  private static KubeApiServer apiserver() {
    return KubeApiServer.builder().withFlag("--service-node-port-range=10000-32767").start();
  }

  /** Seconds from now until every member holds {@code n} copies. */
  private static double awaitCopies(
      Map<String, KubeApiServer> members, int n, List<Process> replicas, Duration timeout)
      throws Exception {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long lastLog = start;
    while (true) {
      int least = Integer.MAX_VALUE;
      for (KubeApiServer m : members.values()) {
        least =
            Math.min(
                least,
                m.client()
                    .services()
                    .inNamespace(NS)
                    .withLabel(FederationKeys.FEDERATION_LABEL)
                    .list()
                    .getItems()
                    .size());
      }
      if (least >= n) {
        return (System.nanoTime() - start) / 1e9;
      }
      for (Process p : replicas) {
        if (!p.isAlive()) {
          throw new IllegalStateException("a replica exited (pid " + p.pid() + ")");
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("copies: " + least + " of " + n + " in time");
      }
      if (System.nanoTime() - lastLog > 5_000_000_000L) {
        lastLog = System.nanoTime();
        BenchDriver.log("copies in every member: %d of %d", least, n);
      }
      Thread.sleep(250);
    }
  }

  private static String config(
      KubeApiServer host, Map<String, KubeApiServer> members, int delayMs) {
    // The benchmark provider in each member (its entry, indented) and as the default.
    String benchmark = "provider: benchmark\nbenchmark:\n  delay: " + delayMs + "ms\n";
    FederationConfig config = FederationConfig.host(host.kubeconfigPath()).loadBalancers(false);
    members.forEach(
        (name, kube) ->
            config
                .member(name, kube.kubeconfigPath())
                .loadBalancers(memberLoadBalancers)
                .clusterYaml(benchmark.indent(4)));
    return config.topLevelYaml(benchmark).yaml();
  }

  private static Process start(
      List<String> jvm,
      Path jar,
      Path config,
      Path dir,
      String name,
      int port,
      String peers,
      int adminPort)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.addAll(List.of("-jar", jar.toString(), "--config", config.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("PIER_"));
    env.put("PIER_ADMIN_HOST", "127.0.0.1");
    env.put("PIER_ADMIN_PORT", String.valueOf(adminPort));
    env.put("PIER_SCALE_OUT_ENABLED", "true");
    env.put("PIER_SCALE_OUT_HOST", "127.0.0.1");
    env.put("PIER_SCALE_OUT_PORT", String.valueOf(port));
    env.put("PIER_SCALE_OUT_MEMBERS", peers);
    env.put("PIER_SCALE_OUT_CLUSTER_NAME", "bench-fed-" + ProcessHandle.current().pid());
    env.put("POD_NAME", "pier-" + name);
    env.put("PIER_SCALE_OUT_EVENT_BUS_PORT", "0");
    env.putAll(ScaleOutCredentials.shared().env());
    pb.redirectErrorStream(true);
    pb.redirectOutput(dir.resolve("pier-" + name + ".log").toFile());
    return pb.start();
  }

  private static void record(Path out, Result r) throws IOException {
    Path csv = out.resolve("results.csv");
    if (!Files.exists(csv)) {
      Files.writeString(
          csv,
          "member_lbs,replicas,members,n,cold_start_s,rss_mb,heap_mb,cpu_s,shards,"
              + "idle_cpu_s_per_min,idle_host_runs_per_min\n");
    }
    Files.writeString(
        csv,
        String.format(
            "%s,%d,%d,%d,%.2f,%s,%s,%s,%s,%s,%s%n",
            r.memberLoadBalancers(),
            r.replicas(),
            r.members(),
            r.n(),
            r.coldStart(),
            join(r.rssMb()),
            join(r.heapMb()),
            join(r.cpu().stream().map(c -> String.format("%.1f", c)).toList()),
            join(r.shards()),
            join(r.idleCpuPerMinute()),
            join(r.idleHostRunsPerMinute())),
        StandardOpenOption.APPEND);
  }

  private static String join(List<?> values) {
    return values.stream().map(String::valueOf).collect(Collectors.joining(" "));
  }

  static String table(List<Result> results, String revision, int delayMs) {
    StringBuilder b =
        new StringBuilder(
            "| members' load balancers | replicas | members | N | cold start s | RSS MB per"
                + " replica | live heap MB per replica | CPU s per replica | shards per replica |"
                + " idle CPU s/min per replica | idle host runs/min per replica |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Result r : results) {
      b.append(
          String.format(
              "| %s | %d | %d | %,d | %.2f | %s | %s | %s | %s | %s | %s |%n",
              r.memberLoadBalancers() ? "Pier's" : "none",
              r.replicas(),
              r.members(),
              r.n(),
              r.coldStart(),
              join(r.rssMb()),
              join(r.heapMb()),
              join(r.cpu().stream().map(c -> String.format("%.1f", c)).toList()),
              join(r.shards()),
              r.idleCpuPerMinute().isEmpty() ? "-" : join(r.idleCpuPerMinute()),
              r.idleHostRunsPerMinute().isEmpty() ? "-" : join(r.idleHostRunsPerMinute())));
    }
    b.append('\n')
        .append("Revision ")
        .append(revision)
        .append(
            String.format(
                ". Cold start: seconds from launching the replicas until every federated host"
                    + " Service's status holds every member's ingress (each member's copies get"
                    + " load balancers from Pier's benchmark provider at %d ms), or without"
                    + " members' load balancers until every member holds every copy. RSS and live"
                    + " heap"
                    + " after a full GC at convergence; idle CPU over the --idle window after it,"
                    + " nothing changing. Every process on this 2-core machine, so"
                    + " the figures show how work and memory divide, not a speedup.",
                delayMs));
    return b.toString();
  }
}
