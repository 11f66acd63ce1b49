package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.PierProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code conf/jvm.options} is Pier's one set of JVM flags: a JVM accepts it, it sizes the heap from
 * the Deployment's memory limit, and every way of running Pier (the image, run-local, the
 * benchmark) reads it instead of carrying flags of its own.
 */
class JvmOptionsTest {
  private static final Pattern FLAG =
      Pattern.compile("^\\s*\\S+\\s+(\\w+)\\s+=\\s+(\\S+)\\s+\\{", Pattern.MULTILINE);

  /** The JVM's final flags for conf/jvm.options in {@code maxRam} of memory. */
  private static Map<String, String> finalFlags(String maxRam) throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + PierProcess.JVM_OPTIONS,
                "-XX:MaxRAM=" + maxRam,
                "-XX:+PrintFlagsFinal",
                "-version")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    Map<String, String> flags = new HashMap<>();
    Matcher m = FLAG.matcher(out);
    while (m.find()) {
      flags.put(m.group(1), m.group(2));
    }
    return flags;
  }

  @Test
  void aJvmAcceptsTheFlagsAndSizesTheHeapFromTheMemoryLimit() throws Exception {
    Map<String, String> flags = finalFlags("512m");
    long maxHeap = Long.parseLong(flags.get("MaxHeapSize"));
    // Twice the live set of 10,000 Services (80 MB), well inside the Deployment's 512 MiB limit.
    assertThat(maxHeap).isBetween(160L << 20, 200L << 20);
    assertThat(flags).containsEntry("UseSerialGC", "true").containsEntry("TieredStopAtLevel", "1");
    assertThat(flags).containsEntry("CompileThresholdScaling", "0.250000");
    assertThat(flags).containsEntry("ExitOnOutOfMemoryError", "true");
    // A larger limit gives a larger heap: the flags follow the limit, they do not fix a size.
    assertThat(Long.parseLong(finalFlags("1g").get("MaxHeapSize"))).isGreaterThan(maxHeap);
  }

  @Test
  void everyLauncherReadsTheSharedFlags() throws IOException {
    assertThat(Files.readString(Path.of("scripts/run-local.sh"))).contains("@conf/jvm.options");
    assertThat(Files.readString(Path.of("scripts/bench/run.sh"))).contains("conf/jvm.options");
    assertThat(Files.readString(Path.of("scripts/image.sh")))
        .contains("\"$root/conf/jvm.options\" \"$layer/opt/pier/jvm.options\"")
        .contains("\"@/opt/pier/jvm.options\"");
  }

  @Test
  void theManifestsSetNoJvmFlagsOfTheirOwn() {
    for (Path file : List.of(Manifests.DIR.resolve("deployment.yaml"))) {
      assertThat(Manifests.read(file))
          .as(file.toString())
          .doesNotContain("JAVA_TOOL_OPTIONS")
          .doesNotContain("JDK_JAVA_OPTIONS")
          .doesNotContain("-XX:");
    }
    assertThat(Manifests.read(Manifests.CHART.resolve("pier/templates/deployment.yaml")))
        .doesNotContain("JAVA_TOOL_OPTIONS")
        .doesNotContain("-XX:");
  }
}
