package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.dataformat.yaml.YAMLMapper;

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
  void everyPresetRenderedFor120IsAcceptedByTheApiServer(@TempDir Path dir) throws IOException {
    assertThat(Chart.presets()).hasSizeGreaterThanOrEqualTo(8);
    for (String preset : Chart.presets().keySet()) {
      String rendering = Chart.render(preset, Chart.KUBE_1_20);
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

  /**
   * The test kit's API server is 1.20, which serves no policy/v1: it refuses the 1.21 rendering's
   * PodDisruptionBudget as it is (which is why the chart asks .Capabilities), and takes the same
   * spec as policy/v1beta1; everything else of that rendering it takes as it is.
   */
  @Test
  void theRenderingFor121IsAcceptedButForTheApiVersionThat120DoesNotServe(@TempDir Path dir)
      throws IOException {
    List<Map<String, Object>> objects = Chart.objects(Chart.render("replicas2", Chart.KUBE_1_21));
    YAMLMapper yaml = new YAMLMapper();
    StringBuilder rest = new StringBuilder();
    Map<String, Object> pdb = null;
    for (Map<String, Object> o : objects) {
      if ("PodDisruptionBudget".equals(o.get("kind"))) {
        pdb = o;
      } else {
        rest.append("---\n").append(yaml.writeValueAsString(o));
      }
    }
    assertThat(pdb).isNotNull();
    assertThat(pdb.get("apiVersion")).isEqualTo("policy/v1");
    Kubectl.Result r = dryRun(dir, "rest", rest.toString());
    assertThat(r.ok()).as(r.output()).isTrue();

    Kubectl.Result v1 = dryRun(dir, "pdb-v1", yaml.writeValueAsString(pdb));
    assertThat(v1.ok()).isFalse();
    assertThat(v1.output()).contains("policy/v1");

    pdb.put("apiVersion", "policy/v1beta1");
    Kubectl.Result v1beta1 = dryRun(dir, "pdb-v1beta1", yaml.writeValueAsString(pdb));
    assertThat(v1beta1.ok()).as(v1beta1.output()).isTrue();
  }
}
