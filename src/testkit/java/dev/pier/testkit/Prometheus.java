package dev.pier.testkit;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Prometheus (Debian's {@code prometheus} package, installed by {@code
 * scripts/provision.sh}) on a free loopback port, scraping the given targets every second and
 * evaluating the given rule files every second. Data and log live in the given directory.
 */
public final class Prometheus implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  // Plain HTTP/1.1: no h2c upgrade dance with a server that may be killed mid-test.
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private final Process process;
  private final int port;
  private final Path log;

  private Prometheus(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  public static Prometheus start(Path dir, List<String> targets, List<Path> ruleFiles) {
    Path binary = Path.of("/usr/bin/prometheus");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          "no Prometheus at "
              + binary
              + ": run scripts/provision.sh (installs Debian's prometheus)");
    }
    try {
      int port = FreePorts.take();
      String config =
          "global:\n"
              + "  scrape_interval: 1s\n"
              + "  evaluation_interval: 1s\n"
              + "rule_files:\n"
              + ruleFiles.stream()
                  .map(p -> "  - " + p.toAbsolutePath() + "\n")
                  .collect(Collectors.joining())
              + "scrape_configs:\n"
              + "  - job_name: pier\n"
              + "    static_configs:\n"
              + "      - targets: ["
              + targets.stream().map(t -> "'" + t + "'").collect(Collectors.joining(", "))
              + "]\n";
      Path configFile = dir.resolve("prometheus.yml");
      Files.writeString(configFile, config);
      Path log = dir.resolve("prometheus.log");
      Process p =
          new ProcessBuilder(
                  binary.toString(),
                  "--config.file=" + configFile,
                  "--storage.tsdb.path=" + dir.resolve("data"),
                  "--web.listen-address=127.0.0.1:" + port)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      Prometheus prometheus = new Prometheus(p, port, log);
      prometheus.awaitReady();
      return prometheus;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Prometheus exited:\n" + log());
      }
      try {
        if (get("/-/ready").statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // starting
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("Prometheus not ready in " + READY_TIMEOUT + ":\n" + log());
  }

  /** The answer of an instant query: {@code status} is success or error, {@code data.result}. */
  public JsonObject query(String expr) {
    return json("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
  }

  /** The series an instant query returns; fails when the expression is invalid. */
  public JsonArray result(String expr) {
    JsonObject answer = query(expr);
    if (!"success".equals(answer.getString("status"))) {
      throw new IllegalArgumentException(expr + ": " + answer.encode());
    }
    return answer.getJsonObject("data").getJsonArray("result");
  }

  /** {@code /api/v1/rules}: the loaded rule groups with each rule's health and state. */
  public JsonObject rules() {
    return json("/api/v1/rules");
  }

  /** {@code /api/v1/targets}. */
  public JsonObject targets() {
    return json("/api/v1/targets");
  }

  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  private JsonObject json(String path) {
    try {
      return new JsonObject(get(path).body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private HttpResponse<String> get(String path) throws IOException {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .timeout(Duration.ofSeconds(10))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
