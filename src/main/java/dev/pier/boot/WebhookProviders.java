package dev.pier.boot;

import dev.pier.cloud.webhook.WebhookLoadBalancerProvider;
import dev.pier.cloud.webhook.WebhookOptions;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.Secrets;
import dev.pier.util.Egress;
import dev.pier.util.RequestFence;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Builds the webhook provider from Pier's configuration; runs once at startup. */
public final class WebhookProviders {
  private WebhookProviders() {}

  public static WebhookLoadBalancerProvider create(Vertx vertx, ConfigValues config) {
    return create(vertx, config, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each webhook request goes (the leadership gate)
   */
  public static WebhookLoadBalancerProvider create(
      Vertx vertx, ConfigValues config, RequestFence fence) {
    return withToken(vertx, config, token(config), fence);
  }

  /** The provider with {@code token} (or none when empty), not one from webhook.tokenFile. */
  static WebhookLoadBalancerProvider withToken(
      Vertx vertx, ConfigValues config, String token, RequestFence fence) {
    return withToken(vertx, config, token, fence, Egress.OPEN);
  }

  /** As above, each request vetted by {@code egress} (a member Secret's provider). */
  static WebhookLoadBalancerProvider withToken(
      Vertx vertx, ConfigValues config, String token, RequestFence fence, Egress egress) {
    return withToken(vertx, config, token, "", fence, egress);
  }

  /**
   * As above, with {@code ca} (PEM, from a member Secret's {@code provider-ca}) as the only CAs the
   * webhook's certificate is checked against; empty: {@code webhook.tls.caFile} or the JVM's.
   */
  static WebhookLoadBalancerProvider withToken(
      Vertx vertx,
      ConfigValues config,
      String token,
      String ca,
      RequestFence fence,
      Egress egress) {
    String url = config.get(PierOptions.WEBHOOK_URL);
    if (url.isEmpty()) {
      throw new ConfigException(
          config.source()
              + ": "
              + PierOptions.WEBHOOK_URL.path()
              + ": required with provider webhook");
    }
    String cert = config.get(PierOptions.WEBHOOK_TLS_CERT_FILE);
    String key = config.get(PierOptions.WEBHOOK_TLS_KEY_FILE);
    if (cert.isEmpty() != key.isEmpty()) {
      throw new ConfigException(
          config.source()
              + ": "
              + PierOptions.WEBHOOK_TLS_CERT_FILE.path()
              + " and "
              + PierOptions.WEBHOOK_TLS_KEY_FILE.path()
              + " must be set together");
    }
    for (var o :
        List.of(
            PierOptions.WEBHOOK_TLS_CA_FILE,
            PierOptions.WEBHOOK_TLS_CERT_FILE,
            PierOptions.WEBHOOK_TLS_KEY_FILE)) {
      String f = config.get(o);
      if (!f.isEmpty() && !Files.isReadable(Path.of(f))) {
        throw new ConfigException(config.source() + ": " + o.path() + ": cannot read " + f);
      }
    }
    if (!token.isEmpty()) {
      ClearTextGuard.check(
          config,
          PierOptions.WEBHOOK_URL,
          PierOptions.WEBHOOK_ALLOW_HTTP,
          "the token of " + PierOptions.WEBHOOK_TOKEN_FILE.path());
    }
    WebhookOptions options =
        new WebhookOptions()
            .setUrl(url)
            .setTimeout(config.get(PierOptions.WEBHOOK_TIMEOUT))
            .setRetries(config.get(PierOptions.WEBHOOK_RETRIES))
            .setRetryDelay(config.get(PierOptions.WEBHOOK_RETRY_DELAY))
            .setMaxConnections(HttpPools.provider(config, PierOptions.WEBHOOK_MAX_CONNECTIONS))
            .setAnswerLimit(AnswerLimits.answer(config))
            .setInventoryLimit(AnswerLimits.inventory(config))
            .setToken(token)
            .setCaFile(config.get(PierOptions.WEBHOOK_TLS_CA_FILE))
            .setCaPem(ca)
            .setCertFile(cert)
            .setKeyFile(key)
            .setEgress(egress);
    try {
      return new WebhookLoadBalancerProvider(vertx, options, fence);
    } catch (RuntimeException e) {
      throw new ConfigException(config.source() + ": webhook.tls: " + e.getMessage(), e);
    }
  }

  private static String token(ConfigValues config) {
    String file = config.get(PierOptions.WEBHOOK_TOKEN_FILE);
    if (file.isEmpty()) {
      return "";
    }
    try {
      return Secrets.fromFile(file).value();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          config.describe(PierOptions.WEBHOOK_TOKEN_FILE) + ": " + e.getMessage(), e);
    }
  }
}
