package dev.pier.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One configuration option: its dotted path in {@code pier.yaml}, its default, how a raw value (a
 * string, or a list of strings from a YAML sequence) becomes a typed value, and what is allowed.
 *
 * <p>An option with {@code mappingItems} also takes YAML sequences whose items are mappings: its
 * parser then sees a list whose items are {@code String} or {@code Map<String, Object>} (values
 * {@code String}, {@code List<Object>}, {@code Map<String, Object>} or null). Its parser reports a
 * bad part with {@link InvalidItemException}, naming where in the value it is. Every other option
 * refuses such items.
 */
public record Option<T>(
    String path,
    T defaultValue,
    Function<Object, T> parser,
    Predicate<T> check,
    String allowed,
    String description,
    boolean mappingItems) {

  /** An option whose list items, if any, are plain values. */
  public Option(
      String path,
      T defaultValue,
      Function<Object, T> parser,
      Predicate<T> check,
      String allowed,
      String description) {
    this(path, defaultValue, parser, check, allowed, description, false);
  }

  /**
   * {@code PIER_} plus the path in upper snake case: reconcile.minRetryDelay ->
   * PIER_RECONCILE_MIN_RETRY_DELAY.
   */
  public String envName() {
    return "PIER_" + envForm(path);
  }

  /**
   * A dotted path in upper snake case, the way environment variables spell it: healthCheck.interval
   * -> HEALTH_CHECK_INTERVAL, east-1 -> EAST_1.
   */
  public static String envForm(String path) {
    StringBuilder out = new StringBuilder();
    for (char c : path.toCharArray()) {
      if (c == '.' || c == '-') {
        out.append('_');
      } else if (Character.isUpperCase(c)) {
        out.append('_').append(c);
      } else {
        out.append(Character.toUpperCase(c));
      }
    }
    return out.toString();
  }

  /** Parses and checks a raw value; throws IllegalArgumentException with what is allowed. */
  public T parse(Object raw) {
    T value;
    try {
      value = parser.apply(raw);
    } catch (InvalidItemException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "must be " + allowed + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), e);
    } catch (RuntimeException e) {
      // A value of a shape the parser did not expect (a mapping where a list belongs, say): what
      // the parser's exception says is about Pier's code, not the value.
      throw new IllegalArgumentException("must be " + allowed, e);
    }
    if (!check.test(value)) {
      throw new IllegalArgumentException("must be " + allowed);
    }
    return value;
  }

  public static Option<String> string(
      String path, String defaultValue, Predicate<String> check, String allowed, String doc) {
    return new Option<>(path, defaultValue, Option::scalar, check, allowed, doc);
  }

  public static Option<String> choice(
      String path, String defaultValue, List<String> values, String doc) {
    return new Option<>(
        path,
        defaultValue,
        raw -> scalar(raw).toLowerCase(Locale.ROOT),
        values::contains,
        "one of " + values,
        doc);
  }

  public static Option<Integer> integer(
      String path, int defaultValue, int min, int max, String doc) {
    return new Option<>(
        path,
        defaultValue,
        raw -> Integer.valueOf(scalar(raw).trim()),
        v -> v >= min && v <= max,
        "an integer from " + min + " to " + max,
        doc);
  }

  /** A decimal number such as 10 or 0.5. */
  public static Option<Double> decimal(
      String path, double defaultValue, double min, double max, String doc) {
    return new Option<>(
        path,
        defaultValue,
        raw -> {
          double v = Double.parseDouble(scalar(raw).trim());
          if (Double.isNaN(v) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("not a finite number");
          }
          return v;
        },
        v -> v >= min && v <= max,
        "a number from " + number(min) + " to " + number(max),
        doc);
  }

  /** A number as users write it: 10, not 10.0. */
  public static String number(double d) {
    return d == Math.rint(d) && !Double.isInfinite(d)
        ? String.valueOf((long) d)
        : String.valueOf(d);
  }

  public static Option<Boolean> bool(String path, boolean defaultValue, String doc) {
    return new Option<>(
        path,
        defaultValue,
        raw -> {
          String s = scalar(raw).trim().toLowerCase(Locale.ROOT);
          if (!s.equals("true") && !s.equals("false")) {
            throw new IllegalArgumentException("not a boolean");
          }
          return Boolean.valueOf(s);
        },
        v -> true,
        "true or false",
        doc);
  }

  public static Option<Duration> duration(
      String path, Duration defaultValue, Duration min, Duration max, String doc) {
    return new Option<>(
        path,
        defaultValue,
        raw -> Durations.parse(scalar(raw)),
        v -> v.compareTo(min) >= 0 && v.compareTo(max) <= 0,
        "a duration such as 500ms, 5s, 2m or 1h, from "
            + Durations.format(min)
            + " to "
            + Durations.format(max),
        doc);
  }

  public static Option<List<String>> list(
      String path,
      List<String> defaultValue,
      Predicate<List<String>> check,
      String allowed,
      String doc) {
    return new Option<>(path, defaultValue, Option::strings, check, allowed, doc);
  }

  /**
   * A list whose YAML items may be plain values or mappings, parsed by {@code parser} from a
   * comma-separated string (the environment) or such a list (the file).
   */
  public static <T> Option<List<T>> itemList(
      String path,
      List<T> defaultValue,
      Function<Object, List<T>> parser,
      Predicate<List<T>> check,
      String allowed,
      String doc) {
    return new Option<>(path, defaultValue, parser, check, allowed, doc, true);
  }

  static String scalar(Object raw) {
    if (raw instanceof String s) {
      return s;
    }
    throw new IllegalArgumentException("a single value, not a list or a mapping");
  }

  @SuppressWarnings("unchecked")
  static List<String> strings(Object raw) {
    if (raw instanceof List<?> l) {
      return List.copyOf((List<String>) l);
    }
    String s = ((String) raw).trim();
    if (s.isEmpty()) {
      return List.of();
    }
    return Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
  }
}
