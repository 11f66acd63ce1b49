package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/run-local.sh} as a user runs it (with the fat jar failsafe built, instead of
 * building it again), stopped by a service manager's SIGTERM or failing because Pier cannot start:
 * either way it exits within seconds and no process it started (etcd, kube-apiserver, Pier, the
 * demo backend) is left running. Every process below the script is recorded while it runs.
 */
@Tag("kube")
class RunLocalScriptIT {
  /** Up: the API server, Pier, the demo Service with its load balancer. A cold JVM is slow. */
  private static final Duration UP = Duration.ofSeconds(90);

  /** From the signal (or Pier's failure) to the script's exit, everything stopped. */
  private static final Duration STOPPED = Duration.ofSeconds(20);

  /** How soon the script ends after Pier failed: under the minute it waits for an address. */
  private static final Duration NOTICED = Duration.ofSeconds(45);

  private static final Pattern ADMIN = Pattern.compile("admin endpoints: http://([0-9.]+):(\\d+)/");

  @Test
  void sigtermStopsEverythingTheScriptStartedAndTheScriptExits(@TempDir Path tmp) throws Exception {
    // The shipped config's admin port is taken (or was already): the script picks a free one.
    Run run = Run.start(tmp, Map.of());
    try (ServerSocket taken = bindIfFree(9080)) {
      run.awaitOutput("[pier] try it:", UP);
      Map<Long, Child> started = run.children();
      run.seen.putAll(started);
      assertThat(commands(started))
          .as("the script's processes while up")
          .anyMatch(c -> c.endsWith("/etcd"))
          .anyMatch(c -> c.endsWith("/kube-apiserver"))
          .anyMatch(c -> c.endsWith("/java"));
      Matcher admin = ADMIN.matcher(run.output());
      assertThat(admin.find()).as(run.output()).isTrue();
      assertThat(Integer.parseInt(admin.group(2))).isNotEqualTo(9080);
      assertThat(get("http://127.0.0.1:" + admin.group(2) + "/readyz")).isEqualTo(200);

      long t0 = System.nanoTime();
      run.process.destroy(); // SIGTERM, to the script alone
      assertThat(run.process.waitFor(STOPPED.toSeconds(), TimeUnit.SECONDS))
          .as("the script exited within %s after SIGTERM\n%s", STOPPED, run.output())
          .isTrue();
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      assertThat(run.process.exitValue()).as(run.output()).isEqualTo(128 + 15);
      assertThat(Run.stillAlive(started)).as("left running after SIGTERM").isEmpty();
      assertThat(run.stateDirs()).as("state directories left behind").isEmpty();
      System.out.println("run-local.sh stopped on SIGTERM in " + took.toMillis() + " ms");
    } finally {
      run.kill();
    }
  }

  /**
   * SIGTERM while the script waits for Pier to give the Service an address: before, the cleanup ran
   * and the script then went on waiting for a minute.
   */
  @Test
  void sigtermWhilePierStartsStopsEverythingAndTheScriptExits(@TempDir Path tmp) throws Exception {
    Run run = Run.start(tmp, Map.of());
    try {
      run.awaitOutput("[pier] applying k8s/examples/hello-lb.yaml", UP);
      Map<Long, Child> started = run.children();
      run.seen.putAll(started);
      assertThat(commands(started)).anyMatch(c -> c.endsWith("/kube-apiserver"));
      long t0 = System.nanoTime();
      run.process.destroy();
      assertThat(run.process.waitFor(STOPPED.toSeconds(), TimeUnit.SECONDS))
          .as("the script exited within %s after SIGTERM\n%s", STOPPED, run.output())
          .isTrue();
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      assertThat(run.process.exitValue()).as(run.output()).isEqualTo(128 + 15);
      assertThat(Run.stillAlive(started)).as("left running after SIGTERM").isEmpty();
      assertThat(run.stateDirs()).as("state directories left behind").isEmpty();
      System.out.println(
          "run-local.sh stopped on SIGTERM during startup in " + took.toMillis() + " ms");
    } finally {
      run.kill();
    }
  }

  @Test
  void aPierThatCannotStartMakesTheScriptExitNonZeroWithNothingLeftRunning(@TempDir Path tmp)
      throws Exception {
    Run run = Run.start(tmp, Map.of("PIER_LOCAL_POOLS", "not-a-pool"));
    try {
      aPierThatCannotStart(run);
    } finally {
      run.kill();
    }
  }

  private static void aPierThatCannotStart(Run run) throws Exception {
    Map<Long, Child> seen = run.seen;
    long deadline = System.nanoTime() + UP.toNanos();
    long pierStarted = 0;
    while (run.process.isAlive() && System.nanoTime() < deadline) {
      run.children().forEach(seen::putIfAbsent);
      if (pierStarted == 0 && run.output().contains("[pier] starting Pier")) {
        pierStarted = System.nanoTime();
      }
      Thread.sleep(100);
    }
    long exited = System.nanoTime();
    assertThat(run.process.waitFor(1, TimeUnit.SECONDS))
        .as("the script exited after Pier failed\n%s", run.output())
        .isTrue();
    assertThat(run.process.exitValue()).as(run.output()).isNotZero();
    assertThat(run.output())
        .contains("not-a-pool")
        .containsPattern("Pier exited with status [1-9]");
    assertThat(commands(seen)).anyMatch(c -> c.endsWith("/kube-apiserver"));
    assertThat(Run.stillAlive(seen)).as("left running after Pier failed").isEmpty();
    assertThat(run.stateDirs()).as("state directories left behind").isEmpty();
    // Noticed Pier's exit, not the minute the script waits for a load balancer address: that
    // wait ends in its own message, and the bound sits well under it (Pier's JVM start and the
    // script's clean-up take up to half of it on a loaded machine).
    assertThat(run.output()).doesNotContain("got no load balancer address");
    assertThat(pierStarted).as("Pier was started\n%s", run.output()).isPositive();
    Duration afterPier = Duration.ofNanos(exited - pierStarted);
    assertThat(afterPier).as(run.output()).isLessThan(NOTICED);
    System.out.println("run-local.sh exited " + afterPier.toMillis() + " ms after starting Pier");
  }

  private static List<String> commands(Map<Long, Child> processes) {
    return processes.values().stream().map(Child::command).toList();
  }

  private static ServerSocket bindIfFree(int port) {
    try {
      ServerSocket s = new ServerSocket();
      s.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port));
      return s;
    } catch (IOException inUse) {
      return null; // someone else holds it: taken all the same
    }
  }

  private static int get(String url) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  /** A process below the script, with its executable as seen while it ran. */
  private record Child(ProcessHandle handle, String command) {}

  /** One run of the script, its output in a file, its state under its own TMPDIR. */
  private record Run(Process process, Path log, Path tmp, Map<Long, Child> seen) {
    static Run start(Path tmp, Map<String, String> env) throws IOException {
      String jar = System.getProperty("pier.jar");
      assertThat(jar).as("system property pier.jar (set by maven-failsafe)").isNotBlank();
      assertThat(Path.of(jar)).as("the fat jar").isRegularFile();
      Path log = tmp.resolve("run-local.log");
      Path state = Files.createDirectories(tmp.resolve("state"));
      ProcessBuilder pb =
          new ProcessBuilder("bash", "scripts/run-local.sh", "--jar", jar)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment()
          .keySet()
          .removeIf(k -> k.startsWith("PIER_") && !k.equals("PIER_KUBE_BIN_DIR"));
      pb.environment().put("TMPDIR", state.toString());
      pb.environment().putAll(env);
      return new Run(pb.start(), log, state, new LinkedHashMap<>());
    }

    /** After a failed test: nothing of this run is left for the next one. */
    void kill() throws InterruptedException {
      if (process.isAlive()) {
        seen.putAll(children());
        process.destroy();
        if (!process.waitFor(STOPPED.toSeconds(), TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
      seen.values().stream()
          .map(Child::handle)
          .filter(ProcessHandle::isAlive)
          .forEach(ProcessHandle::destroyForcibly);
    }

    String output() {
      try {
        return Files.readString(log);
      } catch (IOException e) {
        return "(no output: " + e + ")";
      }
    }

    void awaitOutput(String text, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!output().contains(text)) {
        assertThat(process.isAlive()).as("the script exited early\n%s", output()).isTrue();
        assertThat(System.nanoTime())
            .as("'%s' within %s\n%s", text, timeout, output())
            .isLessThan(deadline);
        Thread.sleep(200);
      }
    }

    /** Every process below the script now, by pid, with its executable. */
    Map<Long, Child> children() {
      Map<Long, Child> out = new LinkedHashMap<>();
      process
          .descendants()
          .forEach(p -> out.put(p.pid(), new Child(p, p.info().command().orElse("?"))));
      return out;
    }

    /**
     * Those of {@code processes} still running, as "pid command". A handle knows its process's
     * start time, so a pid used again by another process does not count; an exited process not
     * reaped yet (a zombie) does not either.
     */
    static List<String> stillAlive(Map<Long, Child> processes) {
      return processes.values().stream()
          .filter(c -> c.handle().isAlive())
          .filter(c -> !zombie(c.handle().pid()))
          .map(c -> c.handle().pid() + " " + c.command())
          .toList();
    }

    private static boolean zombie(long pid) {
      try {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
      } catch (IOException | RuntimeException gone) {
        return true;
      }
    }

    List<Path> stateDirs() throws IOException {
      try (var files = Files.list(tmp)) {
        return files.filter(p -> p.getFileName().toString().startsWith("pier-local.")).toList();
      }
    }
  }
}
