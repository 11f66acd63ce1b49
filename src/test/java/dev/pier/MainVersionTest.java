package dev.pier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.util.BuildInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code java -jar pier.jar --version}: the version and git revision, then exit. */
class MainVersionTest {
  @Test
  void versionPrintsTheVersionAndRevision() throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      Main.main(new String[] {"--version"});
    } finally {
      System.setOut(out);
    }
    BuildInfo info = BuildInfo.current();
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .isEqualTo("pier " + info.version() + " (" + info.revision() + ")\n");
    assertThat(info.revision()).isNotEqualTo("unknown");
  }
}
