package dev.pier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pier as a separate process ({@code dev.pier.Main} on the test class path, configured through
 * {@code PIER_*} environment variables like a pod), so that tests can kill it like a crashed pod.
 * Its output goes to a log file in the API server's directory.
 */
public final class PierProcess implements AutoCloseable {
  // Plain HTTP/1.1: no h2c upgrade dance with a server that may be killed mid-test.
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  /**
   * How long tests wait for a process to be ready: a JVM start on a loaded machine is slow. With
   * seven forks on two cores, API servers took up to 52 s to start and a scale-out replica 60 s to
   * open its admin port, and 90 s was once not enough for three replicas over four members.
   */
  public static final Duration STARTUP = Duration.ofMinutes(3);

  private final Process process;
  private final int adminPort;

  /** Pier's one set of JVM flags (a Java argument file). */
  public static final Path JVM_OPTIONS = Path.of("conf", "jvm.options");

  private final Path log;
  private static final int LOG_TAIL_LINES = 60;
  private volatile boolean frozen;

  private PierProcess(Process process, int adminPort, Path log) {
    this.process = process;
    this.adminPort = adminPort;
    this.log = log;
  }

  /** Starts {@code dev.pier.Main} from the test class path, configured by the environment. */
  public static PierProcess start(KubeApiServer kube, String name, Map<String, String> overrides) {
    return launch(
        kube,
        name,
        List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"), "dev.pier.Main"),
        overrides);
  }

  /**
   * Starts {@code dev.pier.Main} from the test class path with the shipped JVM flags ({@link
   * #JVM_OPTIONS}) in 512 MiB of memory, the shipped Deployment's limit: the heap ceiling users
   * get.
   */
  public static PierProcess startShipped(
      KubeApiServer kube, String name, Map<String, String> overrides) {
    return launch(
        kube,
        name,
        List.of(
            "@" + JVM_OPTIONS,
            "-XX:MaxRAM=512m",
            "-cp",
            System.getProperty("java.class.path"),
            "dev.pier.Main"),
        overrides);
  }

  /**
   * The heap in use after a full collection, in bytes, read with {@code jcmd} (the serial
   * collector's generations, as {@link #JVM_OPTIONS} sets).
   */
  public long liveHeapBytes() {
    jcmd("GC.run");
    Matcher m =
        Pattern.compile("(?m)^\\s*\\S+ generation\\s+total \\d+K, used (\\d+)K")
            .matcher(jcmd("GC.heap_info"));
    long used = 0;
    boolean found = false;
    while (m.find()) {
      used += Long.parseLong(m.group(1)) * 1024;
      found = true;
    }
    if (!found) {
      throw new IllegalStateException("no heap figures from jcmd " + pid());
    }
    return used;
  }

  private String jcmd(String command) {
    try {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(pid()),
                  command)
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("jcmd " + pid() + " " + command + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts the fat jar as users run it: {@code java @conf/jvm.options -jar pier.jar --config FILE}
   * with the class-data sharing archive built next to the jar, in 512 MiB of memory (the shipped
   * Deployment's limit).
   */
  public static PierProcess startJar(
      KubeApiServer kube, String name, Path jar, Path config, Map<String, String> overrides) {
    List<String> args = new ArrayList<>(List.of("@" + JVM_OPTIONS, "-XX:MaxRAM=512m"));
    Path archive = jar.resolveSibling(jar.getFileName().toString().replaceAll("\\.jar$", ".jsa"));
    if (Files.isRegularFile(archive)) {
      args.add("-XX:SharedArchiveFile=" + archive);
    }
    args.addAll(List.of("-jar", jar.toString(), "--config", config.toString()));
    return launch(kube, name, args, overrides);
  }

  /**
   * Short retry delays, the admin endpoints on a free loopback port, then the overrides (a null
   * value removes a variable).
   */
  private static PierProcess launch(
      KubeApiServer kube, String name, List<String> args, Map<String, String> overrides) {
    int port = FreePorts.take();
    Path log = kube.directory().resolve("pier-" + name + ".log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("PIER_"));
    env.put("PIER_CLUSTER_KUBECONFIG", kube.kubeconfigPath().toString());
    env.put("PIER_RECONCILE_MIN_RETRY_DELAY", "200ms");
    env.put("PIER_RECONCILE_MAX_RETRY_DELAY", "2s");
    env.put("PIER_LOCAL_HEALTH_CHECK_INTERVAL", "300ms");
    env.put("PIER_LOCAL_HEALTH_CHECK_TIMEOUT", "300ms");
    env.put("PIER_ADMIN_HOST", "127.0.0.1");
    env.put("PIER_ADMIN_PORT", Integer.toString(port));
    env.put("POD_NAME", "pier-" + name);
    // A null override removes the variable (a config file with clusters: takes no kubeconfig).
    overrides.forEach(
        (k, v) -> {
          if (v == null) {
            env.remove(k);
          } else {
            env.put(k, v);
          }
        });
    try {
      return new PierProcess(pb.start(), port, log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** The Lease holder identity this process campaigns with. */
  public String identity(String name) {
    return "pier-" + name + "_" + process.pid();
  }

  /** Kills the process at once (SIGKILL), as a node failure would: nothing is released. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops the process (SIGSTOP), as a long GC pause or a starved node would: it holds on to all.
   */
  public void freeze() {
    signal("STOP");
    frozen = true;
  }

  /**
   * Whether the process is stopped now (state {@code T} in {@code /proc/<pid>/stat}): a test that
   * froze it checks, before it thaws it, that nothing else let it go on meanwhile.
   */
  public boolean stopped() {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 1).trim().startsWith("T");
    } catch (IOException e) {
      return false;
    }
  }

  /** Lets a frozen process go on (SIGCONT) where it stopped. */
  public void thaw() {
    signal("CONT");
    frozen = false;
  }

  private void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits for the process to exit and returns its exit code, or -1 if it did not. */
  public int waitForExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Waits until every process answers {@code /readyz} with 200; fails at once, with the end of its
   * log, when one of them exited (Pier that cannot start says why and exits, and would otherwise be
   * waited for until {@code atMost}).
   */
  public static void awaitReady(Map<String, PierProcess> processes, Duration atMost) {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (true) {
      List<String> waiting = new ArrayList<>();
      for (Map.Entry<String, PierProcess> e : processes.entrySet()) {
        PierProcess p = e.getValue();
        if (!p.alive()) {
          throw new AssertionError(
              "Pier "
                  + e.getKey()
                  + " exited with status "
                  + p.process.exitValue()
                  + " before it was ready; the end of its log ("
                  + p.log
                  + "):\n"
                  + p.logTail(LOG_TAIL_LINES));
        }
        if (p.status("/readyz") != 200) {
          waiting.add(e.getKey());
        }
      }
      if (waiting.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Pier not ready within " + atMost + ": " + waiting);
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for Pier to be ready", e);
      }
    }
  }

  /** The last {@code lines} lines of the log. */
  String logTail(int lines) {
    List<String> all = log().lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  /** HTTP status of an admin endpoint, or -1 when nothing answers. */
  public int status(String path) {
    try {
      return http.send(request(path), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The /metrics text, or empty when nothing answers. */
  public String metrics() {
    try {
      return http.send(request("/metrics"), HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** The sum of a metric's samples whose line starts with {@code prefix}, if any. */
  public OptionalDouble metric(String prefix) {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(prefix) + "[^ ]* ([-+0-9.eE]+|NaN)$")
            .matcher(metrics());
    double sum = 0;
    boolean found = false;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
      found = true;
    }
    return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
        .timeout(Duration.ofSeconds(5))
        .build();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      if (frozen) {
        thaw();
      }
      process.destroy();
      if (waitForExit(Duration.ofSeconds(15)) == -1) {
        kill();
      }
    }
  }
}
