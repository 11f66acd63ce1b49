package dev.pier.image;

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
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The image's command run as a container runtime would run it, without one ({@code podman run}
 * fails here on setrlimit): in a mount namespace of its own, the image's root filesystem under a
 * read-only overlay whose top layer is the pod's files (its service account), a fresh {@code /tmp}
 * (the manifests' emptyDir), {@code /dev} with the usual devices, its own PID namespace and {@code
 * /proc}, chrooted, as the image's user. The network stays the test's: the admin port and the load
 * balancers' addresses are on its loopback, as with {@code hostNetwork: true}.
 */
final class ImageProcess implements AutoCloseable {
  private static final String LAUNCH =
      """
      set -e
      r=$1 lower=$2 user=$3
      shift 3
      mount -t overlay overlay -o "ro,lowerdir=$lower" "$r"
      mount -t tmpfs -o mode=1777,size=64m tmp "$r/tmp"
      mount -t tmpfs -o mode=0755,size=1m dev "$r/dev"
      for d in null zero full random urandom; do
        touch "$r/dev/$d"
        mount --bind "/dev/$d" "$r/dev/$d"
      done
      exec unshare --pid --fork --kill-child --mount-proc="$r/proc" \\
        chroot --userspec="$user" "$r" "$@"
      """;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private final Process process;
  private final int adminPort;
  private final Path log;

  private ImageProcess(Process process, int adminPort, Path log) {
    this.process = process;
    this.adminPort = adminPort;
    this.log = log;
  }

  /**
   * Starts the image's command over {@code image}, with {@code pod} (a directory of the pod's own
   * files, laid out from the root) on top, in a pod's environment: {@code env} and nothing else.
   */
  static ImageProcess start(
      Path image,
      Path pod,
      ImageConfig config,
      Map<String, String> env,
      int adminPort,
      Path work,
      Path log) {
    try {
      Path merged = Files.createDirectories(work.resolve("root"));
      List<String> command =
          new ArrayList<>(
              List.of(
                  "unshare",
                  "--mount",
                  "--propagation",
                  "private",
                  "sh",
                  "-c",
                  LAUNCH,
                  "sh",
                  merged.toString(),
                  pod + ":" + image,
                  config.user()));
      command.addAll(config.command());
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      pb.redirectOutput(log.toFile());
      pb.environment().clear();
      pb.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
      pb.environment().putAll(env);
      return new ImageProcess(pb.start(), adminPort, log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The JVM: the one process in the PID namespace, chrooted into the image. */
  Optional<ProcessHandle> jvm() {
    return process.descendants().filter(p -> comm(p).equals("java")).findFirst();
  }

  private static String comm(ProcessHandle p) {
    try {
      return Files.readString(Path.of("/proc", Long.toString(p.pid()), "comm")).strip();
    } catch (IOException e) {
      return "";
    }
  }

  /** A line of {@code /proc/<pid>/status} of the JVM, e.g. {@code Uid}, without its name. */
  String jvmStatus(String field) {
    ProcessHandle jvm = jvm().orElseThrow(() -> new AssertionError("no JVM running:\n" + log()));
    try {
      return Files.readAllLines(Path.of("/proc", Long.toString(jvm.pid()), "status")).stream()
          .filter(l -> l.startsWith(field + ":"))
          .map(l -> l.substring(field.length() + 1).strip())
          .findFirst()
          .orElseThrow();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** HTTP status of an admin endpoint, or -1 when nothing answers. */
  int status(String path) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
              .timeout(Duration.ofSeconds(5))
              .build();
      return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  /** SIGTERM to the JVM, as the kubelet stops a container; then whatever is left is killed. */
  @Override
  public void close() {
    jvm().ifPresent(ProcessHandle::destroy);
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
