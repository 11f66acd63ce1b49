package dev.pier.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import dev.pier.testkit.KubeApiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The Helm chart in {@code k8s/chart/pier}, rendered by Helm's own engine as {@code helm template
 * pier k8s/chart/pier -n pier -f <preset>} would, and its objects as plain trees for comparison.
 */
final class Chart {
  static final Path DIR = Manifests.CHART.resolve("pier");
  static final Path PRESETS = DIR.resolve("ci");
  static final String RELEASE = "pier";
  static final String NAMESPACE = "pier";

  /** The version of the test kit's kube-apiserver: the current release. */
  static final String KUBE_CURRENT = "v" + KubeApiServer.KUBERNETES_VERSION;

  /** The oldest release Pier supports, and the chart's {@code kubeVersion} floor. */
  static final String KUBE_OLDEST = "v" + KubeApiServer.OLDEST_KUBERNETES_VERSION;

  /** Labels only the chart sets (Helm's bookkeeping); the raw manifests carry only the name. */
  private static final Set<String> CHART_ONLY_KEYS =
      Set.of(
          "helm.sh/chart",
          "app.kubernetes.io/managed-by",
          "app.kubernetes.io/instance",
          "app.kubernetes.io/version",
          "checksum/config");

  private static final YAMLMapper YAML = new YAMLMapper();

  private Chart() {}

  /** Every preset values file under ci/, by name without "-values.yaml". */
  static Map<String, Path> presets() {
    try (Stream<Path> files = Files.list(PRESETS)) {
      Map<String, Path> out = new TreeMap<>();
      files
          .filter(p -> p.getFileName().toString().endsWith("-values.yaml"))
          .forEach(p -> out.put(p.getFileName().toString().replace("-values.yaml", ""), p));
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path preset(String name) {
    return PRESETS.resolve(name + "-values.yaml");
  }

  static String render(String preset, String kubeVersion) {
    return template(kubeVersion).withValuesFile(preset(preset)).call();
  }

  static TemplateCommand template(String kubeVersion) {
    return new Helm(DIR)
        .template()
        .withName(RELEASE)
        .withNamespace(NAMESPACE)
        .withKubeVersion(kubeVersion);
  }

  /** The objects of a rendering (or of a manifest file's text), as plain maps. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> objects(String yaml) {
    List<Map<String, Object>> out = new ArrayList<>();
    try (MappingIterator<Object> docs = YAML.readerFor(Object.class).readValues(yaml)) {
      while (docs.hasNext()) {
        Object doc = docs.next();
        if (doc instanceof Map<?, ?> map && !map.isEmpty()) {
          out.add((Map<String, Object>) map);
        }
      }
    }
    return out;
  }

  /** "Kind namespace/name" of an object. */
  @SuppressWarnings("unchecked")
  static String key(Map<String, Object> object) {
    Map<String, Object> meta = (Map<String, Object>) object.get("metadata");
    Object ns = meta.get("namespace");
    return object.get("kind") + " " + (ns == null ? "" : ns + "/") + meta.get("name");
  }

  /**
   * The objects by key, with the chart's bookkeeping labels and annotations removed everywhere and
   * pier.yaml (a string in the ConfigMap) parsed, so that comments and formatting do not count.
   */
  static Map<String, Object> normalized(List<Map<String, Object>> objects) {
    Map<String, Object> out = new TreeMap<>();
    for (Map<String, Object> o : objects) {
      out.put(key(o), normalize(o));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Object normalize(Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String k = String.valueOf(e.getKey());
        if (CHART_ONLY_KEYS.contains(k)) {
          continue;
        }
        Object v = normalize(e.getValue());
        if (k.equals("pier.yaml") && v instanceof String text) {
          v = objects(text).get(0);
        }
        if (v instanceof Map<?, ?> m && m.isEmpty() && k.equals("annotations")) {
          continue;
        }
        out.put(k, v);
      }
      return out;
    }
    if (node instanceof List<?> list) {
      return list.stream().map(Chart::normalize).toList();
    }
    return node;
  }

  /** The objects of a rendering whose kind is one of these. */
  static List<Map<String, Object>> ofKinds(List<Map<String, Object>> objects, String... kinds) {
    Set<String> wanted = Set.of(kinds);
    return objects.stream().filter(o -> wanted.contains(String.valueOf(o.get("kind")))).toList();
  }
}
