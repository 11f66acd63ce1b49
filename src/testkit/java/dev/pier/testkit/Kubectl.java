package dev.pier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the provisioned {@code kubectl} (in {@link KubeApiServer#binDir()}) as the admin. */
public final class Kubectl {
  private final KubeApiServer kube;

  public Kubectl(KubeApiServer kube) {
    this.kube = kube;
  }

  /** The exit code and the combined output of one run. */
  public record Result(int exitCode, String output) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  public Result run(String... args) {
    Path kubectl = kube.binDir().resolve("kubectl");
    if (!Files.isExecutable(kubectl)) {
      throw new IllegalStateException(
          "no kubectl at " + kubectl + ": run scripts/provision.sh (it links kubectl there)");
    }
    List<String> command = new ArrayList<>();
    command.add(kubectl.toString());
    command.add("--kubeconfig=" + kube.kubeconfigPath());
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("kubectl did not finish: " + command);
      }
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Runs and fails with kubectl's output unless it exits 0. */
  public String check(String... args) {
    Result r = run(args);
    if (!r.ok()) {
      throw new IllegalStateException(
          "kubectl " + String.join(" ", args) + " exited " + r.exitCode() + ":\n" + r.output());
    }
    return r.output();
  }
}
