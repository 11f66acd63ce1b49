package dev.pier.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every Event reason Pier writes has an entry in docs/troubleshooting.md. */
class TroubleshootingDocTest {
  private static final Path PAGE = Path.of("docs/troubleshooting.md");

  /** A provider's Warning: {@code new EnsureResult.Warning("Reason", ...)}. */
  private static final Pattern PROVIDER_WARNING =
      Pattern.compile("new EnsureResult\\.Warning\\(\\s*\"([A-Za-z]+)\"");

  /** A provider's own reason for a refusal, the last argument of InvalidInput. */
  private static final Pattern INVALID_INPUT_REASON =
      Pattern.compile("new ProviderException\\.InvalidInput\\([^;]*?,\\s*\"([A-Z][A-Za-z]+)\"\\);");

  @Test
  void everyReasonOfEventReasonsHasAnEntry() throws Exception {
    List<String> reasons = new ArrayList<>();
    for (Field f : EventReasons.class.getDeclaredFields()) {
      int m = f.getModifiers();
      if (Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType() == String.class) {
        reasons.add((String) f.get(null));
      }
    }
    Field memberSecret =
        Class.forName("dev.pier.federation.members.MemberSecrets")
            .getDeclaredField("INVALID_MEMBER_SECRET");
    memberSecret.setAccessible(true);
    reasons.add((String) memberSecret.get(null));
    assertThat(reasons).hasSizeGreaterThan(30);
    assertThat(missingFromPage(reasons)).as("reasons without an entry in " + PAGE).isEmpty();
  }

  @Test
  void everyProviderReasonHasAnEntry() throws IOException {
    TreeSet<String> reasons = new TreeSet<>();
    reasons.add("LoadBalancerWarning"); // the webhook's, when its answer names no reason
    try (Stream<Path> files = Files.walk(Path.of("src/main/java/dev/pier/cloud"))) {
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String source = Files.readString(file);
        for (Pattern p : List.of(PROVIDER_WARNING, INVALID_INPUT_REASON)) {
          Matcher m = p.matcher(source);
          while (m.find()) {
            reasons.add(m.group(1));
          }
        }
      }
    }
    assertThat(reasons).contains("PortBindFailed", "LoadBalancerNameTaken");
    assertThat(missingFromPage(reasons)).as("reasons without an entry in " + PAGE).isEmpty();
  }

  /** An entry is the reason as a table cell: {@code | `Reason` |}. */
  private static List<String> missingFromPage(Iterable<String> reasons) throws IOException {
    String page = Files.readString(PAGE);
    List<String> missing = new ArrayList<>();
    for (String reason : reasons) {
      if (!page.contains("| `" + reason + "` |")) {
        missing.add(reason);
      }
    }
    return missing;
  }
}
