package dev.pier.bench;

import dev.pier.model.FederationKeys;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.KubeApiServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The federation benchmark behind {@code scripts/bench/run.sh federation}. Per run, everything
 * fresh: three etcd + kube-apiserver pairs (a host and the members east and west, each member with
 * a few Ready nodes), Pier as its own process with a {@code clusters:} config (the host without
 * load balancers, each member with the {@code benchmark} provider at the given delay), and:
 *
 * <ol>
 *   <li>create-to-aggregate latency: on the idle federation, one federated Service at a time is
 *       created on the host; seconds until its {@code status.loadBalancer.ingress} holds both
 *       members' ingresses (seen by a watch); then it is deleted and its copies awaited gone;
 *   <li>cold start: Pier stopped, N federated Services created on the host; seconds from launching
 *       Pier until every one of them has both members' ingresses in its status;
 *   <li>Pier's CPU seconds (from /proc) until then, RSS and live heap after a full GC, and the API
 *       requests per Service on each apiserver (their own {@code apiserver_request_total});
 *   <li>the floor: Pier stopped, N fresh federated Services get the writes a federated Service
 *       needs, straight at the three apiservers, many in flight, no client limit.
 * </ol>
 *
 * <p>Both members' benchmark providers hand out addresses from 10.0.0.1 upwards, so one Service
 * would often get the same address in both and the aggregate would hold it once. A LoadBalancer
 * Service with the ingress 10.128.0.0, made in west before Pier first starts, moves west's
 * addresses to 10.128.0.1 upwards (the provider continues after the addresses it finds).
 */
public final class FederationBench {
  private static final String NS = "fed-bench";
  private static final String LATENCY_NS = "fed-latency";
  private static final String FLOOR_NS = "fed-floor";
  private static final String LB_FINALIZER = "service.kubernetes.io/load-balancer-cleanup";
  private static final List<String> MEMBERS = List.of("east", "west");
  private static final Pattern HEAP_USED = Pattern.compile("total (\\d+)K, used (\\d+)K");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  record Result(
      int n,
      int run,
      double coldStart,
      double ready,
      double floor,
      double pierCpu,
      double apiCpu,
      long rssMb,
      long rssPeakMb,
      long heapMb,
      double requestsPerService,
      double writesPerService,
      int mismatched,
      double[] latencies) {}

  private final List<String> jvmFlags;
  private final Path jar;
  private final Path out;
  private final int nodes;
  private final int delayMs;
  private final int floorInFlight;
  private final int latencyReps;
  private final Duration timeout;

  private FederationBench(
      List<String> jvmFlags,
      Path jar,
      Path out,
      int nodes,
      int delayMs,
      int floorInFlight,
      int latencyReps,
      Duration timeout) {
    this.jvmFlags = jvmFlags;
    this.jar = jar;
    this.out = out;
    this.nodes = nodes;
    this.delayMs = delayMs;
    this.floorInFlight = floorInFlight;
    this.latencyReps = latencyReps;
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
    FederationBench bench =
        new FederationBench(
            Arrays.stream(a.getOrDefault("jvm", "").trim().split("\\s+"))
                .filter(s -> !s.isEmpty())
                .toList(),
            Path.of(a.getOrDefault("jar", "target/pier.jar")),
            Path.of(a.getOrDefault("out", "target/bench/federation")),
            Integer.parseInt(a.getOrDefault("nodes", "3")),
            Integer.parseInt(a.getOrDefault("delay", "100")),
            Integer.parseInt(a.getOrDefault("floor-in-flight", "200")),
            Integer.parseInt(a.getOrDefault("latency-reps", "10")),
            Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeout", "900"))));
    int n = Integer.parseInt(a.getOrDefault("services", "1000"));
    int runs = Integer.parseInt(a.getOrDefault("runs", "1"));
    if (!Files.isRegularFile(bench.jar)) {
      throw new IllegalStateException("no Pier jar at " + bench.jar + " (build it first)");
    }
    Files.createDirectories(bench.out);
    List<Result> results = new ArrayList<>();
    for (int r = 1; r <= runs; r++) {
      Result result = bench.run(n, r);
      results.add(result);
      bench.record(result);
    }
    System.out.println();
    System.out.println(table(results));
    System.exit(0);
  }

  private Result run(int n, int run) throws Exception {
    BenchDriver.log(
        "federation run %d: N=%d, 2 members with %d nodes each, delay %d ms",
        run, n, nodes, delayMs);
    Path runDir = out.resolve("run-" + n + "-" + run);
    Files.createDirectories(runDir);
    try (KubeApiServer host = apiserver();
        KubeApiServer east = apiserver();
        KubeApiServer west = apiserver()) {
      Map<String, KubeApiServer> members = Map.of("east", east, "west", west);
      ApiLoad hostApi = new ApiLoad(host, HttpClient.Version.HTTP_2);
      Map<String, ApiLoad> memberApi =
          Map.of(
              "east", new ApiLoad(east, HttpClient.Version.HTTP_2),
              "west", new ApiLoad(west, HttpClient.Version.HTTP_2));
      for (int i = 0; i < nodes; i++) {
        east.createReadyNode(
            String.format("east-%02d", i),
            "10.250.0." + (i + 1),
            Map.of(
                "topology.kubernetes.io/region",
                "eu",
                "topology.kubernetes.io/zone",
                "eu-" + (char) ('a' + i % 2)));
        west.createReadyNode(
            String.format("west-%02d", i),
            "10.251.0." + (i + 1),
            Map.of(
                "topology.kubernetes.io/region",
                "us",
                "topology.kubernetes.io/zone",
                "us-" + (char) ('a' + i % 2)));
      }
      offsetAddresses(memberApi.get("west"));
      Path config = runDir.resolve("federation.yaml");
      Files.writeString(config, config(host, east, west));

      // 1. Create-to-aggregate latency on an idle federation.
      double[] latencies = latency(host, hostApi, members, config, runDir);

      // 2. Cold start with N federated Services on the host (Pier creates the namespace in the
      // members, with the first copy there).
      hostApi
          .send(new ApiLoad.Call("POST", "/api/v1/namespaces", "application/json", optedIn(NS)))
          .join();
      long created = hostApi.runChains(n, 100, i -> List.of(createFederated(NS, name(i))));
      BenchDriver.log("created %d federated Services on the host in %.1f s", n, created / 1e9);
      IngressWatch watch = new IngressWatch(host, NS, n, MEMBERS.size());
      Map<String, String> before = metrics(hostApi, memberApi);
      double[] cpu0 = new double[3];
      BenchDriver.cpuSnapshot(-1, cpu0);
      int adminPort = BenchDriver.freePort();
      Process pier = startPier(config, runDir.resolve("pier.log"), adminPort);
      watch.startClock();
      long t0 = System.nanoTime();
      try {
        double ready = awaitConverged(watch, n, pier, adminPort, t0, runDir);
        double coldStart = watch.times()[n - 1];
        double[] cpu1 = new double[3];
        BenchDriver.cpuSnapshot(pier.pid(), cpu1);
        double pierCpu = cpu1[1];
        double apiCpu = cpu1[2] - cpu0[2];
        BenchDriver.log("cold start: %.2f s (ready after %.2f s)", coldStart, ready);
        BenchDriver.log(
            "CPU during cold start: Pier %.1f s, 3 apiservers+etcds %.1f s, this driver %.1f s",
            pierCpu, apiCpu, cpu1[0] - cpu0[0]);
        watch.close();
        writeSeries(runDir.resolve("converged.csv"), watch.times());

        // Events and late writes are off the critical path: let them drain before counting.
        Map<String, String> after = new HashMap<>();
        after.put("host", BenchDriver.quiesce(hostApi));
        for (String m : MEMBERS) {
          after.put(m, BenchDriver.quiesce(memberApi.get(m)));
        }
        double[] counts = requests(before, after, n, runDir.resolve("requests.txt"));
        int mismatched = verify(host, members, n);
        BenchDriver.log(
            "%d of %d host Services have a status other than both members' ingresses",
            mismatched, n);

        long pid = pier.pid();
        BenchDriver.jcmd(pid, "GC.run");
        Thread.sleep(1000);
        String status = Files.readString(Path.of("/proc/" + pid + "/status"));
        long rss = BenchDriver.kb(status, "VmRSS") / 1024;
        long rssPeak = BenchDriver.kb(status, "VmHWM") / 1024;
        String heapInfo = BenchDriver.jcmd(pid, "GC.heap_info");
        Files.writeString(runDir.resolve("heap_info.txt"), heapInfo);
        long heapUsedKb = 0;
        Matcher m = HEAP_USED.matcher(heapInfo);
        while (m.find()) {
          heapUsedKb += Long.parseLong(m.group(2));
        }
        BenchDriver.log("RSS %d MB (peak %d MB), live heap %d MB", rss, rssPeak, heapUsedKb / 1024);
        BenchDriver.stop(pier);

        double floor = floor(hostApi, memberApi, n);
        BenchDriver.log(
            "floor: %.2f s (%d in flight); cold start / floor = %.2f",
            floor, floorInFlight, coldStart / floor);
        return new Result(
            n,
            run,
            coldStart,
            ready,
            floor,
            pierCpu,
            apiCpu,
            rss,
            rssPeak,
            heapUsedKb / 1024,
            counts[0],
            counts[1],
            mismatched,
            latencies);
      } finally {
        if (pier.isAlive()) {
          BenchDriver.stop(pier);
        }
      }
    }
  }

  private static KubeApiServer apiserver() {
    return KubeApiServer.builder().withFlag("--service-node-port-range=10000-32767").start();
  }

  /** West's benchmark provider continues after 10.128.0.0: its addresses never equal east's. */
  private static void offsetAddresses(ApiLoad west) {
    offsetAddresses(west, "10.128.0.0");
  }

  /**
   * The member's benchmark provider continues after {@code ip}: a LoadBalancer Service with that
   * ingress, made before Pier first starts.
   */
  static void offsetAddresses(ApiLoad member, String ip) {
    ApiLoad west = member;
    String path = "/api/v1/namespaces/default/services";
    west.send(
            new ApiLoad.Call(
                "POST",
                path,
                "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
                    + "\"address-offset\"},\"spec\":{\"type\":\"LoadBalancer\",\"ports\":"
                    + "[{\"port\":80,\"protocol\":\"TCP\"}]}}"))
        .join();
    west.send(
            new ApiLoad.Call(
                "PATCH",
                path + "/address-offset/status",
                "application/merge-patch+json",
                "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"" + ip + "\"}]}}}"))
        .join();
  }

  private String config(KubeApiServer host, KubeApiServer east, KubeApiServer west) {
    // The benchmark provider in each member (its entry, indented) and as the default.
    String benchmark = "provider: benchmark\nbenchmark:\n  delay: " + delayMs + "ms\n";
    return FederationConfig.host(host.kubeconfigPath())
        .loadBalancers(false)
        .member("east", east.kubeconfigPath())
        .loadBalancers(true)
        .clusterYaml(benchmark.indent(4))
        .member("west", west.kubeconfigPath())
        .loadBalancers(true)
        .clusterYaml(benchmark.indent(4))
        .topLevelYaml(benchmark)
        .yaml();
  }

  private Process startPier(Path config, Path log, int adminPort) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmFlags);
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.add("--config");
    cmd.add(config.toString());
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("PIER_ADMIN_HOST", "127.0.0.1");
    pb.environment().put("PIER_ADMIN_PORT", String.valueOf(adminPort));
    pb.redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    BenchDriver.log("starting Pier: %s", String.join(" ", cmd));
    return pb.start();
  }

  /** Waits until every Service converged; returns when /readyz first answered 200 (seconds). */
  private double awaitConverged(
      IngressWatch watch, int n, Process pier, int adminPort, long t0, Path runDir)
      throws Exception {
    HttpClient local = localClient();
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
      if (ready < 0 && status(local, adminPort, "/readyz") == 200) {
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
      } else if (System.nanoTime() - lastProgress > (now == 0 ? 10_000_000_000L : 1_000_000_000L)) {
        // Watch streams of the JDK client sometimes go silent under load: list again. Until the
        // first Service converges (the host's Services hardly change while Pier propagates, for
        // most of the run) only every 10 s: each list of N Services is load on the host's
        // apiserver that the floor does not have.
        watch.restart();
        lastProgress = System.nanoTime();
      }
      if (System.nanoTime() - lastLog > 5_000_000_000L) {
        lastLog = System.nanoTime();
        BenchDriver.log("converged %d of %d", watch.converged(), n);
      }
    }
    return ready;
  }

  /**
   * Pier on the idle federation: one federated Service at a time, from the create on the host until
   * its status holds both members' ingresses; then deleted, and its copies awaited gone.
   */
  private double[] latency(
      KubeApiServer host,
      ApiLoad hostApi,
      Map<String, KubeApiServer> members,
      Path config,
      Path runDir)
      throws Exception {
    double[] result = new double[latencyReps];
    if (latencyReps == 0) {
      return result;
    }
    hostApi
        .send(
            new ApiLoad.Call("POST", "/api/v1/namespaces", "application/json", optedIn(LATENCY_NS)))
        .join();
    int adminPort = BenchDriver.freePort();
    Process pier = startPier(config, runDir.resolve("pier-latency.log"), adminPort);
    try {
      HttpClient local = localClient();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!membersReady(local, adminPort)) {
        if (!pier.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("Pier did not get ready, see pier-latency.log");
        }
        Thread.sleep(100);
      }
      Thread.sleep(2000);
      IngressWatch watch = new IngressWatch(host, LATENCY_NS, latencyReps, MEMBERS.size());
      watch.startClock();
      for (int i = 0; i < latencyReps; i++) {
        String name = String.format("lat-%02d", i);
        double created = watch.now();
        hostApi.send(createFederated(LATENCY_NS, name)).join();
        long until = System.nanoTime() + 60_000_000_000L;
        long lastProgress = System.nanoTime();
        while (watch.time(name) < 0) {
          if (System.nanoTime() > until) {
            throw new IllegalStateException(name + " did not get both ingresses within 60 s");
          }
          watch.awaitChange(50);
          if (System.nanoTime() - lastProgress > 2_000_000_000L) {
            watch.restart();
            lastProgress = System.nanoTime();
          }
        }
        result[i] = watch.time(name) - created;
        BenchDriver.log("create to aggregate, %s: %.3f s", name, result[i]);
        // Delete it and wait until the host Service and both copies are gone: idle again.
        hostApi
            .send(
                new ApiLoad.Call(
                    "DELETE", "/api/v1/namespaces/" + LATENCY_NS + "/services/" + name, null, null))
            .join();
        long gone = System.nanoTime() + 60_000_000_000L;
        while (exists(host, LATENCY_NS, name)
            || exists(members.get("east"), LATENCY_NS, name)
            || exists(members.get("west"), LATENCY_NS, name)) {
          if (System.nanoTime() > gone) {
            throw new IllegalStateException(name + " was not deleted within 60 s");
          }
          Thread.sleep(50);
        }
        Thread.sleep(1000);
      }
      watch.close();
    } finally {
      BenchDriver.stop(pier);
    }
    double[] sorted = result.clone();
    Arrays.sort(sorted);
    BenchDriver.log(
        "create to aggregate over %d repetitions: median %.3f s, max %.3f s",
        latencyReps, median(sorted), sorted[sorted.length - 1]);
    return result;
  }

  private static boolean exists(KubeApiServer kube, String ns, String name) {
    return kube.client().services().inNamespace(ns).withName(name).get() != null;
  }

  /**
   * For Pier's admin endpoints: HTTP/1.1 (the JDK client's default first tries an h2c upgrade, and
   * one such scrape of /metrics once hung past its timeout) and a connect timeout.
   */
  private static HttpClient localClient() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .build();
  }

  private static boolean membersReady(HttpClient local, int port) {
    try {
      String metrics =
          local
              .sendAsync(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .get(3, TimeUnit.SECONDS)
              .body();
      return PromText.sum(metrics, "pier_cluster_ready") == MEMBERS.size();
    } catch (ExecutionException | TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static int status(HttpClient local, int port, String path) {
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

  private static Map<String, String> metrics(ApiLoad hostApi, Map<String, ApiLoad> memberApi) {
    Map<String, String> m = new HashMap<>();
    m.put("host", hostApi.get("/metrics"));
    for (String name : MEMBERS) {
      m.put(name, memberApi.get(name).get("/metrics"));
    }
    return m;
  }

  /**
   * Requests during the cold start per cluster, verb, resource and code, written to {@code file};
   * returns all requests and the writes (POST, PUT, PATCH, DELETE) per Service.
   */
  private static double[] requests(
      Map<String, String> before, Map<String, String> after, int n, Path file) throws IOException {
    Map<String, Double> diff = new TreeMap<>();
    for (String cluster : after.keySet()) {
      Map<String, Double> b = byRequest(before.get(cluster));
      for (Map.Entry<String, Double> e : byRequest(after.get(cluster)).entrySet()) {
        double d = e.getValue() - b.getOrDefault(e.getKey(), 0.0);
        if (d > 0) {
          diff.put(cluster + " " + e.getKey(), d);
        }
      }
    }
    double all = 0;
    double writes = 0;
    StringBuilder text = new StringBuilder("cluster verb resource code: requests (per Service)\n");
    for (Map.Entry<String, Double> e : diff.entrySet()) {
      all += e.getValue();
      String verb = e.getKey().split(" ")[1];
      if (List.of("POST", "PUT", "PATCH", "DELETE").contains(verb)) {
        writes += e.getValue();
      }
      text.append(String.format("%s: %.0f (%.2f)%n", e.getKey(), e.getValue(), e.getValue() / n));
    }
    text.append(
        String.format("all: %.0f (%.2f), writes: %.0f (%.2f)%n", all, all / n, writes, writes / n));
    Files.writeString(file, text);
    System.out.print(text);
    return new double[] {all / n, writes / n};
  }

  private static Map<String, Double> byRequest(String metrics) {
    Map<String, Double> m = new TreeMap<>();
    for (String line : metrics.split("\n")) {
      if (!line.startsWith("apiserver_request_total{")) {
        continue;
      }
      Map<String, String> labels = new HashMap<>();
      Matcher l = LABEL.matcher(line.substring(0, line.lastIndexOf('}')));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      String resource = labels.getOrDefault("resource", "");
      if (resource.isEmpty()) {
        resource = "(non-resource)";
      }
      String sub = labels.getOrDefault("subresource", "");
      String key =
          labels.getOrDefault("verb", "?")
              + " "
              + resource
              + (sub.isEmpty() ? "" : "/" + sub)
              + " "
              + labels.getOrDefault("code", "?");
      m.merge(key, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
    }
    return m;
  }

  /** Host Services whose status is not exactly both copies' ingresses, sorted. */
  private static int verify(KubeApiServer host, Map<String, KubeApiServer> members, int n) {
    Map<String, List<String>> expected = new HashMap<>();
    for (String m : MEMBERS) {
      for (var s : members.get(m).client().services().inNamespace(NS).list().getItems()) {
        expected.computeIfAbsent(s.getMetadata().getName(), k -> new ArrayList<>()).addAll(ips(s));
      }
    }
    int bad = 0;
    List<io.fabric8.kubernetes.api.model.Service> hosted =
        host.client().services().inNamespace(NS).list().getItems();
    for (var s : hosted) {
      List<String> want =
          new ArrayList<>(expected.getOrDefault(s.getMetadata().getName(), List.of()));
      want.sort(null);
      List<String> got = new ArrayList<>(ips(s));
      got.sort(null);
      if (want.size() != MEMBERS.size() || !want.equals(got)) {
        bad++;
      }
    }
    return bad + Math.max(0, n - hosted.size());
  }

  private static List<String> ips(io.fabric8.kubernetes.api.model.Service s) {
    if (s.getStatus() == null
        || s.getStatus().getLoadBalancer() == null
        || s.getStatus().getLoadBalancer().getIngress() == null) {
      return List.of();
    }
    return s.getStatus().getLoadBalancer().getIngress().stream().map(i -> i.getIp()).toList();
  }

  /**
   * The floor: N fresh federated Services on the host get the writes each needs, with Pier stopped,
   * {@code floorInFlight} Services at once over HTTP/2, no client limit. Per Service, in the order
   * the federation needs them (the members' halves at the same time): the host's finalizer patch;
   * in each member the create of the copy, the load-balancer controller's finalizer patch and its
   * status patch; then the host's annotation patch and status patch.
   */
  private double floor(ApiLoad hostApi, Map<String, ApiLoad> memberApi, int n) throws Exception {
    for (ApiLoad api : List.of(hostApi, memberApi.get("east"), memberApi.get("west"))) {
      api.send(
              new ApiLoad.Call(
                  "POST",
                  "/api/v1/namespaces",
                  "application/json",
                  BenchDriver.namespace(FLOOR_NS)))
          .join();
    }
    hostApi.runChains(n, 100, i -> List.of(createFederated(FLOOR_NS, name(i))));
    String annotation =
        new JsonObject()
            .put(
                "metadata",
                new JsonObject()
                    .put(
                        "annotations",
                        new JsonObject()
                            .put(
                                FederationKeys.INGRESSES_ANNOTATION,
                                "{\"items\":[{\"cluster\":\"east\",\"items\":[]},"
                                    + "{\"cluster\":\"west\",\"items\":[]}]}")))
            .encode();
    double[] c0 = new double[3];
    BenchDriver.cpuSnapshot(-1, c0);
    Semaphore slots = new Semaphore(floorInFlight);
    CompletableFuture<?>[] all = new CompletableFuture<?>[n];
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      slots.acquire();
      String name = name(i);
      String hostPath = "/api/v1/namespaces/" + FLOOR_NS + "/services/" + name;
      String eastIp = "10.0." + ((i + 1) >> 8) + "." + ((i + 1) & 0xff);
      String westIp = "10.128." + ((i + 1) >> 8) + "." + ((i + 1) & 0xff);
      CompletableFuture<String> chain =
          hostApi
              .send(
                  new ApiLoad.Call(
                      "PATCH",
                      hostPath,
                      "application/strategic-merge-patch+json",
                      "{\"metadata\":{\"finalizers\":[\"" + FederationKeys.FINALIZER + "\"]}}"))
              .thenCompose(
                  v ->
                      CompletableFuture.allOf(
                          member(memberApi.get("east"), name, eastIp),
                          member(memberApi.get("west"), name, westIp)))
              .thenCompose(
                  v ->
                      hostApi.send(
                          new ApiLoad.Call(
                              "PATCH", hostPath, "application/merge-patch+json", annotation)))
              .thenCompose(
                  v ->
                      hostApi.send(
                          new ApiLoad.Call(
                              "PATCH",
                              hostPath + "/status",
                              "application/merge-patch+json",
                              "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\""
                                  + eastIp
                                  + "\"},{\"ip\":\""
                                  + westIp
                                  + "\"}]}}}")));
      all[i] = chain.whenComplete((r, e) -> slots.release());
    }
    CompletableFuture.allOf(all).join();
    long nanos = System.nanoTime() - start;
    double[] c1 = new double[3];
    BenchDriver.cpuSnapshot(-1, c1);
    BenchDriver.log(
        "floor: %.2f s for %d Services x 9 writes (%d in flight, HTTP/2); CPU: 3 apiservers+etcds"
            + " %.1f s, driver %.1f s",
        nanos / 1e9, n, floorInFlight, c1[2] - c0[2], c1[0] - c0[0]);
    return nanos / 1e9;
  }

  /** A member's half of the floor: the copy created, then its load balancer's two writes. */
  private static CompletableFuture<String> member(ApiLoad api, String name, String ip) {
    String path = "/api/v1/namespaces/" + FLOOR_NS + "/services";
    JsonObject copy =
        new JsonObject()
            .put("apiVersion", "v1")
            .put("kind", "Service")
            .put(
                "metadata",
                new JsonObject()
                    .put("name", name)
                    .put("namespace", FLOOR_NS)
                    .put(
                        "labels",
                        new JsonObject()
                            .put("app", "bench")
                            .put(FederationKeys.FEDERATION_LABEL, "pier"))
                    .put(
                        "annotations",
                        new JsonObject()
                            .put(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, "host-uid")
                            .put(FederationKeys.HOST_SERVICE_UID_ANNOTATION, "service-uid")))
            .put("spec", spec(name));
    return api.send(new ApiLoad.Call("POST", path, "application/json", copy.encode()))
        .thenCompose(
            v ->
                api.send(
                    new ApiLoad.Call(
                        "PATCH",
                        path + "/" + name,
                        "application/strategic-merge-patch+json",
                        "{\"metadata\":{\"finalizers\":[\"" + LB_FINALIZER + "\"]}}")))
        .thenCompose(
            v ->
                api.send(
                    new ApiLoad.Call(
                        "PATCH",
                        path + "/" + name + "/status",
                        "application/merge-patch+json",
                        "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\""
                            + ip
                            + "\"}]}}}")));
  }

  private static JsonObject spec(String name) {
    return new JsonObject()
        .put("type", "LoadBalancer")
        .put("selector", new JsonObject().put("app", name))
        .put(
            "ports",
            new JsonArray()
                .add(
                    new JsonObject()
                        .put("name", "http")
                        .put("protocol", "TCP")
                        .put("port", 80)
                        .put("targetPort", 8080)));
  }

  static ApiLoad.Call createFederated(String ns, String name) {
    JsonObject body =
        new JsonObject()
            .put("apiVersion", "v1")
            .put("kind", "Service")
            .put(
                "metadata",
                new JsonObject()
                    .put("name", name)
                    .put("labels", new JsonObject().put("app", "bench"))
                    .put(
                        "annotations",
                        new JsonObject().put(FederationKeys.FEDERATED_ANNOTATION, "true")))
            .put("spec", spec(name));
    return new ApiLoad.Call(
        "POST", "/api/v1/namespaces/" + ns + "/services", "application/json", body.encode());
  }

  static String name(int i) {
    return String.format("svc-%05d", i);
  }

  private static double median(double[] sorted) {
    int k = sorted.length;
    return k % 2 == 1 ? sorted[k / 2] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2;
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
          "n,run,delay_ms,nodes,cold_start_s,ready_s,floor_s,ratio,pier_cpu_s,apiservers_cpu_s,"
              + "rss_mb,rss_peak_mb,heap_mb,requests_per_service,writes_per_service,mismatched,"
              + "latency_median_s,latency_max_s,latencies_s\n");
    }
    double[] sorted = r.latencies().clone();
    Arrays.sort(sorted);
    StringBuilder lat = new StringBuilder();
    for (double l : r.latencies()) {
      lat.append(lat.length() == 0 ? "" : " ").append(String.format("%.3f", l));
    }
    Files.writeString(
        csv,
        String.format(
            "%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.1f,%.1f,%d,%d,%d,%.2f,%.2f,%d,%.3f,%.3f,%s%n",
            r.n(),
            r.run(),
            delayMs,
            nodes,
            r.coldStart(),
            r.ready(),
            r.floor(),
            r.coldStart() / r.floor(),
            r.pierCpu(),
            r.apiCpu(),
            r.rssMb(),
            r.rssPeakMb(),
            r.heapMb(),
            r.requestsPerService(),
            r.writesPerService(),
            r.mismatched(),
            sorted.length == 0 ? 0 : median(sorted),
            sorted.length == 0 ? 0 : sorted[sorted.length - 1],
            lat),
        StandardOpenOption.APPEND);
  }

  private static String table(List<Result> results) {
    StringBuilder b =
        new StringBuilder(
            "| N | run | cold start s | ready s | floor s | ratio | Pier CPU s | RSS MB (peak) |"
                + " heap MB | requests/Service (writes) | create-to-aggregate median / max s |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Result r : results) {
      double[] sorted = r.latencies().clone();
      Arrays.sort(sorted);
      b.append(
          String.format(
              "| %,d | %d | %.2f | %.2f | %.2f | %.2f | %.1f | %d (%d) | %d | %.2f (%.2f) |"
                  + " %.3f / %.3f |%n",
              r.n(),
              r.run(),
              r.coldStart(),
              r.ready(),
              r.floor(),
              r.coldStart() / r.floor(),
              r.pierCpu(),
              r.rssMb(),
              r.rssPeakMb(),
              r.heapMb(),
              r.requestsPerService(),
              r.writesPerService(),
              sorted.length == 0 ? 0 : median(sorted),
              sorted.length == 0 ? 0 : sorted[sorted.length - 1]));
    }
    return b.toString();
  }

  /** A host namespace opted in to the federation (federation.namespaceOptIn). */
  static String optedIn(String name) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
        + name
        + "\",\"labels\":{\"pier.dev/federation\":\"pier\"}}}";
  }
}
