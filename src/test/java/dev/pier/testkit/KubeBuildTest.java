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
        .contains("PIER_K8S_OLDEST_VERSION=" + KubeApiServer.OLDEST_KUBERNETES_VERSION + "\n")
        .contains(
            "PIER_KUBE_BUILD_SUFFIX="
                + KubeApiServer.BUILD_ID.substring(KubeApiServer.KUBERNETES_VERSION.length() + 1)
                + "\n")
        .contains("PIER_KUBE_BUILD_ID=\"$PIER_K8S_VERSION-$PIER_KUBE_BUILD_SUFFIX\"");
  }

  /** Each pinned release has its wrapper module, pinning exactly that k8s.io/kubernetes. */
  @Test
  void eachPinnedReleaseHasItsModule() throws IOException {
    for (String version :
        new String[] {KubeApiServer.KUBERNETES_VERSION, KubeApiServer.OLDEST_KUBERNETES_VERSION}) {
      String minor = version.substring(0, version.lastIndexOf('.'));
      Path module = Path.of("scripts", "kube", "kubernetes-v" + minor);
      assertThat(Files.readString(module.resolve("go.mod")))
          .contains("require k8s.io/kubernetes v" + version + "\n")
          .contains("k8s.io/apiserver => k8s.io/apiserver v0." + minor.substring(2) + ".");
      assertThat(module.resolve("go.sum")).isNotEmptyFile();
    }
  }
}
