package dev.pier.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A command on this machine whose output, stdout and stderr together, a test reads. */
record Command(List<String> args, Map<String, String> env, Duration timeout) {

  static Command of(Duration timeout, String... args) {
    return new Command(List.of(args), Map.of(), timeout);
  }

  Command withEnv(Map<String, String> more) {
    return new Command(args, more, timeout);
  }

  /** Runs it; the output and exit code, or -1 when it did not end within the timeout. */
  Result run() {
    try {
      Path out = Files.createTempFile("pier-command-", ".log");
      try {
        ProcessBuilder pb = new ProcessBuilder(args).redirectErrorStream(true);
        pb.redirectOutput(out.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        int code = -1;
        if (p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          code = p.exitValue();
        } else {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
        }
        return new Result(code, Files.readString(out, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Runs it and returns its output, failing with the output when it did not exit with 0. */
  String check() {
    Result r = run();
    if (r.exitCode() != 0) {
      throw new AssertionError(
          String.join(" ", args) + " exited with " + r.exitCode() + ":\n" + r.output());
    }
    return r.output();
  }

  record Result(int exitCode, String output) {}
}
