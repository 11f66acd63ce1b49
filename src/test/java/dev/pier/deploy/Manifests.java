package dev.pier.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/** The shipped manifests under {@code k8s/}, read as a user's kubectl would read them. */
final class Manifests {
  static final Path DIR = Path.of("k8s");
  static final Path MONITORING = DIR.resolve("monitoring");

  /** The dashboard and alert rules themselves, which the ConfigMaps in k8s/monitoring/ wrap. */
  static final Path MONITORING_FILES = Path.of("monitoring");

  static final Path CHART = DIR.resolve("chart");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private Manifests() {}

  /** Every Kubernetes manifest under k8s/ (the chart aside, which is Helm's). */
  static List<Path> all() {
    try (Stream<Path> files = Files.walk(DIR)) {
      return files
          .filter(p -> p.toString().endsWith(".yaml"))
          .filter(p -> !p.startsWith(CHART))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The documents of a (multi-document) YAML file that hold more than comments. */
  static List<String> documents(Path file) {
    return documents(read(file));
  }

  static List<String> documents(String yaml) {
    return Arrays.stream(yaml.split("(?m)^---\\s*$"))
        .filter(doc -> doc.lines().anyMatch(l -> !l.isBlank() && !l.startsWith("#")))
        .toList();
  }

  /** The objects of a (multi-document) manifest file. */
  static List<HasMetadata> objects(Path file) {
    return documents(file).stream()
        .filter(doc -> doc.lines().anyMatch(l -> l.startsWith("kind:")))
        .map(doc -> (HasMetadata) SERIALIZATION.unmarshal(doc))
        .toList();
  }

  @SuppressWarnings("unchecked")
  static <T extends HasMetadata> T one(Path file, Class<T> type) {
    return (T)
        objects(file).stream()
            .filter(type::isInstance)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " in " + file));
  }

  static ConfigMap configMap(Path file) {
    return one(file, ConfigMap.class);
  }
}
