package dev.pier;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The class-data sharing archive the build leaves next to the fat jar ({@code target/pier.jsa}):
 * the JVM can map it for the jar (with {@code -Xshare:on} it refuses to start otherwise), Pier's
 * classes come from it, and the class list it is dumped from still names the jar's classes (a
 * renamed package would leave an archive that shares nothing of Pier's).
 */
class CdsArchiveIT {
  private static final Path CLASS_LIST = Path.of("src/main/cds/pier.classlist");

  private static Path jar() {
    return Path.of(System.getProperty("pier.jar", "target/pier.jar"));
  }

  private static Path archive() {
    return jar().resolveSibling("pier.jsa");
  }

  @Test
  void theJvmMapsTheArchiveAndLoadsPiersClassesFromIt() throws Exception {
    assertThat(archive()).isRegularFile();
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xshare:on",
            "-XX:SharedArchiveFile=" + archive(),
            "-Xlog:class+load=info",
            "-jar",
            jar().toString(),
            "--version");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("dev.pier.Main source: shared objects file")
        .contains("dev.pier.util.BuildInfo source: shared objects file");
  }

  @Test
  void theClassListNamesClassesTheJarHas() throws Exception {
    List<String> piers = new ArrayList<>();
    for (String line : Files.readAllLines(CLASS_LIST)) {
      if (line.startsWith("dev/pier/") && !line.contains("$$Lambda")) {
        piers.add(line.split("\\s")[0] + ".class");
      }
    }
    Set<String> entries;
    try (JarFile jar = new JarFile(jar().toFile())) {
      entries = jar.stream().map(e -> e.getName()).collect(Collectors.toSet());
    }
    List<String> missing = piers.stream().filter(c -> !entries.contains(c)).toList();
    assertThat(piers).hasSizeGreaterThan(100);
    // A few stale names are harmless (the JVM skips them); many mean the list needs regenerating:
    // scripts/bench/cds-classlist.sh.
    assertThat(missing.size())
        .as("classes in %s but not in the jar: %s", CLASS_LIST, missing)
        .isLessThan(piers.size() / 20);
  }
}
