package dev.pier.boot;

import dev.pier.config.Durations;
import dev.pier.config.Option;
import java.time.Duration;

/** The {@code --help} text: usage, then every option of {@link PierOptions} with its default. */
public final class Usage {
  private Usage() {}

  public static String text() {
    StringBuilder out =
        new StringBuilder(
            """
            Usage: java -jar pier.jar [--config FILE] [--help]

            Pier gives Kubernetes Services of type LoadBalancer real load balancers.

              -c, --config FILE  read options from a YAML file (see conf/pier.yaml)
              -h, --help         print this help

            Every option can also be set with an environment variable, which overrides the file.
            Options (environment variable, default):
            """);
    for (Option<?> o : PierOptions.ALL) {
      out.append("  ")
          .append(o.path())
          .append(" (")
          .append(o.envName())
          .append(", ")
          .append(display(o.defaultValue()))
          .append(")\n      ")
          .append(o.description())
          .append('\n');
    }
    return out.toString();
  }

  /** A default as users write it: durations as 5s or 2m. */
  public static String display(Object value) {
    if (value instanceof Duration d) {
      return Durations.format(d);
    }
    if (value instanceof String s && s.isEmpty()) {
      return "\"\"";
    }
    return String.valueOf(value);
  }
}
