package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.Secret;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubectl pier ...} as a user runs it: the plugin script from a shell, finding the fat jar
 * through {@code PIER_JAR} or next to itself, against a real API server (here host and member at
 * once, with no Pier running).
 */
@RealKubeApiServer
class KubectlPluginIT {
  @TempDir Path tmp;

  record Run(int status, String out, String err) {}

  private static Run plugin(Path script, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of("bash", script.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().remove("PIER_JAR");
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    byte[] err = p.getErrorStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Run(
        p.exitValue(),
        new String(out, StandardCharsets.UTF_8),
        new String(err, StandardCharsets.UTF_8));
  }

  @Test
  void thePluginRunsTheJarsCommands(KubeApiServer kube) throws Exception {
    String jar = System.getProperty("pier.jar");
    assertThat(jar).as("system property pier.jar (set by maven-failsafe)").isNotBlank();
    Path script = Path.of("scripts", "kubectl-pier");
    Map<String, String> env = Map.of("PIER_JAR", jar);
    String kubeconfig = kube.kubeconfigPath().toString();

    Run join =
        plugin(
            script,
            env,
            "join",
            "solo",
            "--host-kubeconfig",
            kubeconfig,
            "--member-kubeconfig",
            kubeconfig,
            "--region",
            "eu",
            "--wait",
            "0");
    assertThat(join.status()).as(join.out() + join.err()).isZero();
    assertThat(join.out())
        .contains("member solo: namespace/pier created")
        .contains("host: secret/member-solo (namespace pier) created");
    Secret secret = kube.client().secrets().inNamespace("pier").withName("member-solo").get();
    assertThat(secret.getMetadata().getAnnotations()).containsEntry("pier.dev/region", "eu");

    // No Pier runs: status says it has not reported, in the table and in JSON.
    Run table = plugin(script, env, "status", "--host-kubeconfig", kubeconfig);
    assertThat(table.status()).as(table.err()).isZero();
    assertThat(table.out()).contains("solo: Pier has not reported on it yet");
    Run json = plugin(script, env, "status", "--host-kubeconfig", kubeconfig, "-o", "json");
    JsonObject solo = new JsonObject(json.out()).getJsonArray("members").getJsonObject(0);
    assertThat(solo.getString("name")).isEqualTo("solo");
    assertThat(solo.getValue("ready")).isNull();

    // A bad flag: exit 2, naming the flag and value.
    Run bad = plugin(script, env, "join", "solo", "--token-duration", "forever");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("flag --token-duration: invalid value 'forever'");

    // Without PIER_JAR, a pier.jar next to the script is found.
    Path dir = Files.createDirectories(tmp.resolve("bin"));
    Path copy = dir.resolve("kubectl-pier");
    Files.copy(script, copy);
    Files.createSymbolicLink(dir.resolve("pier.jar"), Path.of(jar).toAbsolutePath());
    Run help = plugin(copy, Map.of(), "status", "--help");
    assertThat(help.status()).isZero();
    assertThat(help.out()).contains("pier status [NAMESPACE/NAME] [flags]");
    Run missing = plugin(script, Map.of("PIER_JAR", tmp.resolve("none.jar").toString()), "status");
    assertThat(missing.status()).isEqualTo(1);
    assertThat(missing.err()).contains("kubectl-pier: cannot find pier.jar");
  }
}
