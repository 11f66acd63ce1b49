package dev.pier.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The version and git revision the build wrote into the jar. */
class BuildInfoTest {
  @Test
  void theVersionIsThePomsAndTheRevisionIsTheCheckedOutCommit() throws Exception {
    BuildInfo info = BuildInfo.current();
    Matcher m =
        Pattern.compile("<artifactId>pier</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(m.find()).isTrue();
    assertThat(info.version()).isEqualTo(m.group(1));
    String head = git("rev-parse", "HEAD");
    assertThat(info.revision()).hasSizeGreaterThanOrEqualTo(7);
    assertThat(head).startsWith(info.revision());
  }

  @Test
  void anUnfilledRevisionIsUnknown() {
    assertThat(BuildInfo.of("0.9.0", "${git.commit.id.abbrev}").revision()).isEqualTo("unknown");
    assertThat(BuildInfo.of("0.9.0", "").revision()).isEqualTo("unknown");
    assertThat(BuildInfo.of("0.9.0", "abc1234").revision()).isEqualTo("abc1234");
    assertThat(BuildInfo.of("0.9.0", "abc1234").toString()).isEqualTo("pier 0.9.0 (abc1234)");
  }

  private static String git(String... args) throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = "git";
    System.arraycopy(args, 0, command, 1, args.length);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
