package dev.pier.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * The load-balancer provider a member joined through a Secret runs Pier's load balancers with: what
 * its Secret's {@code pier.dev/load-balancer-provider} annotation and {@code provider-token} and
 * {@code provider-ca} keys say. Only {@code boot} turns it into a provider, checking each setting
 * against the option table.
 *
 * @param settings option paths to values as the annotation writes them ({@code provider}, {@code
 *     hetzner.location}, ...)
 * @param token the provider's API token from the Secret, or empty
 * @param ca PEM certificates the provider's HTTPS endpoint is checked against instead of the JVM's,
 *     from the Secret, or empty
 */
public record MemberProvider(Map<String, String> settings, String token, String ca) {

  public MemberProvider {
    settings = Map.copyOf(settings);
    ca = ca == null ? "" : ca;
  }

  public MemberProvider(Map<String, String> settings, String token) {
    this(settings, token, "");
  }

  /** The provider's name, the {@code provider} setting; empty when the annotation has none. */
  public String name() {
    return settings.getOrDefault("provider", "");
  }

  /** Never prints the token: specs end up in log lines and exception messages. */
  @Override
  public String toString() {
    return "MemberProvider[settings="
        + new TreeMap<>(settings)
        + ", token="
        + (token.isEmpty() ? "none" : "set")
        + ", ca="
        + (ca.isEmpty() ? "none" : "set")
        + "]";
  }
}
