package dev.pier.bench;

import java.util.function.Predicate;

/** Sums of samples in Prometheus text exposition format. */
final class PromText {
  private PromText() {}

  /** The sum of every sample of {@code metric} whose line also passes {@code filter}. */
  static double sum(String text, String metric, Predicate<String> filter) {
    double total = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      if (!(line.startsWith(metric + "{") || line.startsWith(metric + " "))) {
        continue;
      }
      if (!filter.test(line)) {
        continue;
      }
      String value = line.substring(line.lastIndexOf(' ') + 1);
      total += Double.parseDouble(value);
    }
    return total;
  }

  static double sum(String text, String metric) {
    return sum(text, metric, l -> true);
  }
}
