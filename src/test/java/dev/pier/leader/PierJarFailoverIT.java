package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fat jar as users run it, {@code java -jar pier.jar --config pier.yaml} with the shipped
 * in-cluster configuration (leader election on, JSON logs): two processes fail over. Runs in the
 * integration-test phase (maven-failsafe), after the jar is built; failsafe passes its path.
 */
@RealKubeApiServer
class PierJarFailoverIT {
  @Test
  void theShippedJarAndConfigFailOverAndLogJson(KubeApiServer kube, @TempDir Path dir)
      throws IOException {
    String jarPath = System.getProperty("pier.jar");
    assertThat(jarPath)
        .as("system property pier.jar (set by maven-failsafe after package)")
        .isNotBlank();
    Path jar = Path.of(jarPath);
    assertThat(jar).as("the fat jar; run mvn verify so that package builds it").isRegularFile();
    Path config = dir.resolve("pier.yaml");
    ConfigMap shipped =
        new KubernetesSerialization()
            .unmarshal(Files.readString(Path.of("k8s", "configmap.yaml")), ConfigMap.class);
    Files.writeString(config, shipped.getData().get("pier.yaml"));
    kube.createReadyNode(Failover.NODE, "127.0.0.1", Map.of());

    List<PierProcess> started = new ArrayList<>();
    new Failover(kube)
        .run(
            (name, env) -> {
              PierProcess p = PierProcess.startJar(kube, name, jar, config, env);
              started.add(p);
              return p;
            },
            "jar");

    for (PierProcess p : started) {
      List<String> lines = p.log().lines().filter(l -> !l.isBlank()).toList();
      assertThat(lines).isNotEmpty();
      // log.format json in the shipped config: one JSON object per line, for log pipelines, with
      // the message as it reads (its arguments filled in).
      assertThat(lines)
          .allSatisfy(
              l -> assertThat(new JsonObject(l).getString("formattedMessage")).as(l).isNotBlank());
      assertThat(lines)
          .noneMatch(l -> new JsonObject(l).getString("formattedMessage").contains("{}"));
    }
  }
}
