package dev.pier.boot;

import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.config.Option;
import dev.pier.federation.members.MemberSecrets;
import dev.pier.model.MemberProvider;
import dev.pier.util.RequestFence;
import io.vertx.core.Vertx;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the load-balancer provider of a member joined through a Secret from what the Secret says:
 * the settings of the annotation {@code pier.dev/load-balancer-provider}, checked against the
 * option table like a cluster's provider section, over the defaults (never the file's provider
 * settings, whose credentials are not the member's), and the token of its key {@code
 * provider-token}. Whoever may write a member Secret gets no more than that: no setting that names
 * a file or a variable on Pier's own machine or allows a credential in clear text, and not the
 * {@code local} provider, which would bind addresses on Pier's own machine. Its timeouts, retries,
 * retry delays and connections are lowered to the ceilings of Pier's own configuration ({@code
 * federation.memberCeilings.*}, {@link MemberCeilings}).
 */
public final class MemberProviders {
  static final String WHERE = "annotation " + MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION;

  // Settings that read Pier's own files or environment, or let a token cross in clear text.
  private static final List<Option<?>> REFUSED =
      List.of(
          PierOptions.HETZNER_TOKEN_FILE,
          PierOptions.HETZNER_TOKEN_ENV,
          PierOptions.HETZNER_ALLOW_HTTP,
          PierOptions.WEBHOOK_TOKEN_FILE,
          PierOptions.WEBHOOK_ALLOW_HTTP,
          PierOptions.WEBHOOK_TLS_CA_FILE,
          PierOptions.WEBHOOK_TLS_CERT_FILE,
          PierOptions.WEBHOOK_TLS_KEY_FILE);

  private MemberProviders() {}

  /**
   * {@link #check} over the defaults, the default ceilings included: what a tool that does not run
   * Pier can check.
   */
  public static void check(MemberProvider provider) {
    check(new ConfigLoader(PierOptions.ALL, variable -> null).load(null), provider);
  }

  /**
   * @param config Pier's configuration: what is not a provider setting (pool sizes, orphan cleanup)
   *     holds for the member too
   * @throws ConfigException naming the annotation or Secret key, the setting and what is allowed;
   *     never quoting the token
   */
  static LoadBalancerProvider create(
      Vertx vertx, ConfigValues config, MemberProvider provider, RequestFence fence) {
    ConfigValues values = check(config, provider);
    return switch (provider.name()) {
      case "hetzner" ->
          HetznerProviders.withToken(
              vertx,
              values,
              provider.token(),
              fence,
              MemberEgress.egress(vertx, config, "hetzner"));
      case "webhook" ->
          WebhookProviders.withToken(
              vertx,
              values,
              provider.token(),
              provider.ca(),
              fence,
              MemberEgress.egress(vertx, config, "webhook"));
      default -> throw new IllegalStateException("unchecked provider " + provider.name());
    };
  }

  /**
   * The provider options the member runs with, its settings and token checked: what {@link #create}
   * needs, without building anything.
   */
  public static ConfigValues check(ConfigValues config, MemberProvider provider) {
    return checked(config, provider).values();
  }

  /**
   * The settings of the Secret that {@link #check} lowers to Pier's ceilings for members ({@code
   * federation.memberCeilings.*}), each as {@code webhook.retries from 100 to 5
   * (federation.memberCeilings.retries)}; empty when none is. A default above a ceiling is lowered
   * too, but not named: the Secret did not ask for it.
   *
   * @throws ConfigException as {@link #check} does
   */
  public static List<String> lowered(ConfigValues config, MemberProvider provider) {
    return checked(config, provider).lowered().stream()
        .map(MemberCeilings.Lowered::describe)
        .toList();
  }

  private static Checked checked(ConfigValues config, MemberProvider provider) {
    Checked checked = values(config, provider);
    MemberEgress.check(config, checked.values(), provider.name());
    if (!provider.ca().isEmpty()) {
      if (!provider.name().equals("webhook")) {
        throw new ConfigException(
            "data."
                + MemberSecrets.PROVIDER_CA_KEY
                + ": only provider webhook takes a CA of its own (provider "
                + provider.name()
                + " is checked against the JVM's CAs)");
      }
      ProviderCa.check(provider.ca());
    }
    if (provider.name().equals("hetzner") && provider.token().isEmpty()) {
      throw new ConfigException(
          "data."
              + MemberSecrets.PROVIDER_TOKEN_KEY
              + ": missing; provider hetzner needs an API token");
    }
    return checked;
  }

  private static Checked values(ConfigValues config, MemberProvider provider) {
    String name = provider.name();
    switch (name) {
      case "hetzner", "webhook" -> {}
      case "local" ->
          throw new ConfigException(
              WHERE
                  + ": provider: 'local' is refused for a member joined through a Secret: it"
                  + " would bind load-balancer addresses on Pier's own machine; use hetzner or"
                  + " webhook, or list the cluster under clusters in Pier's configuration");
      default ->
          throw new ConfigException(
              ConfigLoader.invalid(WHERE + ": provider", name, "hetzner or webhook"));
    }
    Map<String, Object> part = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : provider.settings().entrySet()) {
      String key = e.getKey();
      for (Option<?> refused : REFUSED) {
        if (refused.path().equals(key)) {
          throw new ConfigException(
              WHERE
                  + ": "
                  + key
                  + ": not allowed in a member Secret (it names a file or variable on Pier's"
                  + " machine, or allows clear text); the token goes under data."
                  + MemberSecrets.PROVIDER_TOKEN_KEY);
        }
      }
      if (!key.equals("provider") && !key.startsWith(name + ".")) {
        throw new ConfigException(
            WHERE + ": " + key + ": not a setting of provider " + name + " (" + name + ".*)");
      }
      part.put(key, e.getValue());
    }
    ConfigValues base = config.withDefaults(PierOptions.PROVIDER_OPTIONS, WHERE);
    // No variable of Pier's environment overrides what a member Secret says.
    ConfigLoader loader = new ConfigLoader(PierOptions.PROVIDER_OPTIONS, variable -> null);
    ConfigValues asked = loader.loadPart(base, part, "", "");
    MemberCeilings.Clamped clamped = MemberCeilings.clamp(asked);
    if (clamped.lowered().isEmpty()) {
      return new Checked(asked, List.of());
    }
    part.putAll(clamped.values());
    return new Checked(loader.loadPart(base, part, "", ""), clamped.requested());
  }

  /** The options a member runs with, and which of its Secret's settings were lowered. */
  private record Checked(ConfigValues values, List<MemberCeilings.Lowered> lowered) {}
}
