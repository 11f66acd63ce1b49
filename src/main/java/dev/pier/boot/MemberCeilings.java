package dev.pier.boot;

import dev.pier.config.ConfigValues;
import dev.pier.config.Durations;
import dev.pier.config.Option;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The most a member Secret's provider settings may ask of Pier: whoever writes such a Secret is not
 * Pier's operator, yet each of its calls holds a connection, a timer or a retry in Pier. A setting
 * above its ceiling ({@code federation.memberCeilings.*}, set only in Pier's own configuration) is
 * lowered to it, and so is a default above it.
 */
final class MemberCeilings {
  /** The longest of the providers' default request timeouts ({@code hetzner.requestTimeout}). */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** {@code hetzner.actionTimeout}'s default: creating a load balancer takes about a minute. */
  static final Duration DEFAULT_WAIT = Duration.ofMinutes(5);

  /** The webhook's default of 3, and two more. */
  static final int DEFAULT_RETRIES = 5;

  /** Ten times the webhook's default: five doubling retries then wait 155 s at most. */
  static final Duration DEFAULT_RETRY_DELAY = Duration.ofSeconds(5);

  /**
   * One member's calls in flight at once: far more than a cloud's rate limit lets one project use
   * (Hetzner's is 3,600 an hour), far fewer than the 700 sockets that {@code 0} (auto) would open
   * to a host the Secret names.
   */
  static final int DEFAULT_MAX_CONNECTIONS = 16;

  /** One setting lowered to its ceiling. */
  record Lowered(String setting, String from, String to, String ceiling, boolean requested) {
    /** {@code webhook.retries from 100 to 5 (federation.memberCeilings.retries)}. */
    String describe() {
      return setting + " from " + from + " to " + to + " (" + ceiling + ")";
    }
  }

  /**
   * The member's settings within the ceilings.
   *
   * @param values the lowered settings as the option table reads them (path to text), to lay over
   *     the member's
   * @param lowered what was lowered, the Secret's own settings and the defaults alike
   */
  record Clamped(Map<String, Object> values, List<Lowered> lowered) {
    /** The settings the Secret itself asked for above a ceiling. */
    List<Lowered> requested() {
      return lowered.stream().filter(Lowered::requested).toList();
    }
  }

  /** A provider setting and the ceiling that bounds it. */
  private record Cap<T extends Comparable<T>>(Option<T> setting, Option<T> ceiling) {}

  private MemberCeilings() {}

  // Methods, not fields: PierOptions reads this class's defaults while it initializes.
  private static List<Cap<Duration>> durations() {
    return List.of(
        new Cap<>(PierOptions.WEBHOOK_TIMEOUT, PierOptions.FEDERATION_MEMBER_CEILINGS_TIMEOUT),
        new Cap<>(
            PierOptions.HETZNER_REQUEST_TIMEOUT, PierOptions.FEDERATION_MEMBER_CEILINGS_TIMEOUT),
        new Cap<>(PierOptions.HETZNER_ACTION_TIMEOUT, PierOptions.FEDERATION_MEMBER_CEILINGS_WAIT),
        new Cap<>(
            PierOptions.HETZNER_RATE_LIMIT_MAX_WAIT, PierOptions.FEDERATION_MEMBER_CEILINGS_WAIT),
        new Cap<>(
            PierOptions.WEBHOOK_RETRY_DELAY, PierOptions.FEDERATION_MEMBER_CEILINGS_RETRY_DELAY),
        new Cap<>(
            PierOptions.HETZNER_ACTION_POLL_INTERVAL,
            PierOptions.FEDERATION_MEMBER_CEILINGS_RETRY_DELAY));
  }

  private static List<Cap<Integer>> counts() {
    return List.of(
        new Cap<>(PierOptions.WEBHOOK_RETRIES, PierOptions.FEDERATION_MEMBER_CEILINGS_RETRIES),
        new Cap<>(
            PierOptions.WEBHOOK_MAX_CONNECTIONS,
            PierOptions.FEDERATION_MEMBER_CEILINGS_MAX_CONNECTIONS),
        new Cap<>(
            PierOptions.HETZNER_MAX_CONNECTIONS,
            PierOptions.FEDERATION_MEMBER_CEILINGS_MAX_CONNECTIONS));
  }

  /**
   * Lowers every setting of the member's provider that is above its ceiling.
   *
   * @param values a member's provider options (its Secret's settings over the defaults) with Pier's
   *     own other options, the ceilings among them
   */
  static Clamped clamp(ConfigValues values) {
    String section = values.get(PierOptions.PROVIDER) + ".";
    Map<String, Object> lowered = new LinkedHashMap<>();
    List<Lowered> report = new ArrayList<>();
    for (Cap<Duration> cap : durations()) {
      if (!cap.setting().path().startsWith(section)) {
        continue;
      }
      Duration value = values.get(cap.setting());
      Duration ceiling = values.get(cap.ceiling());
      if (value.compareTo(ceiling) > 0) {
        lowered.put(cap.setting().path(), Durations.format(ceiling));
        report.add(lowered(values, cap, Durations.format(value), Durations.format(ceiling)));
      }
    }
    for (Cap<Integer> cap : counts()) {
      if (!cap.setting().path().startsWith(section)) {
        continue;
      }
      int value = values.get(cap.setting());
      int ceiling = values.get(cap.ceiling());
      // A maxConnections of 0 is "auto": a pool as large as the work that can use it.
      boolean auto =
          value == 0 && cap.ceiling() == PierOptions.FEDERATION_MEMBER_CEILINGS_MAX_CONNECTIONS;
      int effective = auto ? HttpPools.provider(values, cap.setting()) : value;
      if (effective > ceiling) {
        lowered.put(cap.setting().path(), Integer.toString(ceiling));
        report.add(
            lowered(
                values,
                cap,
                auto ? value + " (auto: " + effective + ")" : Integer.toString(value),
                Integer.toString(ceiling)));
      }
    }
    return new Clamped(Map.copyOf(lowered), List.copyOf(report));
  }

  private static Lowered lowered(ConfigValues values, Cap<?> cap, String from, String to) {
    return new Lowered(
        cap.setting().path(), from, to, cap.ceiling().path(), values.isSet(cap.setting()));
  }
}
