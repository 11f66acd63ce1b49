package dev.pier.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The scripts and the test kit look for the same kube-apiserver build in the same cache entry. */
class KubeBuildTest {
  @Test
  void theScriptsAndTheTestKitNameTheSameBuild() throws IOException {
    String script = Files.readString(Path.of("scripts", "lib", "kube-build.sh"));
    assertThat(script)
        .contains("PIER_K8S_VERSION=" + KubeApiServer.KUBERNETES_VERSION + "\n")
        .contains(
            "PIER_KUBE_BUILD_ID=\"$PIER_K8S_VERSION"
                + KubeApiServer.BUILD_ID.substring(KubeApiServer.KUBERNETES_VERSION.length())
                + "\"");
  }
}
