package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No container engine runs where the tests run, so the Dockerfile is read, not built: every base
 * image pinned (by digest or an exact version), the image runs as a non-root user, and it carries
 * the OCI labels with Pier's version and revision.
 */
class DockerfileTest {
  private static final Pattern PINNED =
      Pattern.compile(".+(@sha256:[0-9a-f]{64}|:\\d+\\.\\d+\\.\\d+[^\\s]*)");
  private static final Pattern LABEL = Pattern.compile("([\\w.\\-]+)=(\"[^\"]*\"|\\S+)");

  /** The instructions, continuation lines joined, comments dropped. */
  private static List<String> instructions() throws IOException {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(Path.of("Dockerfile"))) {
      String trimmed = line.strip();
      if (trimmed.startsWith("#") || (trimmed.isEmpty() && current.isEmpty())) {
        continue;
      }
      if (trimmed.endsWith("\\")) {
        current.append(trimmed, 0, trimmed.length() - 1).append(' ');
      } else {
        out.add(current.append(trimmed).toString().strip());
        current.setLength(0);
      }
    }
    return out;
  }

  /** The instructions of the last stage: what the image is. */
  private static List<String> finalStage(List<String> all) {
    int from = 0;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).startsWith("FROM ")) {
        from = i;
      }
    }
    return all.subList(from, all.size());
  }

  @Test
  void everyBaseImageIsPinned() throws IOException {
    List<String> froms = instructions().stream().filter(i -> i.startsWith("FROM ")).toList();
    assertThat(froms).hasSizeGreaterThanOrEqualTo(2);
    for (String from : froms) {
      String image = from.split("\\s+")[1];
      assertThat(image).as(from).matches(PINNED);
    }
  }

  /**
   * A kubeconfig exec plugin runs through {@code sh -c}, and any command Pier were made to run
   * would need a shell or an interpreter: the image has neither. Its last RUN (exec form, so it
   * needs no shell itself) deletes them; what follows it needs none either.
   */
  @Test
  void theImageHasNoShellOrInterpreterLeft() throws IOException {
    List<String> stage = finalStage(instructions());
    int lastRun = -1;
    for (int i = 0; i < stage.size(); i++) {
      if (stage.get(i).startsWith("RUN ")) {
        lastRun = i;
      }
    }
    assertThat(lastRun).as("a RUN in the final stage").isNotNegative();
    String removal = stage.get(lastRun);
    assertThat(removal).as("the last RUN, in exec form").startsWith("RUN [\"/usr/bin/find\"");
    for (String name : List.of("sh", "dash", "bash", "rbash", "perl*")) {
      assertThat(removal)
          .as("the last RUN removes " + name)
          .contains("\"-name\", \"" + name + "\"");
    }
    assertThat(removal).contains("\"-delete\"");
    for (String after : stage.subList(lastRun + 1, stage.size())) {
      if (after.startsWith("ENTRYPOINT ") || after.startsWith("CMD ")) {
        assertThat(after.substring(after.indexOf(' ') + 1))
            .as(after + ": exec form")
            .startsWith("[");
      }
      assertThat(after).as("after the shells are gone").doesNotStartWith("RUN ");
    }
  }

  @Test
  void theImageRunsAsANonRootUser() throws IOException {
    List<String> users =
        finalStage(instructions()).stream().filter(i -> i.startsWith("USER ")).toList();
    assertThat(users).isNotEmpty();
    String user = users.get(users.size() - 1).substring("USER ".length()).strip().split(":")[0];
    assertThat(user).isNotIn("root", "0");
    assertThat(user).matches("\\d+");
  }

  @Test
  void theImageCarriesTheOciLabelsWithVersionAndRevision() throws IOException {
    List<String> stage = finalStage(instructions());
    Map<String, String> labels = new LinkedHashMap<>();
    Map<String, String> args = new LinkedHashMap<>();
    for (String i : stage) {
      if (i.startsWith("LABEL ")) {
        Matcher m = LABEL.matcher(i.substring("LABEL ".length()));
        while (m.find()) {
          labels.put(m.group(1), m.group(2).replace("\"", ""));
        }
      } else if (i.startsWith("ARG ")) {
        String[] kv = i.substring("ARG ".length()).strip().split("=", 2);
        args.put(kv[0], kv.length > 1 ? kv[1] : "");
      }
    }
    assertThat(labels)
        .containsKeys(
            "org.opencontainers.image.title",
            "org.opencontainers.image.description",
            "org.opencontainers.image.version",
            "org.opencontainers.image.revision",
            "org.opencontainers.image.licenses");
    assertThat(labels.get("org.opencontainers.image.licenses")).isEqualTo("Apache-2.0");
    // Version and revision come from build arguments, the version's default being the pom's.
    assertThat(labels.get("org.opencontainers.image.version")).isEqualTo("${VERSION}");
    assertThat(labels.get("org.opencontainers.image.revision")).isEqualTo("${REVISION}");
    Matcher pom =
        Pattern.compile("<artifactId>pier</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(pom.find()).isTrue();
    assertThat(args).containsEntry("VERSION", pom.group(1)).containsKey("REVISION");
  }

  @Test
  void theImageRunsTheSharedJvmFlagsWithAnArchiveDumpedForItsOwnJarAndJvm() throws IOException {
    List<String> last = finalStage(instructions());
    assertThat(last).contains("COPY conf/jvm.options /opt/pier/jvm.options");
    // Dumped in the final stage: an archive is only valid for the JVM build and jar path it was
    // made with, so one from the build stage's JDK would be ignored.
    assertThat(last)
        .anySatisfy(
            i ->
                assertThat(i)
                    .startsWith("RUN java -Xshare:dump")
                    .contains("-XX:SharedArchiveFile=/opt/pier/pier.jsa")
                    .contains("-cp /opt/pier/pier.jar"));
    String entrypoint =
        last.stream().filter(i -> i.startsWith("ENTRYPOINT ")).reduce((a, b) -> b).orElseThrow();
    assertThat(entrypoint)
        .contains("\"@/opt/pier/jvm.options\"")
        .contains("\"-XX:SharedArchiveFile=/opt/pier/pier.jsa\"")
        .contains("\"/opt/pier/pier.jar\"");
    assertThat(last).noneSatisfy(i -> assertThat(i).contains("JAVA_TOOL_OPTIONS"));
  }
}
