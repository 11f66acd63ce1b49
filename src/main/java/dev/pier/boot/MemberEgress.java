package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.Option;
import dev.pier.model.MemberProvider;
import dev.pier.util.Egress;
import dev.pier.util.EgressPolicy;
import dev.pier.util.Ip;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * Where a member Secret's provider may connect ({@code federation.memberEgress.*}, Pier's own
 * configuration only): checked when the Secret is read, for a literal address and the scheme, and
 * again on every request, on the addresses its host resolves to then ({@link Egress}).
 */
final class MemberEgress {
  static final List<String> DEFAULT_ALLOW = List.of();
  static final List<String> DEFAULT_DENY = List.of();

  private MemberEgress() {}

  static EgressPolicy policy(ConfigValues config) {
    return EgressPolicy.of(
        config.get(PierOptions.FEDERATION_MEMBER_EGRESS_ALLOW),
        config.get(PierOptions.FEDERATION_MEMBER_EGRESS_DENY));
  }

  /** The URL setting of {@code provider}: webhook.url or hetzner.endpoint. */
  static Option<String> url(String provider) {
    return provider.equals("hetzner") ? PierOptions.HETZNER_ENDPOINT : PierOptions.WEBHOOK_URL;
  }

  /** What each request of the member's provider is vetted with. */
  static Egress egress(Vertx vertx, ConfigValues config, String provider) {
    return Egress.of(vertx, policy(config), url(provider).path());
  }

  /**
   * Why the member's provider endpoint is refused as its host resolves now (a host name whose
   * addresses the policy refuses), or null: also when it has no URL, is a literal ({@link #check}
   * judged it), or cannot be resolved now, which is not known to be refused. Every request is
   * vetted again all the same; this only lets the Secret's writer hear of it.
   */
  static Future<String> refusedAsResolved(
      Vertx vertx, ConfigValues config, MemberProvider provider) {
    Option<String> option = url(provider.name());
    String value = MemberProviders.check(config, provider).get(option);
    if (value.isEmpty()) {
      return Future.succeededFuture(null);
    }
    RequestOptions request;
    try {
      request = new RequestOptions().setAbsoluteURI(value);
    } catch (RuntimeException e) {
      return Future.succeededFuture(null);
    }
    if (request.getHost() != null && Ip.parse(Ip.unbracketed(request.getHost())) != null) {
      return Future.succeededFuture(null);
    }
    return Egress.of(vertx, policy(config), option.path())
        .vet(request)
        .map(vetted -> (String) null)
        .recover(
            e ->
                Future.succeededFuture(
                    e instanceof Egress.Refused r && !r.unresolved()
                        ? MemberProviders.WHERE
                            + ": "
                            + option.path()
                            + ": '"
                            + shown(value)
                            + "': "
                            + r.reason()
                            + "; every request to it is refused"
                        : null));
  }

  /**
   * Refuses a member's URL that is not https (unless its host is a literal address, or localhost,
   * inside federation.memberEgress.allow) or whose literal address the policy refuses.
   *
   * @param values the member's provider options
   * @throws ConfigException naming the annotation, the setting, its value and why
   */
  static void check(ConfigValues config, ConfigValues values, String provider) {
    Option<String> option = url(provider);
    String value = values.get(option);
    if (value.isEmpty()) {
      return;
    }
    EgressPolicy policy = policy(config);
    URI uri;
    try {
      uri = URI.create(value);
    } catch (IllegalArgumentException e) {
      throw refused(option, value, "not a URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    String host = Ip.unbracketed(uri.getHost() == null ? "" : uri.getHost());
    Ip literal = Ip.parse(host);
    List<Ip> addresses =
        literal != null
            ? List.of(literal)
            : host.equalsIgnoreCase("localhost")
                ? List.of(Ip.parse("127.0.0.1"), Ip.parse("::1"))
                : List.of();
    if (scheme.equals("http")) {
      if (addresses.isEmpty() || !addresses.stream().allMatch(policy::allowed)) {
        throw refused(
            option,
            value,
            "a member's provider must use https (http only to a literal address inside"
                + " federation.memberEgress.allow)");
      }
    } else if (!scheme.equals("https")) {
      throw refused(option, value, "a member's provider must use https");
    }
    for (Ip ip : addresses) {
      String why = policy.refusal(ip);
      if (why != null) {
        throw refused(
            option,
            value,
            why + ", refused for a member's provider (federation.memberEgress.allow may allow it)");
      }
    }
  }

  private static ConfigException refused(Option<String> option, String value, String why) {
    return new ConfigException(
        MemberProviders.WHERE + ": " + option.path() + ": '" + shown(value) + "': " + why);
  }

  /** The URL without its user info, query or fragment, where a credential could sit. */
  private static String shown(String value) {
    try {
      URI uri = URI.create(value);
      if (uri.getRawUserInfo() == null
          && uri.getRawQuery() == null
          && uri.getRawFragment() == null) {
        return value;
      }
      return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null)
          .toString();
    } catch (IllegalArgumentException | java.net.URISyntaxException e) {
      return "(not a URL)";
    }
  }
}
