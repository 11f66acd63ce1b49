package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rendering of the chart (each preset under ci/) is accepted by a real kube-apiserver, as
 * {@code helm install} would send it: server-side dry-run with strict validation.
 */
@RealKubeApiServer
class ChartDryRunTest {
  private static Kubectl kubectl;

  @BeforeAll
  static void setUp(KubeApiServer kube) {
    kubectl = new Kubectl(kube);
    // helm install -n pier --create-namespace: the namespace exists before the objects.
    kubectl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
  }

  private static Kubectl.Result dryRun(Path dir, String name, String yaml) throws IOException {
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(file, yaml);
    return kubectl.run("apply", "--dry-run=server", "--validate=strict", "-f", file.toString());
  }

  @Test
  void everyPresetRenderedForTheCurrentReleaseIsAcceptedByItsApiServer(@TempDir Path dir)
      throws IOException {
    assertThat(Chart.presets()).hasSizeGreaterThanOrEqualTo(8);
    for (String preset : Chart.presets().keySet()) {
      String rendering = Chart.render(preset, Chart.KUBE_CURRENT);
      Kubectl.Result r = dryRun(dir, preset, rendering);
      assertThat(r.ok()).as(preset + ":\n" + r.output()).isTrue();
      // Every object of the rendering went through, none was skipped.
      for (Map<String, Object> o : Chart.objects(rendering)) {
        String kind = ((String) o.get("kind")).toLowerCase();
        @SuppressWarnings("unchecked")
        String name = (String) ((Map<String, Object>) o.get("metadata")).get("name");
        assertThat(r.output())
            .as(preset)
            .containsPattern(
                "(?m)^" + kind + "(\\.[a-z0-9.]+)?/" + Pattern.quote(name) + " .*server dry run");
      }
    }
  }
}
