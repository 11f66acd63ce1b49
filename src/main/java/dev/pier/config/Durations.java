package dev.pier.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints durations the way Kubernetes users write them: 500ms, 5s, 2m, 1h. */
public final class Durations {
  private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)");

  private Durations() {}

  public static Duration parse(String text) {
    String t = text.trim();
    Matcher m = SIMPLE.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }
    if (t.startsWith("PT") || t.startsWith("pt")) {
      return Duration.parse(t);
    }
    throw new IllegalArgumentException("not a duration");
  }

  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
