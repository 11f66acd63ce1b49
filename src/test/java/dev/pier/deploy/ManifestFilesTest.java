package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl apply -f k8s/<dir>/} reads every .yaml, .yml and .json file of a directory and
 * fails on one that is not a Kubernetes object, so every file under {@code k8s/} (the chart aside,
 * which is Helm's) must be one or more Kubernetes objects.
 */
class ManifestFilesTest {
  @Test
  void everyFileUnderK8sIsKubernetesObjects() throws IOException {
    List<String> problems = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(Manifests.DIR)) {
      files =
          walk.filter(Files::isRegularFile)
              .filter(p -> !p.startsWith(Manifests.CHART))
              .sorted()
              .toList();
    }
    assertThat(files).hasSizeGreaterThan(5);
    for (Path file : files) {
      String name = file.getFileName().toString();
      if (!name.endsWith(".yaml") && !name.endsWith(".yml")) {
        problems.add(file + ": not a manifest (kubectl reads " + name + " and fails on it)");
        continue;
      }
      try {
        List<HasMetadata> objects = Manifests.objects(file);
        if (objects.isEmpty()) {
          problems.add(file + ": no Kubernetes object");
        }
        if (objects.size() != Manifests.documents(file).size()) {
          problems.add(file + ": a document without kind");
        }
        for (HasMetadata o : objects) {
          if (o.getApiVersion() == null || o.getMetadata() == null) {
            problems.add(file + ": " + o.getKind() + " without apiVersion or metadata");
          } else if (o.getMetadata().getName() == null) {
            problems.add(file + ": " + o.getKind() + " without a name");
          }
        }
      } catch (RuntimeException e) {
        problems.add(file + ": " + e.getMessage());
      }
    }
    assertThat(problems).isEmpty();
  }
}
